"""Which corpus a run reads and why (``aesi_lib.corpus.sources``): the line `aesi run` prints
before any work, and the corpus a scheduled run takes from its project."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesi_lib.corpus import muc4
from aesi_lib.corpus.sources import choose_corpus, load_corpus, recorded_corpus
from aesi_lib.errors import InputError


@pytest.fixture
def no_default_muc4(tmp_path, monkeypatch) -> Path:
    """No $AESI_MUC4_DIR and no ../shared/data/muc4 beside the working folder or the code."""
    monkeypatch.delenv(muc4.MUC4_DIR_ENV, raising=False)
    work = tmp_path / "work" / "here"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setattr(muc4, "_REPO_ROOT", work)
    return work


def _muc4_folder(root: Path) -> Path:
    folder = root / "shared" / "data" / "muc4"
    folder.mkdir(parents=True)
    return folder


def test_each_choice_says_which_corpus_and_why(no_default_muc4, tmp_path, monkeypatch):
    demo = choose_corpus()
    assert demo.name == "demo" and demo.path is None
    assert "embedded demo corpus" in demo.description
    assert "no --docs or --muc4-dir given, $AESI_MUC4_DIR unset" in demo.description
    assert choose_corpus(docs_path="my/docs").description == "the documents of my/docs (--docs)"
    assert choose_corpus(docs_path="my/docs", demo=True).reason == "--demo"

    found = _muc4_folder(tmp_path / "work")
    default = choose_corpus()
    assert default.name == "muc4" and default.path == found
    assert default.description.startswith(f"the MUC-4 folder {found} (found there")
    named = tmp_path / "mine"
    named.mkdir()
    assert choose_corpus(muc4_dir=named).reason == "--muc4-dir"
    monkeypatch.setenv(muc4.MUC4_DIR_ENV, str(named))
    from_env = choose_corpus()
    assert from_env.path == named and from_env.reason == "$AESI_MUC4_DIR"
    # A folder the user named that is not one is an error, never replaced by a default.
    monkeypatch.setenv(muc4.MUC4_DIR_ENV, str(tmp_path / "missing"))
    with pytest.raises(InputError, match="named by AESI_MUC4_DIR not found"):
        choose_corpus()


def test_the_loaded_corpus_carries_its_choice(no_default_muc4):
    corpus = load_corpus()
    assert corpus.name == "demo" and corpus.choice == choose_corpus()
    assert corpus.origin == choose_corpus().description


def test_a_scheduled_run_reads_only_a_corpus_the_user_chose(tmp_path):
    for recorded in (None, {}, {"muc4_dir": None, "docs_path": None, "demo": False}):
        with pytest.raises(InputError, match="no corpus recorded for scheduled runs") as err:
            recorded_corpus(recorded, tmp_path / "project")
        assert str(tmp_path / "project") in str(err.value)
    options = {"muc4_dir": None, "docs_path": "/data/news", "demo": False,
               "encoding": "latin-1", "skip_bad": True, "max_doc_chars": 1000,
               "keep_non_english": True, "other": 1}
    assert recorded_corpus(options, "p") == {k: v for k, v in options.items() if k != "other"}
    assert recorded_corpus({"demo": True}, "p") == {"demo": True}
