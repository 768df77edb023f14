"""Documents that are not English are left out of a user's corpus, each with one warning."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from aesi_lib.corpus.language import MIN_ENGLISH_SHARE, detect_language
from aesi_lib.corpus.plain import read_plain_documents, read_user_corpus
from aesi_lib.errors import InputError

ENGLISH = [
    "Rebels attacked the town of San Miguel on Tuesday, and two soldiers were killed in the "
    "fighting, the army said.",
    "A bomb exploded near the embassy in the capital. The police said that no one was hurt "
    "but the building was damaged.",
]
SPANISH = ("El alcalde de la ciudad fue asesinado el martes por un grupo armado, según informó "
           "la policía, que investiga el ataque contra su vehículo en el centro de la capital.")
FRENCH = ("Le maire de la ville a été tué mardi par un groupe armé, a indiqué la police, qui "
          "enquête sur l'attaque contre son véhicule dans le centre de la capitale.")
NUMBERS = "1989 1990 1991\n12.5 13.0 17.25\n4 8 15 16 23 42\n"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in [("en1", ENGLISH[0]), ("en2", ENGLISH[1]), ("es", SPANISH),
                       ("fr", FRENCH), ("figures", NUMBERS)]:
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return folder


def test_documents_not_in_english_are_left_out_with_one_warning_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = _folder(tmp_path)
    with caplog.at_level(logging.WARNING, logger="aesi_lib.corpus.plain"):
        read = read_user_corpus(folder)
    assert [d.doc_id for d in read.documents] == ["en1", "en2"]
    assert [r.getMessage() for r in caplog.records] == [
        f"skipping {folder / 'es.txt'}: not English (looks like Spanish; --keep-non-english "
        "keeps it)",
        f"skipping {folder / 'figures.txt'}: not English (no words; --keep-non-english keeps "
        "it)",
        f"skipping {folder / 'fr.txt'}: not English (looks like French; --keep-non-english "
        "keeps it)",
    ]
    assert read.left_out == [
        {"doc_id": "es", "source": str(folder / "es.txt"),
         "reason": "not English (looks like Spanish)"},
        {"doc_id": "figures", "source": str(folder / "figures.txt"),
         "reason": "not English (no words)"},
        {"doc_id": "fr", "source": str(folder / "fr.txt"),
         "reason": "not English (looks like French)"},
    ]
    # Left out whatever on_error says: such a document is readable, not a bad file.
    assert [d.doc_id for d in read_plain_documents(folder, on_error="skip")] == ["en1", "en2"]


def test_keep_non_english_keeps_them(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = _folder(tmp_path)
    with caplog.at_level(logging.WARNING, logger="aesi_lib.corpus.plain"):
        read = read_user_corpus(folder, keep_non_english=True)
    assert [d.doc_id for d in read.documents] == ["en1", "en2", "es", "figures", "fr"]
    assert read.left_out == [] and not caplog.records


def test_a_jsonl_line_not_in_english_is_named_by_its_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps({"id": i, "text": t}) for i, t in
                              [(1, ENGLISH[0]), (2, SPANISH), (3, ENGLISH[1])]) + "\n")
    with caplog.at_level(logging.WARNING, logger="aesi_lib.corpus.plain"):
        read = read_user_corpus(path)
    assert [d.doc_id for d in read.documents] == ["1", "3"]
    assert [r.getMessage() for r in caplog.records] == [
        f"skipping {path}: line 2: not English (looks like Spanish; --keep-non-english "
        "keeps it)"]
    assert read.left_out == [{"doc_id": "2", "source": str(path), "line": 2,
                              "reason": "not English (looks like Spanish)"}]


def test_a_corpus_with_no_english_document_says_how_to_keep_them(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "es.txt").write_text(SPANISH)
    with pytest.raises(InputError, match="no usable documents .*1 not English, "
                       "--keep-non-english keeps them"):
        read_plain_documents(folder)
    assert [d.doc_id for d in read_plain_documents(folder, keep_non_english=True)] == ["es"]


@pytest.mark.parametrize(("text", "code"), [
    (ENGLISH[0], "en"),
    (ENGLISH[0].upper(), "en"),            # MUC-4 is in capitals
    (SPANISH, "es"),
    (FRENCH, "fr"),
    ("Der Bürgermeister der Stadt wurde am Dienstag von einer bewaffneten Gruppe getötet, "
     "teilte die Polizei mit, die den Angriff auf sein Auto untersucht.", "de"),
    ("De burgemeester van de stad werd dinsdag door een gewapende groep gedood, meldde de "
     "politie, die de aanval op zijn auto in het centrum onderzoekt.", "nl"),
    (NUMBERS, "zxx"),
    ("Table 1 2 3 4 5 6 7 8 9", "zxx"),
    ("word " * 40, "und"),                 # words, but no English function words
    ("A bomb exploded.", "en"),            # too short to measure; no other language beats it
    ("EL ALCALDE DE SAN JOSÉ FUE ASESINADO.", "es"),
])
def test_detect_language(text: str, code: str) -> None:
    assert detect_language(text).code == code


def test_the_demo_corpus_is_english() -> None:
    from aesi_lib.corpus.demo import load_demo_corpus

    guesses = [detect_language(d.text) for d in load_demo_corpus().documents]
    assert guesses and all(g.is_english for g in guesses)
    # Well above the threshold, so that a small change of the lists does not drop one.
    assert min(g.english_share for g in guesses) > MIN_ENGLISH_SHARE + 0.05


def test_the_python_api_reads_a_folder_as_the_command_line_does(tmp_path: Path) -> None:
    from aesi_lib.inducer import as_documents

    folder = _folder(tmp_path)
    assert [d.doc_id for d in as_documents(folder)] == ["en1", "en2"]
    assert len(as_documents(folder, keep_non_english=True)) == 5
