"""Results tables of experiment pages, written from the rows an experiment recorded.

Two kinds of record sit beside a page, as CSV files:

* **per-seed rows**, one per configuration and seed, as ``aesi sweep`` writes them
  (``results.csv``: a ``configuration`` and a ``seed`` column and the score columns of
  :data:`aesi_lib.run.experiments.SCORE_COLUMNS`). The table is their mean ± sample standard
  deviation over seeds, by the same function that writes a sweep's own ``results.md``;
* **a recorded table**, for an experiment whose per-seed rows were not kept: the table as it
  was measured, one CSV row per table row, the header as the CSV's header. It is shown as it
  stands.

Either way the region also names the rows file, the commit the experiment ran at and the
command that measures it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from aesi_lib.errors import InputError
from aesi_lib.markdown import markdown_table
from aesi_lib.run.experiments import MARGIN_COLUMN, SCORE_COLUMNS, results_table, summarize

PER_SEED_COLUMNS = ("configuration", "seed")


def read_rows(path: Path) -> pd.DataFrame:
    """The rows of a CSV record, every cell as text (a recorded table keeps its figures as
    they were printed).

    Raises
    ------
    InputError
        When the file is missing, empty or not CSV.
    """
    if not path.is_file():
        raise InputError(path, "no such rows file")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(path, f"not a CSV table of rows: {exc}") from exc
    if frame.empty:
        raise InputError(path, "has no rows")
    return frame


def per_seed_table(rows: pd.DataFrame) -> str:
    """The mean ± std table of per-seed rows (``aesi_lib.run.experiments.results_table``)."""
    numeric = rows.copy()
    for column in ("seed", *SCORE_COLUMNS, MARGIN_COLUMN):
        if column in numeric.columns:
            numeric[column] = pd.to_numeric(numeric[column].replace("", "nan"))
    return results_table(summarize(numeric))


def recorded_table(rows: pd.DataFrame) -> str:
    """A recorded table as it stands: the CSV's header and cells (a ``|`` in a cell is
    escaped so that it stays in its cell)."""
    return markdown_table(list(rows.columns), rows.itertuples(index=False),
                          cell=lambda v: str(v).replace("|", "\\|"))


def _provenance(arguments: Mapping[str, str], rows_name: str, rows: pd.DataFrame,
                per_seed: bool) -> str:
    commit = arguments.get("commit", "")
    if "commit" in rows.columns:
        commits = sorted({c for c in rows["commit"] if c})
        commit = ", ".join(commits) or commit
    parts = []
    if per_seed:
        n_conf = rows["configuration"].nunique()
        n_seed = rows["seed"].nunique()
        configurations = "1 configuration" if n_conf == 1 else f"{n_conf} configurations"
        parts.append(f"Mean ± sample standard deviation over {n_seed} seeds of the "
                     f"{len(rows)} rows ({configurations}) in [`{rows_name}`]({rows_name}).")
    elif arguments.get("per_seed"):
        per_seed_name = arguments["per_seed"]
        parts.append(f"The table as it was measured ([`{rows_name}`]({rows_name})), from the "
                     f"per-seed rows in [`{per_seed_name}`]({per_seed_name}).")
    else:
        parts.append(f"The table as it was measured ([`{rows_name}`]({rows_name})); its "
                     "per-seed rows were not kept.")
    if commit:
        parts.append(f"Measured at commit `{commit}`.")
    if arguments.get("command"):
        parts.append(f"Measured by `{arguments['command']}`.")
    return " ".join(parts)


def render_results(arguments: Mapping[str, str], folder: Path) -> str:
    """A results region: ``rows=FILE.csv`` (per-seed rows or a recorded table; which is told
    by the columns), with optional ``commit=``, ``command=`` and, for a recorded table made
    from rows kept beside it, ``per_seed=FILE.csv``.

    Raises
    ------
    InputError
        Without ``rows=``, or when the rows file cannot be read.
    """
    if "rows" not in arguments:
        raise InputError(folder, "a results region needs rows=FILE.csv")
    rows_name = arguments["rows"]
    rows = read_rows(folder / rows_name)
    per_seed = all(c in rows.columns for c in PER_SEED_COLUMNS)
    table = per_seed_table(rows) if per_seed else recorded_table(rows)
    return f"{table}\n{_provenance(arguments, rows_name, rows, per_seed)}\n"
