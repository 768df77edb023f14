"""The embedded demo corpus: 40 invented MUC-4-style messages with a hand-made answer key.

The files live in ``aesi_lib/corpus/demo_data/`` (package data; see its README.md):
``demo-muc4`` (messages in MUC-4 text format) and ``demo-key.muc4`` (answer key in MUC-4 key
format). They let the pipeline, the scorer and the tests run without the MUC-4 corpus.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from aesi_lib.corpus.muc4 import Muc4Split, read_muc4_messages
from aesi_lib.corpus.muc4_keys import read_muc4_keys

DEMO_SPLIT = "demo"
DEMO_TEXT_FILE = "demo-muc4"
DEMO_KEY_FILE = "demo-key.muc4"


def demo_data_dir() -> Path:
    """The folder that holds the demo files (inside the installed package)."""
    return Path(str(resources.files("aesi_lib.corpus") / "demo_data"))


def load_demo_corpus() -> Muc4Split:
    """Read the demo messages and their answer key.

    Returns
    -------
    Muc4Split
        ``name`` is ``"demo"``; ``documents`` the 40 messages ``DEMO-0001`` ... ``DEMO-0040``
        (``split="demo"``); ``keys`` the 43 key blocks.
    """
    folder = demo_data_dir()
    return Muc4Split(
        name=DEMO_SPLIT,
        documents=read_muc4_messages(folder / DEMO_TEXT_FILE, DEMO_SPLIT),
        keys=read_muc4_keys(folder / DEMO_KEY_FILE),
    )
