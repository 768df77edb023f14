"""Casing strategies (aesi_lib.parse.casing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesi_lib.errors import ResourceMissingError
from aesi_lib.parse import casing
from aesi_lib.parse.casing import (
    CASING_STRATEGIES,
    DEFAULT_CASING,
    apply_casing,
    find_wordnet_dir,
    get_casing,
    is_mostly_upper,
)

UPPER = ("   POLICE SOURCES HAVE REPORTED THAT UNIDENTIFIED INDIVIDUALS PLANTED A BOMB IN FRONT\n"
         "OF A MORMON CHURCH IN TALCAHUANO DISTRICT.  THE FMLN ATTACKED THE 20TH BRIGADE.\n\n"
         "   THE COUNTRY'S PRESIDENT SAID: \"I DON'T KNOW.\" [PASSAGE OMITTED] THEN AN M-16 "
         "WAS FOUND.")


@pytest.mark.parametrize("name", CASING_STRATEGIES)
def test_every_strategy_keeps_length_and_letters(name):
    text = UPPER + " İSTANBUL ÆØÅ 3½ ß"
    out = apply_casing(text, name)
    assert len(out) == len(text)
    assert out.lower() == text.lower() or name == "lower"
    # Only letters may change.
    assert all(a == b or a.isalpha() for a, b in zip(text, out, strict=True))


def test_asis_and_lower():
    assert apply_casing(UPPER, "asis") == UPPER
    assert apply_casing(UPPER, "lower") == UPPER.lower()


def test_truecase_common_words_lower_names_capitalised():
    out = apply_casing(UPPER, "truecase")
    assert out.startswith("   Police sources have reported that unidentified individuals "
                          "planted a bomb in front\nof a Mormon church in Talcahuano district.")
    assert "The FMLN attacked the 20th brigade." in out  # acronym kept, ordinal suffix lower
    assert "The country's president said" in out  # clitic after the apostrophe
    assert "\"I don't know.\"" in out
    assert "[passage omitted]" in out  # a bracket does not start a sentence
    assert "then an M-16 was found." in out  # single letters stay upper


def test_truecase_inflections_and_ambiguous_words():
    out = apply_casing("THE WINDOWS AND FIELDS OF LIMA WERE DESTROYED BY MACHINEGUNS", "truecase")
    # Inflected forms of common words (WordNet also has "Windows"/"Fields" as names).
    assert out == "The windows and fields of Lima were destroyed by machineguns"


def test_truecase_name_particles():
    assert apply_casing("RODRIGO DE LA VEGA Y PEREZ", "truecase") == "Rodrigo de La Vega y Perez"


def test_auto_only_touches_upper_case_text():
    mixed = "The guerrillas attacked the FMLN office in San Salvador yesterday."
    assert apply_casing(mixed, "auto") == mixed
    assert apply_casing(mixed.upper(), "auto") == apply_casing(mixed.upper(), "truecase")
    assert DEFAULT_CASING == "auto"


def test_is_mostly_upper():
    assert is_mostly_upper("THE BOMB EXPLODED IN THE CAPITAL")
    assert not is_mostly_upper("The bomb exploded in the capital")
    assert not is_mostly_upper("BOMB")  # too few letters to decide


def test_unknown_strategy():
    with pytest.raises(ValueError, match="unknown casing strategy"):
        get_casing("shouting")


def test_missing_wordnet_is_reported(monkeypatch, tmp_path: Path):
    monkeypatch.setattr(casing, "_SYSTEM_WORDNET_DIRS", ())
    monkeypatch.delenv("AESI_WORDNET_DIR", raising=False)
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(ResourceMissingError, match="wordnet-base"):
        find_wordnet_dir(tmp_path / "nowhere")


def test_wordnet_dir_from_environment(monkeypatch):
    found = find_wordnet_dir()
    monkeypatch.setenv("AESI_WORDNET_DIR", str(found))
    assert find_wordnet_dir() == found
