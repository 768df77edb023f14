"""Bounds on what a change to one part of the system could gain (diagnostics, not scores).

Each function answers "if this part were perfect, how far could the score go?" for one part:

* :func:`recall_ceiling`: the entity extraction (every mention feeds every gold slot);
* :func:`template_recall_ceiling`: the slots, given the templates the mapping chose (every
  mention of those templates feeds every gold slot);
* :func:`relevance_oracle`: document relevance (messages without a relevant incident produce
  nothing), with :func:`false_positive_share_irrelevant` as the share of false positives at stake.

:func:`result_bounds` stores them beside a result's scores, with where each gold slot's missed
entities are (:mod:`aesi_lib.evaluate.misses`).

They use the answer keys and are never a score of the system: an oracle figure says how much a
better part could be worth before one builds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import pandas as pd

from aesi_lib.evaluate.counting import Counts
from aesi_lib.evaluate.gold import GOLD_SLOTS
from aesi_lib.evaluate.mapping import MappingTriple
from aesi_lib.evaluate.matching import MatcherName
from aesi_lib.evaluate.misses import split_misses, unreached_kinds
from aesi_lib.evaluate.scoring import EvaluationResult, Keys
from aesi_lib.evaluate.split import SplitIndex


def recall_ceiling(
    assignments: pd.DataFrame, eval_keys: Keys, matcher: MatcherName = "lenient",
    split: SplitIndex | None = None,
) -> float:
    """Recall when every mention's head is sent to every gold slot of its message.

    No mapping can recall more, so this bounds what the entity extraction allows.

    Parameters
    ----------
    assignments : pandas.DataFrame
    eval_keys : sequence of KeyTemplate, or KeyGold
    matcher : {"lenient", "strict"}
    split : SplitIndex, optional
        ``assignments`` indexed against ``eval_keys`` with ``matcher``, when the caller has
        it; built here otherwise.

    Returns
    -------
    float
    """
    split = _checked_split(split, assignments, eval_keys, matcher)
    return _every_slot_recall(split, range(split.shape[0]))


def _checked_split(split: SplitIndex | None, assignments: pd.DataFrame, eval_keys: Keys,
                   matcher: str) -> SplitIndex:
    """``split`` when given (it must use ``matcher``), else a new one."""
    if split is None:
        return SplitIndex(assignments, eval_keys, cast(MatcherName, matcher))
    if split.matcher != matcher:
        raise ValueError(f"the split matches {split.matcher!r}, not {matcher!r}")
    return split


def template_recall_ceiling(
    assignments: pd.DataFrame,
    eval_keys: Keys,
    mapping: Iterable[MappingTriple],
    matcher: MatcherName = "lenient",
) -> float:
    """Recall when every mention of a template used by ``mapping`` feeds every gold slot.

    The mapping takes one template per event type (evaluation.md, step 2), so a gold entity
    whose mentions all lie in other templates is lost whatever the slots are. This bounds
    what better slots could recall with the same templates; the gap to
    :func:`recall_ceiling` is what the templates cost.

    Parameters
    ----------
    assignments : pandas.DataFrame
    eval_keys : sequence of KeyTemplate, or KeyGold
    mapping : iterable of (template, slot, gold_slot)
        Typically ``EvaluationResult.mapping``.
    matcher : {"lenient", "strict"}

    Returns
    -------
    float
        0.0 for an empty mapping.
    """
    return _mapped_template_recall(SplitIndex(assignments, eval_keys, matcher), mapping)


def _mapped_template_recall(split: SplitIndex, mapping: Iterable[MappingTriple]) -> float:
    return _every_slot_recall(split, sorted({int(t) for t, _, _ in mapping}))


def _every_slot_recall(split: SplitIndex, templates: Iterable[int]) -> float:
    n_s = split.shape[1]
    every = [(t, s, g) for t in templates for s in range(n_s) for g in GOLD_SLOTS]
    return sum(split.counts(every).values(), Counts()).recall


def relevance_oracle(result: EvaluationResult) -> Counts:
    """The counts of ``result`` had the messages without a relevant incident produced nothing.

    Those messages have no gold entity, so they add false positives only; dropping their
    guesses keeps every TP and FN. The F1 of the returned counts bounds what any document
    filter could reach under the same mapping.

    Parameters
    ----------
    result : EvaluationResult
        As returned by :func:`aesi_lib.evaluate.evaluate`.

    Returns
    -------
    Counts
    """
    pm = _per_message(result)
    relevant = pm[pm["relevant"]]
    return Counts(int(relevant["tp"].sum()), int(relevant["fp"].sum()), int(pm["fn"].sum()))


def false_positive_share_irrelevant(result: EvaluationResult) -> float:
    """Share of a result's false positives that come from messages without a relevant incident
    (no template of the four types; evaluation.md, "Data": all of their guesses are FPs).

    Parameters
    ----------
    result : EvaluationResult
        As returned by :func:`aesi_lib.evaluate.evaluate`.

    Returns
    -------
    float
        0.0 when there is no false positive.
    """
    pm = _per_message(result)
    total = int(pm["fp"].sum())
    return int(pm.loc[~pm["relevant"], "fp"].sum()) / total if total else 0.0


def result_bounds(
    assignments: pd.DataFrame, eval_keys: Keys, result: EvaluationResult,
    split: SplitIndex | None = None,
) -> dict[str, Any]:
    """The bounds of one evaluation, JSON-ready, as stored beside its scores.

    Parameters
    ----------
    assignments : pandas.DataFrame
    eval_keys : sequence of KeyTemplate, or KeyGold
        The keys ``result`` was scored on.
    result : EvaluationResult
    split : SplitIndex, optional
        ``assignments`` indexed against ``eval_keys`` with the result's matcher, when the
        caller has it (the score grid scored the result on it); built here otherwise.

    Returns
    -------
    dict
        ``fp_share_irrelevant`` (float), ``template_recall_ceiling`` (float, with the
        result's mapping and matcher), ``relevance_oracle`` (``Counts.as_dict()``),
        ``misses`` (gold slot -> ``SlotMisses.as_dict()``, :mod:`aesi_lib.evaluate.misses`)
        and ``unreached`` (gold slot -> {kind: entities}: what the entities no mention
        matches are, :func:`aesi_lib.evaluate.misses.unreached_kinds`).
    """
    split = _checked_split(split, assignments, eval_keys, result.matcher)
    return {
        "fp_share_irrelevant": false_positive_share_irrelevant(result),
        "template_recall_ceiling": _mapped_template_recall(split, result.mapping),
        "relevance_oracle": relevance_oracle(result).as_dict(),
        "misses": {g: m.as_dict() for g, m in split_misses(split, result.mapping).items()},
        "unreached": unreached_kinds(split, _mention_texts(assignments, split.doc_ids)),
    }


def _mention_texts(assignments: pd.DataFrame, doc_ids: Sequence[str]) -> dict[str, list[str]]:
    """The mention texts of each message of ``doc_ids``: ``mention``, or ``head`` where an
    export has none."""
    column = "mention" if "mention" in assignments.columns else "head"
    rows = assignments[assignments["doc_id"].astype(str).isin(set(doc_ids))]
    out: dict[str, list[str]] = {}
    for doc_id, text in zip(rows["doc_id"].astype(str), rows[column].astype(str),
                            strict=True):
        out.setdefault(doc_id, []).append(text)
    return out


def _per_message(result: EvaluationResult) -> pd.DataFrame:
    if result.per_message is None:
        raise ValueError("the result carries no per-message counts")
    return result.per_message
