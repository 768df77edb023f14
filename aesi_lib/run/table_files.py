"""The tables the cached steps of a run keep as Parquet files: the entity table (with its
coreference chains), the chain rows and the head-word PMI.

Each is written whole to a temporary file beside its place and renamed, so a file that exists
is complete: the steps name their files after their cache keys and reuse a file that exists
(``tasks.keys.file_backed_key``). They are read with ``pandas.read_parquet``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd


def save_table(path: str | Path, frame: pd.DataFrame) -> None:
    """Write ``frame`` (without its index) to the Parquet file ``path``, atomically; its folder
    is created."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    frame.to_parquet(tmp, index=False)
    os.replace(tmp, path)
