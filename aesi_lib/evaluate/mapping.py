"""Mapping learned roles to gold slots (evaluation.md, "Mapping learned roles to gold slots").

The functions here work on plain arrays of F1 scores and on a callable that scores a whole
mapping, so they know nothing of messages or strings; :mod:`aesi_lib.evaluate.scoring` builds
the arrays from its compact counting structures.

A mapping M is a list of ``(template, slot, gold_slot)`` triples: role (template, slot) feeds
gold slot ``gold_slot``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, permutations

import numpy as np

from aesi_lib.evaluate.gold import GOLD_SLOTS, TYPE_GOLD_SLOTS

MappingTriple = tuple[int, int, str]

#: Tolerance of the pruning step (evaluation.md, step 4).
PRUNE_TOLERANCE = 0.001

# Float sums of the same F1 values can differ in the last bits; closer than this is a tie.
_TIE_EPS = 1e-12


@lru_cache(maxsize=64)
def partial_maps(n_gold: int, n_slots: int) -> np.ndarray:
    """Every one-to-one partial map from ``n_gold`` gold slots to ``n_slots`` slots, in
    tie-break order.

    Implements the enumeration and the tie-break of evaluation.md, step 1: fewest mapped slots
    first, then lower slot index, read as the lexicographic order of
    ``(φ(g_0), φ(g_1), ...)`` in gold-slot order with "unmapped" after every slot.

    Parameters
    ----------
    n_gold : int
        Number of gold slots of the type (2, 3 or 4).
    n_slots : int
        Number of slots of a learned template.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_maps, n_gold)``, int; entry ``n_slots`` means unmapped. Row 0 is the empty
        map. Read-only (cached).
    """
    rows: list[tuple[int, ...]] = []
    unmapped = n_slots
    for k in range(n_gold + 1):
        for mapped_golds in combinations(range(n_gold), k):
            for slots in permutations(range(n_slots), k):
                row = [unmapped] * n_gold
                for g, s in zip(mapped_golds, slots, strict=True):
                    row[g] = s
                rows.append(tuple(row))
    rows.sort(key=lambda r: (sum(v != unmapped for v in r), r))
    arr = np.array(rows, dtype=np.int64).reshape(len(rows), n_gold)
    arr.setflags(write=False)
    return arr


def best_partial_maps(f1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each learned template, the best one-to-one partial map of the type's gold slots.

    Implements evaluation.md, step 1: maximise Σ_g F1(role (t, φ(g)), g) exhaustively; ties go
    to the fewest mapped slots, then the lower slot index (see :func:`partial_maps`).

    The search of a template runs over its *candidate* slots only (:func:`candidate_slots`):
    the winner maps each gold slot to one of that slot's n_gold best slots, so the maps over
    the candidates hold it, in the same tie-break order (the candidates keep their index
    order). With 36 slots and 4 gold slots that is at most 16 slots instead of 36: 58,625
    maps instead of 1,592,785 per template.

    Parameters
    ----------
    f1 : numpy.ndarray
        Shape ``(n_gold, n_templates, n_slots)``: ``f1[i, t, s]`` is the F1 of role (t, s)
        against the type's i-th gold slot.

    Returns
    -------
    sums : numpy.ndarray
        Shape ``(n_templates,)``, the best sum per template.
    maps : numpy.ndarray
        Shape ``(n_templates, n_gold)``, int; ``maps[t, i]`` is the slot mapped to gold slot i,
        or -1 when unmapped.
    """
    n_gold, n_templates, _ = f1.shape
    sums = np.zeros(n_templates)
    maps = np.full((n_templates, n_gold), -1, dtype=np.int64)
    for t in range(n_templates):
        slots = candidate_slots(f1[:, t, :])
        cand = partial_maps(n_gold, slots.size)
        # A zero column at index len(slots) scores "unmapped".
        ext = np.concatenate([f1[:, t, slots], np.zeros((n_gold, 1))], axis=1)
        totals = np.zeros(len(cand))
        for i in range(n_gold):
            totals += ext[i][cand[:, i]]
        sums[t] = totals.max()
        # First candidate within the tie tolerance of the maximum = the tie-break winner.
        pick = cand[int(np.argmax(totals >= sums[t] - _TIE_EPS))]
        mapped = pick < slots.size
        maps[t, mapped] = slots[pick[mapped]]
    return sums, maps


def candidate_slots(f1: np.ndarray) -> np.ndarray:
    """The slots a template's best partial map can use: for each gold slot, its ``n_gold``
    best slots with F1 > 0 (ties to the lower index), all together in index order.

    Parameters
    ----------
    f1 : numpy.ndarray
        Shape ``(n_gold, n_slots)``, one template's F1 per gold slot and slot.

    Returns
    -------
    numpy.ndarray
        Sorted slot indices, int.

    Why the winner of :func:`best_partial_maps` maps gold slot i only to one of i's
    candidates: a slot with F1 0 is never mapped (leaving it unmapped ties with fewer slots);
    and if i were mapped to a positive slot s outside its n_gold best, the other gold slots
    use at most n_gold - 1 slots, so one of i's best, c, is free. c scores more than s (then
    the map was not optimal) or the same with a lower index (then the map with c wins the
    tie). F1 values are ratios of counts, so "more" here is far above the 1e-12 of a tie.
    """
    n_gold, n_slots = f1.shape
    chosen: set[int] = set()
    for i in range(n_gold):
        order = np.lexsort((np.arange(n_slots), -f1[i]))[:n_gold]
        chosen.update(int(s) for s in order if f1[i, s] > 0)
    return np.array(sorted(chosen), dtype=np.int64)


def choose_template(sums: np.ndarray) -> int:
    """The template kept for a type (evaluation.md, step 2): largest sum, ties to the smaller t.

    Parameters
    ----------
    sums : numpy.ndarray
        Best sum per template, from :func:`best_partial_maps`.

    Returns
    -------
    int
        The template index; -1 when there is no template.
    """
    if len(sums) == 0:
        return -1
    return int(np.argmax(sums >= sums.max() - _TIE_EPS))


def type_mappings(
    f1_by_type: Mapping[str, np.ndarray],
) -> dict[str, tuple[int, dict[str, int]]]:
    """Steps 1 and 2 of evaluation.md for every type.

    Parameters
    ----------
    f1_by_type : mapping
        ``{type: f1}`` with ``f1`` of shape ``(len(TYPE_GOLD_SLOTS[type]), n_templates,
        n_slots)``, gold slots in the order of :data:`TYPE_GOLD_SLOTS`.

    Returns
    -------
    dict
        ``{type: (template, {gold_slot: slot})}``; the inner dict holds mapped gold slots only
        and may be empty.
    """
    out: dict[str, tuple[int, dict[str, int]]] = {}
    for typ, f1 in f1_by_type.items():
        golds = TYPE_GOLD_SLOTS[typ]
        if f1.shape[0] != len(golds):
            raise ValueError(f"{typ}: f1 has {f1.shape[0]} gold rows, expected {len(golds)}")
        sums, maps = best_partial_maps(f1)
        t = choose_template(sums)
        phi = {} if t < 0 else {g: int(s) for g, s in zip(golds, maps[t], strict=True) if s >= 0}
        out[typ] = (t, phi)
    return out


@dataclass(frozen=True)
class TypeChoice:
    """How one type chose its template in step 2 (evaluation.md): the kept ``template`` and
    its best sum (``best_sum``), and the best other template (``runner_up``, -1 when there is
    none) with its sum. ``margin`` is the difference: under a few hundredths, a small change of
    the labels (another seed, a neighbouring weight) can hand the type to the runner-up, and
    the union of step 3 changes with it."""

    template: int
    best_sum: float
    runner_up: int
    runner_up_sum: float

    @property
    def margin(self) -> float:
        return self.best_sum - self.runner_up_sum


#: A type whose two best templates lie closer than this (in the sum of F1 of step 2) may
#: change template with the seed or a neighbouring weight: the report's "Close choice" note
#: and the sweep's count of close choices.
CLOSE_CHOICE = 0.01


def type_choices(f1_by_type: Mapping[str, np.ndarray]) -> dict[str, TypeChoice]:
    """Step 2 of evaluation.md for every type, with the runner-up template and its margin.

    A diagnostic beside :func:`type_mappings` (which it agrees with on the kept template):
    when one type's two best templates lie within a thousandth of each other, another seed
    can flip the choice and move the test-mapped score by a few hundredths (README, "Agentive
    modifiers (R15)": 0.411 against 0.437 dev-mapped for the same labels).

    Parameters
    ----------
    f1_by_type : mapping
        ``{type: f1}`` as for :func:`type_mappings`.

    Returns
    -------
    dict
        ``{type: TypeChoice}``; types with no template, or whose best sum is 0 (no role
        matches any of their gold entities, so no choice was made), are left out.
    """
    out: dict[str, TypeChoice] = {}
    for typ, f1 in f1_by_type.items():
        sums, _ = best_partial_maps(f1)
        t = choose_template(sums)
        if t < 0 or sums[t] <= 0:
            continue
        others = np.delete(np.arange(len(sums)), t)
        if others.size:
            # Ties among the others go to the smaller template, as in step 2.
            r = int(others[choose_template(sums[others])])
            out[typ] = TypeChoice(t, float(sums[t]), r, float(sums[r]))
        else:
            out[typ] = TypeChoice(t, float(sums[t]), -1, 0.0)
    return out


def sort_mapping(mapping: Iterable[MappingTriple]) -> list[MappingTriple]:
    """Distinct triples of a mapping in a fixed order: gold slot (as in GOLD_SLOTS), template,
    slot.

    Parameters
    ----------
    mapping : iterable of (template, slot, gold_slot)

    Returns
    -------
    list of (template, slot, gold_slot)
    """
    order = {g: i for i, g in enumerate(GOLD_SLOTS)}
    uniq = {(int(t), int(s), str(g)) for t, s, g in mapping}
    return sorted(uniq, key=lambda x: (order.get(x[2], len(order)), x[0], x[1]))


def union_mapping(choices: Mapping[str, tuple[int, dict[str, int]]]) -> list[MappingTriple]:
    """Step 3 of evaluation.md: M is the union over types of (t_τ, φ_τ(g)) → g.

    Parameters
    ----------
    choices : mapping
        Output of :func:`type_mappings`.

    Returns
    -------
    list of (template, slot, gold_slot)
        Sorted by :func:`sort_mapping`; a pair chosen by several types appears once.
    """
    return sort_mapping((t, s, g) for t, phi in choices.values() for g, s in phi.items())


def prune_mapping(
    mapping: Sequence[MappingTriple],
    f1_of: Callable[[Sequence[MappingTriple]], float],
    tolerance: float = PRUNE_TOLERANCE,
) -> list[MappingTriple]:
    """Step 4 of evaluation.md: greedy pruning of M.

    While some pair can be removed without lowering the current overall F1 by more than
    ``tolerance``, the pair whose removal gives the highest F1 is removed (ties: the first pair
    in :func:`sort_mapping` order), and the F1 after the removal becomes the current F1.

    Parameters
    ----------
    mapping : sequence of (template, slot, gold_slot)
    f1_of : callable
        Overall F1 (type ignored) of a mapping.
    tolerance : float
        Largest allowed drop per removal.

    Returns
    -------
    list of (template, slot, gold_slot)
        The pruned mapping, in :func:`sort_mapping` order.
    """
    current_map = sort_mapping(mapping)
    current = f1_of(current_map)
    while current_map:
        best_f1, best_i = -1.0, -1
        for i in range(len(current_map)):
            f = f1_of(current_map[:i] + current_map[i + 1 :])
            if f > best_f1 + _TIE_EPS:
                best_f1, best_i = f, i
        if best_f1 < current - tolerance - _TIE_EPS:
            break
        current_map = current_map[:best_i] + current_map[best_i + 1 :]
        current = best_f1
    return current_map
