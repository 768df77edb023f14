"""The labels that moved since the project's last export (``aesi_lib.run.export_changes``):
each export is kept in the project, named after its content, for the next run to compare
with."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from aesi_lib.files import replacing
from aesi_lib.fingerprint import file_sha256
from aesi_lib.run.export_changes import describe_changes, export_changes, unchanged_export
from aesi_lib.steps.declaration import step
from aesi_lib.steps.logs import step_logger

#: How many exports the project keeps (``<project>/exports``): the newest, and the ones
#: before it that another output folder's run may still name as its last.
KEPT_EXPORTS = 3


@step("keep-export")
def keep_export_step(assignments_path: str, work_dir: str) -> str:
    """A copy of the export ``assignments_path`` in ``<work_dir>/exports``, named after its
    content; the :data:`KEPT_EXPORTS` newest copies stay."""
    folder = Path(work_dir) / "exports"
    kept = folder / f"{file_sha256(assignments_path)[:24]}.parquet"
    if not kept.is_file():
        with replacing(kept) as partial:
            shutil.copyfile(assignments_path, partial)
    kept.touch()
    copies = sorted(folder.glob("*.parquet"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in copies[KEPT_EXPORTS:]:
        old.unlink(missing_ok=True)
    return str(kept)


@step("label-changes")
def label_changes_step(previous_path: str, assignments_path: str, kept_path: str
                       ) -> dict[str, Any]:
    """How many labels of the export ``previous_path`` the export ``assignments_path`` kept
    and moved (``export_changes``), logged in one line. When its kept copy ``kept_path``
    (:func:`keep_export_step`, named after its content) is ``previous_path`` itself, the two
    are the same file and only its rows are counted."""
    if Path(previous_path) == Path(kept_path):
        changes = unchanged_export(pq.ParquetFile(kept_path).metadata.num_rows)
    else:
        changes = export_changes(pd.read_parquet(previous_path),
                                 pd.read_parquet(assignments_path))
    step_logger().info(describe_changes(changes))
    return changes
