"""Counting a system's guesses against the gold of one message and slot (evaluation.md,
"Counting"), and precision, recall and F1 of counts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from aesi_lib.evaluate.gold import GoldEntity
from aesi_lib.evaluate.matching import MatcherName, guess_token, match_keys


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from pooled counts (evaluation.md, "Counting").

    Parameters
    ----------
    tp, fp, fn : int

    Returns
    -------
    (float, float, float)
        P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2PR/(P+R); each is 0 when its denominator is.
    """
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, f1_score(tp, fp, fn)


def f1_score(tp: int | np.ndarray, fp: int | np.ndarray, fn: int | np.ndarray) -> Any:
    """F1 = 2PR/(P+R) written as 2TP/(2TP+FP+FN) (equal, and defined as 0 when TP = 0).

    Parameters
    ----------
    tp, fp, fn : int or numpy.ndarray

    Returns
    -------
    float or numpy.ndarray
    """
    tp_a, fp_a, fn_a = np.asarray(tp), np.asarray(fp), np.asarray(fn)
    den = 2 * tp_a + fp_a + fn_a
    out = np.where(tp_a > 0, 2 * tp_a / np.maximum(den, 1), 0.0)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class Counts:
    """TP / FP / FN of one message and slot, or pooled."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float:
        return prf(self.tp, self.fp, self.fn)[0]

    @property
    def recall(self) -> float:
        return prf(self.tp, self.fp, self.fn)[1]

    @property
    def f1(self) -> float:
        return prf(self.tp, self.fp, self.fn)[2]

    def as_dict(self) -> dict[str, float | int]:
        p, r, f = prf(self.tp, self.fp, self.fn)
        return {"precision": p, "recall": r, "f1": f, "tp": self.tp, "fp": self.fp, "fn": self.fn}


@lru_cache(maxsize=100_000)
def entity_keys(alternatives: tuple[str, ...], matcher: MatcherName) -> frozenset[str]:
    """The match keys of a gold entity's alternatives (memoised: a pure function of them)."""
    return match_keys(alternatives, matcher)


def count_message_slot(
    guesses: Iterable[str], entities: Sequence[GoldEntity], matcher: MatcherName = "lenient"
) -> Counts:
    """TP / FP / FN of one message and gold slot (evaluation.md, "Counting").

    This is the direct reading of the protocol; :func:`evaluate` computes the same numbers on
    compact arrays, and the tests check one against the other.

    Parameters
    ----------
    guesses : iterable of str
        Head words of the mentions whose role is mapped to the slot; duplicates (after
        lowercasing) count once.
    entities : sequence of GoldEntity
        The message's merged gold entities of the slot.
    matcher : {"lenient", "strict"}

    Returns
    -------
    Counts
        TP = entities matched by at least one guess; FN = non-optional entities matched by no
        guess; FP = guesses that match no entity.
    """
    distinct = {h.strip().lower() for h in guesses if h and h.strip()}
    keys = [entity_keys(e.alternatives, matcher) for e in entities]
    matched = [False] * len(entities)
    fp = 0
    for h in distinct:
        tok = guess_token(h)
        hit = False
        for i, k in enumerate(keys):
            if tok and tok in k:
                matched[i] = hit = True
        fp += not hit
    tp = sum(matched)
    fn = sum(1 for e, m in zip(entities, matched, strict=True) if not m and not e.optional)
    return Counts(tp, fp, fn)
