"""Choosing what a run reads: the MUC-4 corpus, a user's documents, or the embedded demo."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aesi_lib.corpus.types import Document, KeyTemplate
from aesi_lib.errors import InputError


@dataclass(frozen=True)
class CorpusChoice:
    """Which corpus a run reads, decided before anything is read (:func:`choose_corpus`).

    Attributes
    ----------
    name : str
        ``"user"``, ``"muc4"`` or ``"demo"``.
    path : Path or None
        The documents' folder or file, or the MUC-4 folder; None for the demo.
    reason : str
        Why: ``"--docs"``, ``"--muc4-dir"``, ``"$AESI_MUC4_DIR"``, ``"--demo"``, or the
        default that applied.
    """

    name: str
    path: Path | None
    reason: str

    @property
    def description(self) -> str:
        """One line for the log: ``the MUC-4 folder ../shared/data/muc4 (found there: no
        --docs, --muc4-dir or $AESI_MUC4_DIR given)``."""
        what = {"user": f"the documents of {self.path}",
                "muc4": f"the MUC-4 folder {self.path}",
                "demo": "the embedded demo corpus (40 invented messages)"}[self.name]
        return f"{what} ({self.reason})"


@dataclass(frozen=True)
class Corpus:
    """The documents of a run and the keys it is scored with.

    ``eval_keys`` score the run (TST1+TST2 for MUC-4, the hand-made key for the demo, None for
    a user's own documents); ``map_keys`` are the keys a dev-mapped evaluation learns its
    mapping on (DEV for MUC-4). ``left_out`` lists a user's documents that were left out as
    not English (``aesi_lib.corpus.plain.UserCorpus.left_out``; empty for MUC-4 and the
    demo, which are read whole).
    """

    name: str
    documents: list[Document]
    eval_keys: list[KeyTemplate] | None
    map_keys: list[KeyTemplate] | None
    eval_label: str
    #: Which corpus this is and why it was chosen (None for a corpus made by hand).
    choice: CorpusChoice | None = None
    left_out: list[dict[str, str | int]] = field(default_factory=list)

    @property
    def origin(self) -> str:
        """Which corpus this is and why it was chosen (:attr:`CorpusChoice.description`)."""
        return self.choice.description if self.choice is not None else self.name

    @property
    def splits(self) -> list[str]:
        return sorted({d.split for d in self.documents})


def choose_corpus(muc4_dir: str | Path | None = None, docs_path: str | Path | None = None,
                  demo: bool = False) -> CorpusChoice:
    """The corpus :func:`load_corpus` reads for these options, and why.

    Raises
    ------
    InputError
        As :func:`aesi_lib.corpus.muc4.find_muc4_dir`, for a MUC-4 folder the user named that
        is not one.
    """
    if demo:
        return CorpusChoice("demo", None, "--demo")
    if docs_path is not None:
        return CorpusChoice("user", Path(docs_path), "--docs")
    from aesi_lib.corpus.muc4 import MUC4_DIR_ENV, find_muc4_dir

    folder, found_by = find_muc4_dir(muc4_dir)
    if folder is not None:
        reason = {"explicit": "--muc4-dir", "environment": f"${MUC4_DIR_ENV}",
                  "default": f"found there: no --docs, --muc4-dir or ${MUC4_DIR_ENV} given; "
                             "--docs FOLDER reads your own documents"}[found_by]
        return CorpusChoice("muc4", folder, reason)
    return CorpusChoice("demo", None, f"no --docs or --muc4-dir given, ${MUC4_DIR_ENV} unset "
                                      "and no ../shared/data/muc4: --docs FOLDER reads your "
                                      "own documents")


def load_corpus(
    muc4_dir: str | Path | None = None, docs_path: str | Path | None = None,
    on_error: str = "raise", *, demo: bool = False, split: str = "user",
    encoding: str | None = None, max_doc_chars: int | None = None,
    keep_non_english: bool = False,
) -> Corpus:
    """The corpus a run should use.

    ``demo`` forces the embedded demo corpus; else ``docs_path`` (a folder of .txt files or a
    JSONL file, read in ``encoding`` (None: each file's own, detected) as split ``split``,
    ``on_error``, ``max_doc_chars`` (None: the reader's default limit) and
    ``keep_non_english`` as ``aesi_lib.corpus.plain.read_user_corpus`` takes them) wins; else
    the
    MUC-4 folder (``muc4_dir``, ``$AESI_MUC4_DIR`` or ``../shared/data/muc4``); else the
    embedded demo (:func:`choose_corpus`); :attr:`Corpus.origin` says which and why.
    """
    choice = choose_corpus(muc4_dir, docs_path, demo)
    if choice.name == "user":
        from aesi_lib.corpus.plain import read_user_corpus

        reading = {} if max_doc_chars is None else {"max_chars": max_doc_chars}
        read = read_user_corpus(docs_path, split=split, on_error=on_error, encoding=encoding,
                                keep_non_english=keep_non_english, **reading)
        return Corpus("user", read.documents, None, None, "", choice, read.left_out)
    if choice.name == "muc4":
        from aesi_lib.corpus.muc4 import load_muc4_corpus

        splits = {s.name: s for s in load_muc4_corpus(choice.path)}
        docs = [d for s in splits.values() for d in s.documents]
        eval_keys = [k for name in ("tst1", "tst2") for k in (splits[name].keys or [])]
        return Corpus("muc4", docs, eval_keys or None, splits["dev"].keys, "TST1+TST2",
                      choice)
    from aesi_lib.corpus.demo import load_demo_corpus

    embedded = load_demo_corpus()
    return Corpus("demo", embedded.documents, embedded.keys, None, "demo", choice)


#: The corpus options a project records (``project.json``'s ``corpus``) and a run reads back.
RECORDED_OPTIONS = ("muc4_dir", "docs_path", "demo", "encoding", "skip_bad", "max_doc_chars",
                    "keep_non_english")


def recorded_corpus(recorded: Mapping[str, Any] | None, project_dir: str | Path
                    ) -> dict[str, Any]:
    """The corpus options a scheduled run takes from its project: those the project's last
    ``aesi run`` recorded (``project.json``'s ``corpus``), so that a deployment reads the
    user's own corpus without naming it twice.

    Parameters
    ----------
    recorded : mapping or None
        The project's recorded corpus (:data:`RECORDED_OPTIONS`); None when it has none.
    project_dir : str or Path
        The project folder, for the message.

    Raises
    ------
    InputError
        Naming the project when it records no corpus, or only one chosen by default (the
        demo, because nothing was given): a schedule should never run a corpus the user did
        not choose.
    """
    if not recorded or not (recorded.get("docs_path") or recorded.get("muc4_dir")
                            or recorded.get("demo")):
        raise InputError(project_dir, "no corpus recorded for scheduled runs: run `aesi run "
                         "--docs FOLDER` (or --muc4-dir) once with this project, or give the "
                         "deployment a docs_path")
    return {k: recorded[k] for k in RECORDED_OPTIONS if k in recorded}
