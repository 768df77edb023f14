"""The export format a system's output is scored from (evaluation.md, "Export format")."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from aesi_lib.errors import InputError

#: Columns of the export format (evaluation.md, "Export format").
ASSIGNMENT_COLUMNS: tuple[str, ...] = (
    "doc_id",
    "sent_id",
    "entity_id",
    "head",
    "mention",
    "predicate",
    "dep",
    "template",
    "slot",
)
#: The columns the scorer reads.
SCORED_COLUMNS: tuple[str, ...] = ("doc_id", "head", "template", "slot")


def read_assignments(path: str | Path) -> pd.DataFrame:
    """Read an exported ``assignments.csv`` / ``.parquet`` (evaluation.md, "Export format").

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InputError
        When the file cannot be read or lacks a scored column.
    """
    path = Path(path)
    try:
        if path.suffix == ".parquet":
            df = pd.read_parquet(path)
        else:
            df = pd.read_csv(path, dtype={"doc_id": str, "head": str}, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise InputError(path, f"cannot read assignments: {exc}") from exc
    check_columns(df, path)
    return df


def check_columns(df: pd.DataFrame, where: str | Path = "assignments") -> None:
    """Raise ``InputError`` naming ``where`` when a column the scorer reads is missing."""
    missing = [c for c in SCORED_COLUMNS if c not in df.columns]
    if missing:
        raise InputError(where, f"missing column(s) {missing}; expected {ASSIGNMENT_COLUMNS}")


def role_shape(assignments: pd.DataFrame) -> tuple[int, int]:
    """``(n_templates, n_slots)`` of a system output: one more than the largest index.

    Parameters
    ----------
    assignments : pandas.DataFrame

    Returns
    -------
    (int, int)
    """
    check_columns(assignments)
    if len(assignments) == 0:
        return 0, 0
    t = pd.to_numeric(assignments["template"]).to_numpy()
    s = pd.to_numeric(assignments["slot"]).to_numpy()
    if (t < 0).any() or (s < 0).any():
        raise InputError("assignments", "template and slot must be non-negative integers")
    return int(t.max()) + 1, int(s.max()) + 1
