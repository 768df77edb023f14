"""The tables the cached steps of a run keep as Parquet files: the entity table (with its
coreference chains), the chain rows and the head-word PMI.

Each is written whole to a temporary file beside its place and renamed, so a file that exists
is complete: the steps name their files after their cache keys and reuse a file that exists
(``aesi_lib.steps.declaration.Step.cache_key``). They are read with ``pandas.read_parquet``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from aesi_lib.files import replacing


def save_table(path: str | Path, frame: pd.DataFrame) -> None:
    """Write ``frame`` (without its index) to the Parquet file ``path``, atomically; its folder
    is created."""
    with replacing(path) as tmp:
        frame.to_parquet(tmp, index=False)
