"""Reading a run for the report.

Owns :func:`load_run` (``assignments.parquet`` / ``.csv`` plus ``results.json`` of a run
folder, with :class:`~aesi_lib.errors.InputError` naming what is wrong), :func:`prepare_assignments`
(the clean copy of the export columns every other step reads), :func:`role_grid` (the
templates × slots grid, configured empty clusters included) and the column names they use,
:data:`TEXT_COLUMNS` and :data:`ROLE`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.errors import InputError
from aesi_lib.evaluate import ASSIGNMENT_COLUMNS, read_assignments
from aesi_lib.report._util import _as_int, _get

#: Text columns of the export; absent ones are read as empty strings.
TEXT_COLUMNS: tuple[str, ...] = ("doc_id", "head", "mention", "predicate", "dep")
# A list, not a tuple: pandas reads a tuple passed to groupby as one key.
ROLE = ["template", "slot"]


def load_run(out_dir: str | Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Read a run folder: ``assignments.parquet`` (else ``assignments.csv``) and
    ``results.json``.

    Parameters
    ----------
    out_dir : str or Path
        The folder a run wrote (``OUT``).

    Returns
    -------
    (pandas.DataFrame, dict)
        The assignments (export columns) and the parsed results.

    Raises
    ------
    InputError
        Naming the folder or file that is missing, unreadable, malformed or lacks a column.
    """
    out = Path(out_dir)
    if not out.is_dir():
        raise InputError(out, "run folder not found")
    # Parquet keeps the dtypes; a folder may hold either export or both.
    candidates = [out / "assignments.parquet", out / "assignments.csv"]
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        raise InputError(candidates[1], "assignments file not found (nor assignments.parquet)")
    assignments = read_assignments(path)
    missing = [c for c in ASSIGNMENT_COLUMNS if c not in assignments.columns]
    if missing:
        raise InputError(path, f"missing column(s) {missing}; expected {ASSIGNMENT_COLUMNS}")
    prepare_assignments(assignments, where=path)  # raises on bad template/slot values
    return assignments, _read_results(out / "results.json")


def _read_results(path: Path) -> dict[str, Any]:
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(path, "results file not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read results: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc}") from exc
    if not isinstance(results, dict):
        raise InputError(path, "expected a JSON object at the top level")
    return results


def prepare_assignments(
    assignments: pd.DataFrame, where: str | Path = "assignments"
) -> pd.DataFrame:
    """A clean copy of the export columns the report reads.

    Parameters
    ----------
    assignments : pandas.DataFrame
        Needs ``template`` and ``slot``; the text columns and ``sent_id`` / ``entity_id`` are
        optional (empty string / -1 when absent).
    where : str or Path
        Named in errors.

    Returns
    -------
    pandas.DataFrame
        ``template`` and ``slot`` as int64; text columns as strings with missing values empty
        and surrounding blanks removed; ``head_lc``, the lowercased head (the scorer's guess).

    Raises
    ------
    InputError
        When ``template`` or ``slot`` is missing or not a non-negative integer.
    """
    missing = [c for c in ROLE if c not in assignments.columns]
    if missing:
        raise InputError(where, f"missing column(s) {missing}; expected {ASSIGNMENT_COLUMNS}")
    n = len(assignments)
    out = pd.DataFrame(index=pd.RangeIndex(n))
    for col in ROLE:
        vals = pd.to_numeric(assignments[col], errors="coerce").to_numpy(dtype=float)
        if n and (np.isnan(vals).any() or (vals < 0).any() or (vals != np.floor(vals)).any()):
            raise InputError(where, f"column {col!r} must hold non-negative integers")
        out[col] = vals.astype(np.int64)
    for col in ("sent_id", "entity_id"):
        vals = pd.to_numeric(assignments[col], errors="coerce") if col in assignments else None
        out[col] = -1 if vals is None else vals.fillna(-1).to_numpy(dtype=np.int64)
    for col in TEXT_COLUMNS:
        if col in assignments.columns:
            out[col] = assignments[col].astype("string").fillna("").str.strip().to_numpy()
        else:
            out[col] = ""
        out[col] = out[col].astype("string")
    out["head_lc"] = out["head"].str.lower()
    return out


def role_grid(prepared: pd.DataFrame, results: Mapping[str, Any] | None = None) -> tuple[int, int]:
    """``(n_templates, n_slots)``: one more than the largest index, or the configured numbers
    when ``results["config"]["model"]`` names more (so empty clusters are reported too).

    Parameters
    ----------
    prepared : pandas.DataFrame
        Output of :func:`prepare_assignments`.
    results : mapping, optional

    Returns
    -------
    (int, int)
    """
    n_t = int(prepared["template"].max()) + 1 if len(prepared) else 0
    n_s = int(prepared["slot"].max()) + 1 if len(prepared) else 0
    model = _get(results, "config", "model")
    if isinstance(model, Mapping):
        n_t = max(n_t, _as_int(model.get("n_templates"), 0))
        n_s = max(n_s, _as_int(model.get("n_slots"), 0))
    return n_t, n_s
