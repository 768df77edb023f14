"""Result files of the cached steps: where they go and how they are written."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd


def resolved(work_dir: str) -> str:
    """The project folder a step writes into: part of its key, as its results are paths."""
    return str(Path(work_dir).resolve())


def write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    frame.to_parquet(tmp, index=False)
    os.replace(tmp, path)
