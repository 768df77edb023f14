"""Scores of a system output and the ``evaluate`` entry point (evaluation.md, "Mapping",
"What to report")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.evaluate.assignments import role_shape
from aesi_lib.evaluate.counting import Counts, prf
from aesi_lib.evaluate.mapping import MappingTriple, sort_mapping
from aesi_lib.evaluate.matching import MatcherName
from aesi_lib.evaluate.split import KeyGold, SplitIndex

MAPPING_MODES: tuple[str, ...] = ("test-mapped", "dev-mapped")


@dataclass
class EvaluationResult:
    """Scores of one evaluation (evaluation.md, "What to report").

    ``per_slot`` maps each gold slot to its precision, recall, f1, tp, fp, fn; ``mapping`` lists
    the (template, slot, gold_slot) triples of M; ``per_message`` holds TP/FP/FN per message and
    gold slot with a ``relevant`` flag (not part of :meth:`to_dict`).
    """

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    per_slot: dict[str, dict[str, float | int]]
    mapping: list[MappingTriple]
    matcher: str = "lenient"
    mode: str = "test-mapped"
    n_messages: int = 0
    per_message: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (plain ints, floats, strings)."""
        return {
            "precision": float(self.precision),
            "recall": float(self.recall),
            "f1": float(self.f1),
            "tp": int(self.tp),
            "fp": int(self.fp),
            "fn": int(self.fn),
            "matcher": self.matcher,
            "mode": self.mode,
            "n_messages": int(self.n_messages),
            "per_slot": {
                g: {k: (int(v) if k in ("tp", "fp", "fn") else float(v)) for k, v in d.items()}
                for g, d in self.per_slot.items()
            },
            "mapping": [
                {"template": int(t), "slot": int(s), "gold_slot": g} for t, s, g in self.mapping
            ],
        }


def score_split(split: SplitIndex, mapping: list[MappingTriple], mode: str) -> EvaluationResult:
    """The scores of ``split`` under the mapping ``mapping`` (labelled ``mode``)."""
    per_slot = split.counts(mapping)
    total = sum(per_slot.values(), Counts())
    p, r, f = prf(total.tp, total.fp, total.fn)
    return EvaluationResult(
        precision=p,
        recall=r,
        f1=f,
        tp=total.tp,
        fp=total.fp,
        fn=total.fn,
        per_slot={g: c.as_dict() for g, c in per_slot.items()},
        mapping=list(mapping),
        matcher=split.matcher,
        mode=mode,
        n_messages=len(split.doc_ids),
        per_message=split.per_message(mapping),
    )


Keys = Sequence[KeyTemplate] | KeyGold


def learn_mapping(
    assignments: pd.DataFrame,
    keys: Keys,
    *,
    matcher: MatcherName = "lenient",
    shape: tuple[int, int] | None = None,
    prune: bool = True,
) -> list[MappingTriple]:
    """The mapping M computed on the messages of ``keys`` (evaluation.md, steps 1-4).

    Parameters
    ----------
    assignments : pandas.DataFrame
    keys : sequence of KeyTemplate, or KeyGold
    matcher : {"lenient", "strict"}
    shape : (int, int), optional
        ``(n_templates, n_slots)``; default from ``assignments``.
    prune : bool
        Apply step 4.

    Returns
    -------
    list of (template, slot, gold_slot)
    """
    return SplitIndex(assignments, keys, matcher, shape).learn_mapping(prune)


def evaluate(
    assignments: pd.DataFrame,
    eval_keys: Keys,
    *,
    map_keys: Keys | None = None,
    matcher: MatcherName = "lenient",
    mapping: str | Sequence[MappingTriple] = "test-mapped",
) -> EvaluationResult:
    """Score a system output on the messages of ``eval_keys`` (evaluation.md).

    Parameters
    ----------
    assignments : pandas.DataFrame
        Export columns, one row per mention; may hold other messages too (they are ignored).
    eval_keys : sequence of KeyTemplate, or KeyGold
        Keys of the evaluated split; every message in them is scored. A
        :class:`~aesi_lib.evaluate.split.KeyGold` shares its extracted gold between
        evaluations.
    map_keys : sequence of KeyTemplate, or KeyGold, optional
        Keys of the split M is learned on for ``dev-mapped`` (DEV); ignored otherwise.
    matcher : {"lenient", "strict"}
    mapping : {"test-mapped", "dev-mapped"} or sequence of (template, slot, gold_slot)
        ``test-mapped`` learns M on the evaluated split, ``dev-mapped`` on ``map_keys`` and
        applies it unchanged; a sequence is used as M as given.

    Returns
    -------
    EvaluationResult
    """
    shape = role_shape(assignments)
    split = SplitIndex(assignments, eval_keys, matcher, shape)
    if isinstance(mapping, str):
        if mapping == "test-mapped":
            m = split.learn_mapping()
        elif mapping == "dev-mapped":
            if map_keys is None:
                raise ValueError("dev-mapped needs map_keys (the DEV keys)")
            m = SplitIndex(assignments, map_keys, matcher, shape).learn_mapping()
        else:
            raise ValueError(f"unknown mapping mode {mapping!r}; expected one of {MAPPING_MODES}")
        mode = mapping
    else:
        m, mode = sort_mapping(mapping), "fixed"
    return score_split(split, m, mode)
