"""Where the gold entities a mapping missed are (a diagnostic that uses the keys, not a score).

Recall counts a gold entity as found when a guess of a role mapped to its gold slot matches it
(evaluation.md, "Counting"). A missed, non-optional entity (one FN) is in one of three places:

* **other slot**: some mention of its message that matches it sits in a template the mapping
  uses for that gold slot, but in a slot that does not feed it: better slots could find it;
* **other template**: its matching mentions sit only in templates the mapping does not use for
  that gold slot: only other templates could find it;
* **no mention**: no mention of its message matches it: the entity extraction lost it.

So ``found + other_slot + other_template + no_mention`` is TP + FN, recall's denominator. Each
count comes with the roles or templates that hold most of its entities, the first place to look
when a slot's recall is low. :func:`unreached_kinds` says what the *no mention* entities are
(:mod:`aesi_lib.evaluate.reach`, the rule ``aesi evaluate --annotations`` reports by too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.evaluate.gold import EVENT_TYPES
from aesi_lib.evaluate.index import SlotIndex
from aesi_lib.evaluate.mapping import MappingTriple
from aesi_lib.evaluate.matching import MatcherName, normalise
from aesi_lib.evaluate.reach import MISSED_KINDS, missed_kind
from aesi_lib.evaluate.scoring import Keys
from aesi_lib.evaluate.split import ALL_VIEW, SplitIndex

#: How many holders (roles or templates) a breakdown names, most entities first.
TOP_HOLDERS = 3


@dataclass(frozen=True)
class SlotMisses:
    """The recall of one gold slot taken apart (see the module docstring).

    ``other_slot_roles`` holds ``(template, slot, entities)`` of the unmapped roles of the
    mapped templates that match the most *other slot* entities; ``other_templates`` holds
    ``(template, entities)`` of the templates that match the most *other template* entities.
    An entity matched in several places counts once for each.
    """

    found: int
    other_slot: int
    other_template: int
    no_mention: int
    other_slot_roles: tuple[tuple[int, int, int], ...] = ()
    other_templates: tuple[tuple[int, int], ...] = ()

    @property
    def missed(self) -> int:
        """The non-optional entities not found (the slot's FN)."""
        return self.other_slot + self.other_template + self.no_mention

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists of lists for the holders)."""
        return {
            "found": self.found,
            "other_slot": self.other_slot,
            "other_template": self.other_template,
            "no_mention": self.no_mention,
            "other_slot_roles": [list(r) for r in self.other_slot_roles],
            "other_templates": [list(t) for t in self.other_templates],
        }


def slot_misses(
    index: SlotIndex, roles: np.ndarray, n_slots: int, top: int = TOP_HOLDERS
) -> SlotMisses:
    """Break down the recall of one gold slot whose guesses come from ``roles``.

    Parameters
    ----------
    index : SlotIndex
        The gold slot's index (``SplitIndex.view("all")[gold_slot]``).
    roles : ndarray of int
        Role numbers ``template * n_slots + slot`` mapped to the gold slot.
    n_slots : int
        Slots per template of the output.
    top : int
        How many holders to name.

    Returns
    -------
    SlotMisses
        ``found`` equals the slot's TP and ``missed`` its FN under the same roles.
    """
    roles = np.asarray(roles, dtype=np.int64)
    n_gold = index.gold_doc.shape[0]
    match_template = index.match_role // n_slots
    in_mapped_template = np.isin(match_template, np.unique(roles // n_slots))
    found = _flag(index.match_gold[np.isin(index.match_role, roles)], n_gold)
    near = _flag(index.match_gold[in_mapped_template], n_gold)
    matched = _flag(index.match_gold, n_gold)
    missed = index.gold_required & ~found
    other_slot = missed & near
    other_template = missed & matched & ~near

    slot_pairs = other_slot[index.match_gold] & in_mapped_template
    role_holders = _most_common(index.match_role[slot_pairs], top)
    template_pairs = other_template[index.match_gold]
    # An entity matched by several slots of one template counts once for that template.
    pairs = np.unique(np.stack([match_template[template_pairs],
                                index.match_gold[template_pairs]]), axis=1)
    template_holders = _most_common(pairs[0], top)
    return SlotMisses(
        found=int(found.sum()),
        other_slot=int(other_slot.sum()),
        other_template=int(other_template.sum()),
        no_mention=int((missed & ~matched).sum()),
        other_slot_roles=tuple((r // n_slots, r % n_slots, n) for r, n in role_holders),
        other_templates=tuple(template_holders),
    )


def split_misses(split: SplitIndex, mapping: Iterable[MappingTriple]) -> dict[str, SlotMisses]:
    """:func:`slot_misses` of every gold slot of ``split`` under ``mapping`` (type ignored, as
    in the scores)."""
    view = split.view(ALL_VIEW)
    return {g: slot_misses(view[g], roles, split.shape[1])
            for g, roles in split.roles_by_slot(mapping).items()}


def missed_gold(
    assignments: pd.DataFrame,
    eval_keys: Keys,
    mapping: Iterable[MappingTriple],
    matcher: MatcherName = "lenient",
) -> dict[str, SlotMisses]:
    """Where each gold slot's missed entities are under ``mapping``.

    Parameters
    ----------
    assignments : pandas.DataFrame
    eval_keys : sequence of KeyTemplate, or KeyGold
    mapping : iterable of (template, slot, gold_slot)
        Typically ``EvaluationResult.mapping``.
    matcher : {"lenient", "strict"}

    Returns
    -------
    dict
        Gold slot -> :class:`SlotMisses`.
    """
    return split_misses(SplitIndex(assignments, eval_keys, matcher), mapping)


def unreached_kinds(split: SplitIndex, mention_texts: Mapping[str, Sequence[str]]
                    ) -> dict[str, dict[str, int]]:
    """By gold slot, the non-optional gold entities that no mention of their message matches
    (the *no mention* of :func:`slot_misses`, whatever the mapping), counted by what they are
    (:func:`aesi_lib.evaluate.reach.missed_kind` of the entity's first string): an entity
    lies inside a mention when the tokens of one of its strings are a run of the tokens of one
    of its message's ``mention_texts`` (:func:`aesi_lib.evaluate.matching.normalise`), as
    *FMLN* is in *FMLN URBAN GUERRILLAS*. Under the lenient matcher that mention's head lies
    outside the entity (a head inside it would match); under the strict one it may lie inside.

    Parameters
    ----------
    split : SplitIndex
        The run's mentions indexed against the keys, with the matcher of the counts.
    mention_texts : mapping of str to sequence of str
        Each message's mention texts (``assignments["mention"]``, or the heads where an
        export has no mention text).

    Returns
    -------
    dict
        Gold slot -> {kind: entities}, the kinds in :data:`aesi_lib.evaluate.reach.
        MISSED_KINDS` order, those with none left out; the counts of a slot sum to its
        ``no_mention``.
    """
    gold = split.key_gold.gold(EVENT_TYPES)
    tokens = {d: [normalise(t) for t in mention_texts.get(d, ())] for d in split.doc_ids}
    out: dict[str, dict[str, int]] = {}
    for slot, index in split.view(ALL_VIEW).items():
        entities = [(d, e) for d in split.doc_ids for e in gold[d][slot]]
        unreached = index.gold_required & ~_flag(index.match_gold, len(entities))
        counts: dict[str, int] = {}
        for i in np.flatnonzero(unreached):
            doc_id, entity = entities[i]
            inside = any(_is_run(normalise(a), m) for a in entity.alternatives
                         for m in tokens[doc_id])
            kind = missed_kind(entity.alternatives[0], inside)
            counts[kind] = counts.get(kind, 0) + 1
        out[slot] = {k: counts[k] for k in MISSED_KINDS if k in counts}
    return out


def _is_run(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    """Whether ``part`` (not empty) is a contiguous run of ``whole``."""
    n = len(part)
    return n > 0 and any(whole[i:i + n] == part for i in range(len(whole) - n + 1))


def _flag(indices: np.ndarray, size: int) -> np.ndarray:
    flags = np.zeros(size, dtype=bool)
    flags[indices] = True
    return flags


def _most_common(values: np.ndarray, top: int) -> list[tuple[int, int]]:
    """``(value, count)`` of the ``top`` most frequent values; ties to the smaller value."""
    uniq, counts = np.unique(values, return_counts=True)
    order = np.lexsort((uniq, -counts))[:top]
    return [(int(uniq[i]), int(counts[i])) for i in order]


__all__ = ["TOP_HOLDERS", "SlotMisses", "missed_gold", "slot_misses", "split_misses",
           "unreached_kinds"]
