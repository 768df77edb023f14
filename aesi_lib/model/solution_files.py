"""Saving and loading a solution: its labels as one ``.npz`` file, its summary as JSON.

The labels file holds, in the row order of the entity table that was solved,

* ``template`` and ``slot``: arrays of shape (E,), int, each mention's template and slot;
* ``template_members`` (only with consensus templates, ``model.consensus_members`` > 1): an
  array of shape (R, E), int, the R members' own template cuts, from which a later update
  warm-starts each member (``aesi_lib.model.consensus``);
* ``role_table`` (only in the labels of an update that kept the schema): an array of shape
  (|T|, |S|), int, the role slot of each (template, cut slot) pair that the export of the
  solution it kept used (``aesi_lib.run.pipeline.role_table``), so that its export gives
  every old mention the role slot it had.

The summary is :meth:`~aesi_lib.model.induction.InductionResult.to_dict` without the labels
(history, timings, eigen residuals, convergence, configuration): what ``results.json`` and a
sweep's rows report of a solve.

The solve writes both, the ids step writes labels renumbered to a previous solution's ids
(``aesi_lib.model.carry``), and the export, slot filling and the next update read the labels.
Files are written atomically; a damaged file raises ``InputError`` naming it.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from aesi_lib.errors import InputError
from aesi_lib.files import replacing
from aesi_lib.model.induction import InductionResult

_MEMBERS = "template_members"
_ROLES = "role_table"


@dataclass(frozen=True)
class SolutionLabels:
    """The arrays of a labels file.

    Attributes
    ----------
    template, slot : ndarray of shape (E,), int
    template_members : ndarray of shape (R, E), int, optional
        The consensus members' template cuts; None when the solution had no members.
    role_table : ndarray of shape (|T|, |S|), int, optional
        The role slots its export uses, kept from the solution an update placed into; None:
        the export computes them from these labels.
    """

    template: np.ndarray
    slot: np.ndarray
    template_members: np.ndarray | None = None
    role_table: np.ndarray | None = None

    @classmethod
    def of(cls, result: InductionResult) -> SolutionLabels:
        """The labels of a solve (``aesi_lib.model.induction.induce``)."""
        return cls(result.template_labels, result.slot_labels, result.template_members)


def save_labels(path: str | Path, labels: SolutionLabels) -> None:
    """Write ``labels`` to the ``.npz`` file ``path`` (atomically; folders are created)."""
    arrays = {"template": labels.template, "slot": labels.slot}
    if labels.template_members is not None:
        arrays[_MEMBERS] = labels.template_members
    if labels.role_table is not None:
        arrays[_ROLES] = labels.role_table
    _write_atomically(Path(path), lambda fh: np.savez(fh, **arrays))


def load_labels(path: str | Path) -> SolutionLabels:
    """Read what :func:`save_labels` wrote.

    Raises
    ------
    InputError
        The file is missing, damaged or lacks the ``template`` or ``slot`` array.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            members = z[_MEMBERS] if _MEMBERS in z.files else None
            roles = z[_ROLES] if _ROLES in z.files else None
            return SolutionLabels(z["template"], z["slot"], members, roles)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(path, f"damaged labels file ({exc}); delete it to solve again"
                         ) from exc


def save_summary(path: str | Path, result: InductionResult) -> None:
    """Write the summary of ``result`` (its :meth:`~InductionResult.to_dict` without the
    labels) to the JSON file ``path`` (atomically; folders are created)."""
    summary = result.to_dict()
    summary.pop("template_labels")
    summary.pop("slot_labels")
    text = json.dumps(summary, indent=1, default=str)
    _write_atomically(Path(path), lambda fh: fh.write(text.encode()))


def save_placement_summary(path: str | Path, counts: dict[str, int], seconds: float) -> None:
    """Write the summary of an update that placed its new mentions into the existing schema
    instead of solving (``aesi_lib.run.pipeline.place_new_mentions``): its counts under
    ``placement`` and its time under ``timings``, as JSON at ``path`` (atomically)."""
    text = json.dumps({"placement": counts, "timings": {"total": seconds}}, indent=1)
    _write_atomically(Path(path), lambda fh: fh.write(text.encode()))


def load_summary(path: str | Path) -> dict[str, Any]:
    """Read what :func:`save_summary` wrote.

    Raises
    ------
    InputError
        The file is missing or not a JSON object.
    """
    try:
        summary = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise InputError(path, f"unreadable solve summary ({exc}); delete it and its labels "
                         "file to solve again") from exc
    if not isinstance(summary, dict):
        raise InputError(path, "a solve summary must be a JSON object")
    return summary


def _write_atomically(path: Path, write: Callable[[BinaryIO], Any]) -> None:
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        write(fh)
