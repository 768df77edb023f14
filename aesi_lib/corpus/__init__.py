"""Readers: MUC-4 messages and answer keys, plain document folders / JSONL, the demo corpus."""

from aesi_lib.corpus.demo import load_demo_corpus
from aesi_lib.corpus.muc4 import (
    MUC4_SPLITS,
    Muc4Split,
    load_muc4_corpus,
    load_muc4_split,
    read_muc4_messages,
    resolve_muc4_dir,
)
from aesi_lib.corpus.muc4_keys import read_muc4_keys
from aesi_lib.corpus.plain import read_plain_documents
from aesi_lib.corpus.types import Document, KeyFiller, KeyTemplate

__all__ = [
    "MUC4_SPLITS",
    "Document",
    "KeyFiller",
    "KeyTemplate",
    "Muc4Split",
    "load_demo_corpus",
    "load_muc4_corpus",
    "load_muc4_split",
    "read_muc4_keys",
    "read_muc4_messages",
    "read_plain_documents",
    "resolve_muc4_dir",
]
