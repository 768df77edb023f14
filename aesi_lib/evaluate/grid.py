"""The score grid of one system output: {test-mapped, dev-mapped} × {lenient, strict}, with
the bounds of each cell and the extraction's recall ceilings.

This is the one place that decides what a run reports (evaluation.md, "What to report"): the
pipeline's ``results.json``, the sweep's rows, the report's score table and ``aesi evaluate``
all read a :class:`ScoreGrid`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.evaluate.assignments import role_shape
from aesi_lib.evaluate.bounds import recall_ceiling, result_bounds
from aesi_lib.evaluate.matching import MATCHERS, MatcherName
from aesi_lib.evaluate.scoring import MAPPING_MODES, EvaluationResult, score_split
from aesi_lib.evaluate.split import KeyGold, SplitIndex


@dataclass
class GridCell:
    """One (mapping mode, matcher) cell: the scores and their bounds
    (:func:`aesi_lib.evaluate.bounds.result_bounds`)."""

    result: EvaluationResult
    bounds: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored under ``"<mode>/<matcher>"`` in ``results.json``."""
        return {**self.result.to_dict(), **self.bounds}


@dataclass
class ScoreGrid:
    """Scores of one output: cells by ``(mode, matcher)`` and recall ceilings by matcher."""

    cells: dict[tuple[str, str], GridCell]
    ceilings: dict[str, float]

    def cell(self, mode: str, matcher: str = "lenient") -> GridCell:
        return self.cells[(mode, matcher)]

    def to_dict(self) -> dict[str, Any]:
        """``{"<mode>/<matcher>": cell, ..., "recall_ceiling/<matcher>": float}``, the form of
        ``results.json``'s ``scores`` (matcher-major order, test-mapped first)."""
        out: dict[str, Any] = {}
        for matcher in dict.fromkeys(m for _, m in self.cells):
            for (mode, m), cell in self.cells.items():
                if m == matcher:
                    out[f"{mode}/{matcher}"] = cell.to_dict()
            if matcher in self.ceilings:
                out[f"recall_ceiling/{matcher}"] = self.ceilings[matcher]
        return out


def score_grid(
    assignments: pd.DataFrame,
    eval_keys: Sequence[KeyTemplate] | KeyGold,
    map_keys: Sequence[KeyTemplate] | KeyGold | None = None,
    *,
    matchers: Sequence[MatcherName] = MATCHERS,
    modes: Sequence[str] | None = None,
    bounds: bool = True,
) -> ScoreGrid:
    """Score ``assignments`` on ``eval_keys`` in every requested cell.

    Parameters
    ----------
    assignments : pandas.DataFrame
        Export columns.
    eval_keys : sequence of KeyTemplate, or KeyGold
        Keys of the evaluated split.
    map_keys : sequence of KeyTemplate, or KeyGold, optional
        Keys the dev-mapped mapping is learned on (DEV); without them only test-mapped.
    matchers : sequence of {"lenient", "strict"}
    modes : sequence of {"test-mapped", "dev-mapped"}, optional
        Default: test-mapped, and dev-mapped when ``map_keys`` is given.
    bounds : bool
        Also compute each cell's bounds and the recall ceilings (they cost about as much as
        the scores); without them ``GridCell.bounds`` is empty and ``ceilings`` too.

    Returns
    -------
    ScoreGrid
    """
    if modes is None:
        modes = [m for m in MAPPING_MODES if m == "test-mapped" or map_keys is not None]
    unknown = [m for m in modes if m not in MAPPING_MODES]
    if unknown:
        raise ValueError(f"unknown mapping mode {unknown[0]!r}; expected one of {MAPPING_MODES}")
    if "dev-mapped" in modes and map_keys is None:
        raise ValueError("dev-mapped needs map_keys (the DEV keys)")
    eval_gold = KeyGold.of(eval_keys)
    map_gold = KeyGold.of(map_keys) if map_keys is not None else None
    shape = role_shape(assignments)
    cells: dict[tuple[str, str], GridCell] = {}
    ceilings: dict[str, float] = {}
    for matcher in matchers:
        split = SplitIndex(assignments, eval_gold, matcher, shape)
        for mode in modes:
            if mode == "test-mapped":
                mapping = split.learn_mapping()
            else:
                assert map_gold is not None
                mapping = SplitIndex(assignments, map_gold, matcher, shape).learn_mapping()
            result = score_split(split, mapping, mode)
            cell_bounds = result_bounds(assignments, eval_gold, result, split) if bounds else {}
            cells[(mode, matcher)] = GridCell(result, cell_bounds)
        if bounds:
            ceilings[matcher] = recall_ceiling(assignments, eval_gold, matcher, split)
    return ScoreGrid(cells, ceilings)
