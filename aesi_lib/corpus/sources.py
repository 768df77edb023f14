"""Choosing what a run reads: the MUC-4 corpus, a user's documents, or the embedded demo."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aesi_lib.corpus.types import Document, KeyTemplate


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
    left_out: list[dict[str, str | int]] = field(default_factory=list)

    @property
    def splits(self) -> list[str]:
        return sorted({d.split for d in self.documents})


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
    embedded demo.
    """
    if not demo and docs_path is not None:
        from aesi_lib.corpus.plain import read_user_corpus

        reading = {} if max_doc_chars is None else {"max_chars": max_doc_chars}
        read = read_user_corpus(docs_path, split=split, on_error=on_error, encoding=encoding,
                                keep_non_english=keep_non_english, **reading)
        return Corpus("user", read.documents, None, None, "", read.left_out)
    from aesi_lib.corpus.muc4 import load_muc4_corpus, resolve_muc4_dir

    folder = None if demo else resolve_muc4_dir(muc4_dir)
    if folder is not None:
        splits = {s.name: s for s in load_muc4_corpus(folder)}
        docs = [d for s in splits.values() for d in s.documents]
        eval_keys = [k for name in ("tst1", "tst2") for k in (splits[name].keys or [])]
        return Corpus("muc4", docs, eval_keys or None, splits["dev"].keys, "TST1+TST2")
    from aesi_lib.corpus.demo import load_demo_corpus

    embedded = load_demo_corpus()
    return Corpus("demo", embedded.documents, embedded.keys, None, "demo")
