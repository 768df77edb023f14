"""Mapping search of evaluation.md ("Mapping learned roles to gold slots"), on plain arrays."""

from __future__ import annotations

import numpy as np
import pytest

from aesi_lib.evaluate.mapping import (
    best_partial_maps,
    candidate_slots,
    choose_template,
    partial_maps,
    prune_mapping,
    sort_mapping,
    type_choices,
    type_mappings,
    union_mapping,
)


def f1_array(*templates: list[list[float]]) -> np.ndarray:
    """``f1_array(t0, t1, ...)`` with ``t[i][s]`` = F1 of role (t, s) on gold slot i."""
    return np.transpose(np.array(templates, dtype=float), (1, 0, 2))


def test_partial_maps_enumerates_every_injective_partial_map_in_tie_break_order():
    maps = partial_maps(2, 3)
    # empty + 2 gold slots x 3 slots + 3 x 2 ordered pairs
    assert len(maps) == 1 + 6 + 6
    assert len({tuple(r) for r in maps}) == len(maps)
    assert maps[0].tolist() == [3, 3]  # 3 = unmapped
    assert maps[1].tolist() == [0, 3]  # one mapped, lowest slot first
    assert all(len(set(r[r < 3])) == (r < 3).sum() for r in maps)  # one-to-one
    assert len(partial_maps(4, 8)) == 1 + 4 * 8 + 6 * 56 + 4 * 336 + 1680


def test_obvious_map_is_found():
    f1 = f1_array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.0]])
    sums, maps = best_partial_maps(f1)
    assert maps[0].tolist() == [1, 0]
    assert sums[0] == pytest.approx(1.7)


def test_map_is_one_to_one():
    # Both gold slots like slot 0 best; 0.9 + 0.5 beats 0.8 + 0.1.
    f1 = f1_array([[0.9, 0.1], [0.8, 0.5]])
    _, maps = best_partial_maps(f1)
    assert maps[0].tolist() == [0, 1]


def test_role_with_zero_f1_is_never_mapped():
    f1 = f1_array([[0.0, 0.5, 0.0], [0.0, 0.0, 0.0]])
    sums, maps = best_partial_maps(f1)
    assert maps[0].tolist() == [1, -1]
    assert sums[0] == pytest.approx(0.5)
    _, empty = best_partial_maps(f1_array([[0.0, 0.0], [0.0, 0.0]]))
    assert empty[0].tolist() == [-1, -1]


def test_tie_goes_to_fewest_mapped_slots():
    # {g0->0} (0.6) ties with {g0->1, g1->0} (0.3 + 0.3): the smaller map wins.
    f1 = f1_array([[0.6, 0.3], [0.3, 0.0]])
    _, maps = best_partial_maps(f1)
    assert maps[0].tolist() == [0, -1]


def test_tie_goes_to_lower_slot_index():
    f1 = f1_array([[0.0, 0.4, 0.4], [0.0, 0.0, 0.0]])
    _, maps = best_partial_maps(f1)
    assert maps[0].tolist() == [1, -1]


def test_best_map_per_template_is_independent():
    f1 = f1_array([[0.5, 0.0], [0.0, 0.5]], [[0.0, 0.2], [0.7, 0.0]])
    sums, maps = best_partial_maps(f1)
    assert maps.tolist() == [[0, 1], [1, 0]]
    assert sums == pytest.approx([1.0, 0.9])


def _exhaustive_best_maps(f1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Step 1 over every partial map of every slot, no candidates: the reference."""
    n_gold, n_templates, n_slots = f1.shape
    cand = partial_maps(n_gold, n_slots)
    ext = np.concatenate([f1, np.zeros((n_gold, n_templates, 1))], axis=2)
    totals = sum(ext[i][:, cand[:, i]] for i in range(n_gold))
    best = totals.max(axis=1)
    maps = cand[np.argmax(totals >= best[:, None] - 1e-12, axis=1)].copy()
    maps[maps == n_slots] = -1
    return best, maps


@pytest.mark.parametrize("seed", range(40))
def test_the_candidate_slots_give_the_exhaustive_winner(seed):
    """Many zeros and many equal F1 values (ratios of small counts), so that the tie rules
    decide often: the search over the candidate slots picks the exhaustive search's map."""
    rng = np.random.default_rng(seed)
    n_gold = int(rng.integers(2, 5))
    n_slots = int(rng.integers(n_gold, 10))
    tp = rng.integers(0, 3, size=(n_gold, 6, n_slots))
    f1 = np.where(rng.random(tp.shape) < 0.5, 0.0, 2 * tp / (2 * tp + rng.integers(1, 4, tp.shape)))
    sums, maps = best_partial_maps(f1)
    ref_sums, ref_maps = _exhaustive_best_maps(f1)
    np.testing.assert_allclose(sums, ref_sums, atol=1e-12)
    np.testing.assert_array_equal(maps, ref_maps)


def test_candidates_are_each_gold_slots_best_positive_slots():
    f1 = np.array([[0.0, 0.5, 0.5, 0.2, 0.9], [0.0, 0.0, 0.0, 0.0, 0.1]])
    # gold 0: 0.9 (4), then 0.5 at 1 and 2 -> the lower index 1; gold 1: only slot 4 is > 0.
    assert candidate_slots(f1).tolist() == [1, 4]


def test_template_with_largest_sum_is_kept_ties_to_smaller():
    assert choose_template(np.array([0.5, 0.9, 0.9])) == 1
    assert choose_template(np.array([0.0, 0.0])) == 0
    assert choose_template(np.array([])) == -1


def test_type_mappings_and_union():
    n_t, n_s = 2, 3
    f1 = {
        "KIDNAPPING": np.zeros((2, n_t, n_s)),
        "ARSON": np.zeros((3, n_t, n_s)),
        "ATTACK": np.zeros((4, n_t, n_s)),
        "BOMBING": np.zeros((4, n_t, n_s)),
    }
    f1["KIDNAPPING"][0, 1, 2] = 0.5  # Perpetrator <- (1, 2)
    f1["KIDNAPPING"][1, 1, 0] = 0.4  # Victim <- (1, 0)
    f1["ATTACK"][0, 0, 0] = 0.3  # Perpetrator <- (0, 0)
    f1["BOMBING"][0, 0, 0] = 0.6  # the same pair again
    f1["BOMBING"][3, 0, 1] = 0.2  # Instrument <- (0, 1)
    choices = type_mappings(f1)
    assert choices["KIDNAPPING"] == (1, {"Perpetrator": 2, "Victim": 0})
    assert choices["ARSON"] == (0, {})
    assert choices["BOMBING"] == (0, {"Perpetrator": 0, "Instrument": 1})
    assert union_mapping(choices) == [
        (0, 0, "Perpetrator"),
        (1, 2, "Perpetrator"),
        (1, 0, "Victim"),
        (0, 1, "Instrument"),
    ]


def test_type_choices_name_the_runner_up_and_the_margin():
    # KIDNAPPING: template 2 wins by 0.001 over template 0 (the near-tie that tips a
    # test-mapped score); ARSON: a tie goes to the smaller template, the runner-up is the
    # other with margin 0; ATTACK: no role matches, so no choice is reported.
    f1 = {
        "KIDNAPPING": f1_array([[0.3, 0.0], [0.0, 0.2]], [[0.1, 0.0], [0.0, 0.0]],
                               [[0.0, 0.301], [0.2, 0.0]]),
        "ARSON": f1_array([[0.5], [0.0], [0.0]], [[0.5], [0.0], [0.0]], [[0.0], [0.0], [0.0]]),
        "ATTACK": np.zeros((4, 3, 2)),
    }
    choices = type_choices(f1)
    assert set(choices) == {"KIDNAPPING", "ARSON"}
    kidnapping = choices["KIDNAPPING"]
    assert (kidnapping.template, kidnapping.runner_up) == (2, 0)
    assert kidnapping.best_sum == pytest.approx(0.501)
    assert kidnapping.margin == pytest.approx(0.001)
    assert kidnapping.template == type_mappings(f1)["KIDNAPPING"][0]
    arson = choices["ARSON"]
    assert (arson.template, arson.runner_up, arson.margin) == (0, 1, 0.0)
    # One template only: no runner-up.
    alone = type_choices({"ARSON": f1_array([[0.5], [0.0], [0.0]])})["ARSON"]
    assert (alone.runner_up, alone.margin) == (-1, 0.5)


def test_type_mappings_checks_the_gold_rows():
    with pytest.raises(ValueError, match="KIDNAPPING"):
        type_mappings({"KIDNAPPING": np.zeros((4, 1, 1))})


def test_sort_mapping_removes_duplicates():
    m = [(1, 0, "Victim"), (0, 0, "Perpetrator"), (1, 0, "Victim")]
    assert sort_mapping(m) == [(0, 0, "Perpetrator"), (1, 0, "Victim")]


def table_f1(table: dict[frozenset, float]):
    return lambda m: table[frozenset(m)]


A, B, C = (0, 0, "Perpetrator"), (0, 1, "Victim"), (1, 0, "Target")


def test_pruning_removes_the_pair_giving_the_highest_f1():
    f1 = table_f1(
        {
            frozenset({A, B, C}): 0.50,
            frozenset({A, B}): 0.55,  # best removal
            frozenset({A, C}): 0.52,
            frozenset({B, C}): 0.30,
            frozenset({A}): 0.40,
            frozenset({B}): 0.20,
        }
    )
    assert prune_mapping([A, B, C], f1) == [A, B]


def test_pruning_tolerates_a_drop_of_at_most_0_001():
    f1 = table_f1(
        {
            frozenset({A, B, C}): 0.5000,
            frozenset({A, B}): 0.4992,  # drop 0.0008: removed
            frozenset({A, C}): 0.4000,
            frozenset({B, C}): 0.4000,
            frozenset({A}): 0.4980,  # drop 0.0012 from the current 0.4992: kept
            frozenset({B}): 0.3000,
        }
    )
    assert prune_mapping([A, B, C], f1) == [A, B]


def test_pruning_keeps_a_mapping_where_every_removal_hurts():
    f1 = table_f1({frozenset({A, B}): 0.5, frozenset({A}): 0.3, frozenset({B}): 0.2})
    assert prune_mapping([B, A], f1) == [A, B]


def test_pruning_tie_removes_the_first_pair():
    f1 = table_f1(
        {
            frozenset({A, B}): 0.5,
            frozenset({A}): 0.5,
            frozenset({B}): 0.5,
            frozenset(): 0.0,
        }
    )
    assert prune_mapping([A, B], f1) == [B]
