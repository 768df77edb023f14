"""Mapping and scores of a run against answer keys.

Owns the column sets of the score tables (:data:`SCORE_COLUMNS`, :data:`PER_SLOT_COLUMNS`,
:data:`MAPPING_COLUMNS`), the matcher the mapping is shown for (:data:`MAPPING_MATCHER`),
:class:`ScoreTables`, :func:`scores_from_results` (scores a run stored in ``results.json``),
:func:`mapping_rows` (which incident type chose which learned template and which pairs
survived pruning), :func:`choice_rows` (how close each type's choice was to its runner-up),
:func:`compute_mappings`, :func:`compute_choices` and :func:`compute_scores` (the same computed
from the keys with the score grid, :func:`aesi_lib.evaluate.score_grid`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.evaluate import EVENT_TYPES, MATCHERS, ScoreGrid, SplitIndex, score_grid
from aesi_lib.evaluate.mapping import type_mappings
from aesi_lib.report._util import _get, _is_number

#: The matcher whose mapping the schema sections show (evaluation.md's default).
MAPPING_MATCHER = "lenient"

#: Columns of the score tables built by :func:`scores_from_results` / :func:`compute_scores`.
SCORE_COLUMNS = (
    "mode", "matcher", "precision", "recall", "f1", "tp", "fp", "fn",
    "fp_share", "template_recall_ceiling", "relevance_oracle_f1",
)
#: Where a gold slot's FN are (``aesi_lib.evaluate.misses``); empty for results stored before.
MISS_COLUMNS = ("missed_other_slot", "most_in_other_slots", "missed_other_template",
                "missed_no_mention")
PER_SLOT_COLUMNS = (
    "mode", "matcher", "gold_slot", "precision", "recall", "f1", "tp", "fp", "fn", *MISS_COLUMNS,
)
MAPPING_COLUMNS = ("mode", "type", "template", "slot", "gold_slot", "kept")
CHOICE_COLUMNS = ("mode", "type", "template", "best_sum", "runner_up", "runner_up_sum", "margin")


def mapping_rows(
    assignments: pd.DataFrame,
    keys: Sequence[KeyTemplate],
    final_mapping: Sequence[tuple[int, int, str]],
    mode: str,
) -> pd.DataFrame:
    """The mapping of learned templates to incident types behind a mapping M.

    :func:`aesi_lib.evaluate.evaluate` returns M as (template, slot, gold_slot) triples, with
    the types that chose them lost in the union (evaluation.md, step 3). This recomputes steps
    1-2 on the same keys and marks which chosen pairs survived the pruning (step 4).

    Parameters
    ----------
    assignments : pandas.DataFrame
        Export columns.
    keys : sequence of KeyTemplate
        The keys M was learned on (evaluated split for ``test-mapped``, DEV for ``dev-mapped``).
    final_mapping : sequence of (template, slot, gold_slot)
        M as returned in ``EvaluationResult.mapping``.
    mode : str
        Label stored in the ``mode`` column.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`MAPPING_COLUMNS`; one row per (type, gold slot) the type's chosen
        template maps, ``kept`` False when the pair was pruned.
    """
    split = SplitIndex(assignments, keys, MAPPING_MATCHER)
    choices = type_mappings({typ: split.type_f1(typ) for typ in EVENT_TYPES})
    kept = {(int(t), int(s), str(g)) for t, s, g in final_mapping}
    rows = [
        (mode, typ, t, s, g, (t, s, g) in kept)
        for typ, (t, phi) in choices.items()
        for g, s in phi.items()
    ]
    return pd.DataFrame(rows, columns=list(MAPPING_COLUMNS))


def choice_rows(assignments: pd.DataFrame, keys: Sequence[KeyTemplate], mode: str
                ) -> pd.DataFrame:
    """How each incident type chose its template (evaluation.md, step 2) on ``keys``: the
    kept template and the runner-up, with their best sums and the margin between them
    (:func:`aesi_lib.evaluate.mapping.type_choices`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CHOICE_COLUMNS`, one row per type that has a template.
    """
    split = SplitIndex(assignments, keys, MAPPING_MATCHER)
    rows = [(mode, typ, c.template, c.best_sum, c.runner_up, c.runner_up_sum, c.margin)
            for typ, c in split.type_choices().items()]
    return pd.DataFrame(rows, columns=list(CHOICE_COLUMNS))


@dataclass
class ScoreTables:
    """Diagnostics of a run: overall and per-slot scores, recall ceilings, mapping, and how
    close each type's choice of template was (empty when read from ``results.json``)."""

    scores: pd.DataFrame  # SCORE_COLUMNS
    per_slot: pd.DataFrame  # PER_SLOT_COLUMNS
    ceilings: dict[str, float]  # matcher -> recall ceiling
    mapping: pd.DataFrame  # MAPPING_COLUMNS
    source: str  # where the scores come from, for the report
    choices: pd.DataFrame = field(default_factory=lambda: _empty(CHOICE_COLUMNS))


def _empty(columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(columns=list(columns))


def _score_row(mode: str, matcher: str, d: Mapping[str, Any]) -> dict[str, Any]:
    """One row of SCORE_COLUMNS from a stored score entry (scores plus ``result_bounds``)."""
    row = {"mode": mode, "matcher": matcher}
    row.update({k: d.get(k) for k in ("precision", "recall", "f1", "tp", "fp", "fn")})
    row["fp_share"] = d.get("fp_share_irrelevant")
    row["template_recall_ceiling"] = d.get("template_recall_ceiling")
    oracle = d.get("relevance_oracle")
    row["relevance_oracle_f1"] = oracle.get("f1") if isinstance(oracle, Mapping) else None
    return row


def _slot_rows(mode: str, matcher: str, per_slot: Any, misses: Any = None
               ) -> list[dict[str, Any]]:
    """Rows of PER_SLOT_COLUMNS from a stored ``per_slot`` and, where stored, its ``misses``
    (``aesi_lib.evaluate.misses``; None in results stored before them)."""
    if not isinstance(per_slot, Mapping):
        return []
    misses = misses if isinstance(misses, Mapping) else {}
    return [
        {
            "mode": mode,
            "matcher": matcher,
            "gold_slot": g,
            **{k: d.get(k) for k in ("precision", "recall", "f1", "tp", "fp", "fn")},
            **_miss_columns(misses.get(g)),
        }
        for g, d in per_slot.items()
        if isinstance(d, Mapping)
    ]


def _miss_columns(misses: Any) -> dict[str, Any]:
    if not isinstance(misses, Mapping):
        return dict.fromkeys(MISS_COLUMNS)
    return {
        "missed_other_slot": misses.get("other_slot"),
        "most_in_other_slots": ", ".join(
            f"template {t} slot {s} ({n})" for t, s, n in misses.get("other_slot_roles") or []),
        "missed_other_template": misses.get("other_template"),
        "missed_no_mention": misses.get("no_mention"),
    }


def _sort_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows ordered test-mapped before dev-mapped, lenient before strict (stable otherwise)."""
    mode_rank = {"test-mapped": 0, "dev-mapped": 1}
    matcher_rank = {m: i for i, m in enumerate(MATCHERS)}
    key = frame["mode"].map(lambda m: mode_rank.get(m, 2)) * 10 + frame["matcher"].map(
        lambda m: matcher_rank.get(m, 9)
    )
    return frame.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)


def scores_from_results(results: Mapping[str, Any] | None) -> ScoreTables | None:
    """Read the scores a run stored in ``results["scores"]``.

    Parameters
    ----------
    results : mapping, optional
        ``{"scores": {"<mode>/<matcher>": {precision, recall, f1, tp, fp, fn, per_slot,
        mapping, fp_share_irrelevant}, "recall_ceiling/<matcher>": float}}``.

    Returns
    -------
    ScoreTables or None
        None when there are no scores. The mapping rows carry no type (``type`` is None) and
        come from the lenient entries.
    """
    stored = _get(results, "scores")
    if not isinstance(stored, Mapping):
        return None
    scores, per_slot, mapping, ceilings = [], [], [], {}
    for name, entry in stored.items():
        head, _, matcher = str(name).partition("/")
        if head == "recall_ceiling" and _is_number(entry):
            ceilings[matcher or MAPPING_MATCHER] = float(entry)
        elif isinstance(entry, Mapping) and "f1" in entry:
            matcher = matcher or str(entry.get("matcher", ""))
            scores.append(_score_row(head, matcher, entry))
            per_slot += _slot_rows(head, matcher, entry.get("per_slot"), entry.get("misses"))
            if matcher == MAPPING_MATCHER:
                mapping += [
                    (head, None, int(m["template"]), int(m["slot"]), str(m["gold_slot"]), True)
                    for m in entry.get("mapping") or []
                    if isinstance(m, Mapping) and {"template", "slot", "gold_slot"} <= m.keys()
                ]
    if not scores and not ceilings:
        return None
    return ScoreTables(
        _sort_runs(pd.DataFrame(scores, columns=list(SCORE_COLUMNS))),
        _sort_runs(pd.DataFrame(per_slot, columns=list(PER_SLOT_COLUMNS))),
        ceilings,
        pd.DataFrame(mapping, columns=list(MAPPING_COLUMNS)),
        "stored in results.json",
    )


def _grid_mapping_rows(
    assignments: pd.DataFrame,
    grid: ScoreGrid,
    eval_keys: Sequence[KeyTemplate],
    map_keys: Sequence[KeyTemplate] | None,
) -> pd.DataFrame:
    frames = [
        mapping_rows(assignments, eval_keys if mode == "test-mapped" else map_keys or [],
                     cell.result.mapping, mode)
        for (mode, matcher), cell in grid.cells.items()
        if matcher == MAPPING_MATCHER
    ]
    return pd.concat(frames, ignore_index=True) if frames else _empty(MAPPING_COLUMNS)


def compute_choices(
    assignments: pd.DataFrame,
    eval_keys: Sequence[KeyTemplate],
    map_keys: Sequence[KeyTemplate] | None = None,
) -> pd.DataFrame:
    """:func:`choice_rows` of the ``test-mapped`` mapping (on ``eval_keys``) and, with
    ``map_keys``, of the ``dev-mapped`` one."""
    frames = [choice_rows(assignments, eval_keys, "test-mapped")]
    if map_keys is not None:
        frames.append(choice_rows(assignments, map_keys, "dev-mapped"))
    return pd.concat(frames, ignore_index=True)


def compute_mappings(
    assignments: pd.DataFrame,
    eval_keys: Sequence[KeyTemplate],
    map_keys: Sequence[KeyTemplate] | None = None,
) -> pd.DataFrame:
    """The type-level mapping rows (:func:`mapping_rows`) behind the lenient ``test-mapped``
    (and, with ``map_keys``, ``dev-mapped``) mappings of the score grid."""
    grid = score_grid(assignments, eval_keys, map_keys, matchers=(MAPPING_MATCHER,),
                      bounds=False)
    return _grid_mapping_rows(assignments, grid, eval_keys, map_keys)


def compute_scores(
    assignments: pd.DataFrame,
    eval_keys: Sequence[KeyTemplate],
    map_keys: Sequence[KeyTemplate] | None = None,
) -> ScoreTables:
    """Scores for {test-mapped, dev-mapped (with ``map_keys``)} × {lenient, strict}, from the
    score grid (:func:`aesi_lib.evaluate.score_grid`), with the mapping rows.

    Parameters
    ----------
    assignments : pandas.DataFrame
    eval_keys : sequence of KeyTemplate
    map_keys : sequence of KeyTemplate, optional

    Returns
    -------
    ScoreTables
    """
    grid = score_grid(assignments, eval_keys, map_keys)
    scores, per_slot = [], []
    for (mode, matcher), cell in sorted(grid.cells.items(),
                                        key=lambda item: MATCHERS.index(item[0][1])):
        scores.append(_score_row(mode, matcher, cell.to_dict()))
        per_slot += _slot_rows(mode, matcher, cell.result.per_slot, cell.bounds.get("misses"))
    return ScoreTables(
        _sort_runs(pd.DataFrame(scores, columns=list(SCORE_COLUMNS))),
        _sort_runs(pd.DataFrame(per_slot, columns=list(PER_SLOT_COLUMNS))),
        grid.ceilings,
        _grid_mapping_rows(assignments, grid, eval_keys, map_keys),
        "computed from the given keys",
        compute_choices(assignments, eval_keys, map_keys),
    )
