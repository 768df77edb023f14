"""One scored split: the system output and the gold of its keys, indexed for mapping search
and scoring."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.evaluate.assignments import role_shape
from aesi_lib.evaluate.counting import Counts, f1_score
from aesi_lib.evaluate.gold import (
    EVENT_TYPES,
    GOLD_SLOTS,
    TYPE_GOLD_SLOTS,
    Gold,
    extract_gold,
    key_message_ids,
    relevant_message_ids,
)
from aesi_lib.evaluate.index import (
    SlotIndex,
    index_guesses,
    index_slot,
    role_counts,
    slot_counts,
    slot_counts_per_message,
)
from aesi_lib.evaluate.mapping import (
    MappingTriple,
    TypeChoice,
    prune_mapping,
    type_choices,
    type_mappings,
    union_mapping,
)
from aesi_lib.evaluate.matching import MATCHERS, MatcherName

ALL_VIEW = "all"


class KeyGold:
    """The answer keys of a split and their gold entities, extracted once per type view.

    Scoring one output under several matchers and mappings (:func:`aesi_lib.evaluate.grid
    .score_grid`), or several outputs against the same keys (a sweep), reuses one
    ``KeyGold``: gold extraction would otherwise dominate the time of an evaluation. The
    caller owns it; nothing is cached behind its back.

    Parameters
    ----------
    keys : sequence of KeyTemplate
    """

    def __init__(self, keys: Sequence[KeyTemplate]) -> None:
        self.keys = list(keys)
        self.doc_ids = key_message_ids(self.keys)
        self.relevant = relevant_message_ids(self.keys)
        self._gold: dict[tuple[str, ...], Gold] = {}

    @classmethod
    def of(cls, keys: Sequence[KeyTemplate] | KeyGold) -> KeyGold:
        """``keys`` itself when it is a ``KeyGold``, else a new one over them."""
        return keys if isinstance(keys, KeyGold) else cls(keys)

    def gold(self, types: Sequence[str]) -> Gold:
        """Gold entities of the incidents of ``types``, per message and gold slot. The dict is
        shared: do not modify it."""
        key = tuple(types)
        if key not in self._gold:
            self._gold[key] = extract_gold(self.keys, self.doc_ids, types=key)
        return self._gold[key]


class SplitIndex:
    """System output and gold of one split, ready for mapping search and scoring.

    Type views (``"all"`` and each of the four types) are built on first use.

    Parameters
    ----------
    assignments : pandas.DataFrame
    keys : sequence of KeyTemplate, or KeyGold
        Every message of ``keys`` is scored (evaluation.md, "Data"). A :class:`KeyGold`
        shares its extracted gold with other evaluations on the same keys.
    matcher : {"lenient", "strict"}
    shape : (int, int), optional
        ``(n_templates, n_slots)``; default from ``assignments``.
    """

    def __init__(
        self,
        assignments: pd.DataFrame,
        keys: Sequence[KeyTemplate] | KeyGold,
        matcher: MatcherName = "lenient",
        shape: tuple[int, int] | None = None,
    ) -> None:
        if matcher not in MATCHERS:
            raise ValueError(f"unknown matcher {matcher!r}; expected one of {MATCHERS}")
        self.key_gold = KeyGold.of(keys)
        self.keys = self.key_gold.keys
        self.matcher: MatcherName = matcher
        self.doc_ids = self.key_gold.doc_ids
        self.shape = role_shape(assignments) if shape is None else shape
        self.guesses = index_guesses(assignments, self.doc_ids, self.shape)
        self.relevant = self.key_gold.relevant
        self._views: dict[str, dict[str, SlotIndex]] = {}

    def view(self, name: str = ALL_VIEW) -> dict[str, SlotIndex]:
        """Slot indices of gold from all four types (``"all"``) or from one type."""
        if name not in self._views:
            types = EVENT_TYPES if name == ALL_VIEW else (name,)
            slots = GOLD_SLOTS if name == ALL_VIEW else TYPE_GOLD_SLOTS[name]
            gold = self.key_gold.gold(types)
            self._views[name] = {
                g: index_slot(self.guesses, [gold[d][g] for d in self.doc_ids], self.matcher)
                for g in slots
            }
        return self._views[name]

    def roles_by_slot(self, mapping: Iterable[MappingTriple]) -> dict[str, np.ndarray]:
        n_s = self.shape[1]
        out: dict[str, list[int]] = {g: [] for g in GOLD_SLOTS}
        for t, s, g in mapping:
            if not (0 <= t < self.shape[0] and 0 <= s < n_s):
                continue  # a role this output does not have feeds nothing
            out[g].append(t * n_s + s)
        return {g: np.asarray(r, dtype=np.int64) for g, r in out.items()}

    def counts(self, mapping: Iterable[MappingTriple]) -> dict[str, Counts]:
        """Pooled counts per gold slot under ``mapping`` (type ignored)."""
        view = self.view(ALL_VIEW)
        return {g: slot_counts(view[g], r) for g, r in self.roles_by_slot(mapping).items()}

    def f1(self, mapping: Iterable[MappingTriple]) -> float:
        """Overall F1 under ``mapping``, pooled over slots."""
        total = sum(self.counts(mapping).values(), Counts())
        return total.f1

    def type_f1(self, typ: str) -> np.ndarray:
        """F1 of every single role against each gold slot of ``typ`` (evaluation.md, step 1).

        Returns
        -------
        numpy.ndarray
            Shape ``(len(TYPE_GOLD_SLOTS[typ]), n_templates, n_slots)``.
        """
        n_t, n_s = self.shape
        view = self.view(typ)
        rows = []
        for g in TYPE_GOLD_SLOTS[typ]:
            tp, fp, fn = role_counts(view[g], n_t * n_s)
            rows.append(np.asarray(f1_score(tp, fp, fn), dtype=float).reshape(n_t, n_s))
        return np.stack(rows) if rows else np.zeros((0, n_t, n_s))

    def learn_mapping(self, prune: bool = True) -> list[MappingTriple]:
        """Steps 1-4 of evaluation.md on this split."""
        choices = type_mappings({typ: self.type_f1(typ) for typ in EVENT_TYPES})
        mapping = union_mapping(choices)
        return prune_mapping(mapping, self.f1) if prune else mapping

    def type_choices(self) -> dict[str, TypeChoice]:
        """Step 2 of evaluation.md on this split, with each type's runner-up template
        (:func:`aesi_lib.evaluate.mapping.type_choices`)."""
        return type_choices({typ: self.type_f1(typ) for typ in EVENT_TYPES})

    def per_message(self, mapping: Iterable[MappingTriple]) -> pd.DataFrame:
        """TP / FP / FN per message and gold slot under ``mapping``."""
        view = self.view(ALL_VIEW)
        frames = []
        for g, roles in self.roles_by_slot(mapping).items():
            tp, fp, fn = slot_counts_per_message(view[g], roles)
            frames.append(
                pd.DataFrame({"doc_id": self.doc_ids, "gold_slot": g, "tp": tp, "fp": fp, "fn": fn})
            )
        out = pd.concat(frames, ignore_index=True)
        out["relevant"] = out["doc_id"].isin(self.relevant)
        return out
