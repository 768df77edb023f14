"""experiments/supervised_bounds.py: the greedy, key-chosen changes whose scores bound issue 48's
levers (a) and (c)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aesi_lib.evaluate.counting import count_message_slot, f1_score
from aesi_lib.evaluate.gold import GOLD_SLOTS, GoldEntity
from experiments import supervised_bounds as bounds


def entity(text: str, optional: bool = False) -> GoldEntity:
    return GoldEntity((text,), optional)


def gold_of(**slots: list[GoldEntity]) -> dict[str, tuple[GoldEntity, ...]]:
    return {g: tuple(slots.get(g, [])) for g in GOLD_SLOTS}


# Two messages; role (1, 0) feeds Perpetrator, (1, 2) Victim; template 0 is mapped to nothing.
GOLD = {"a": gold_of(Perpetrator=[entity("FMLN")], Victim=[entity("priests")]),
        "b": gold_of(Perpetrator=[entity("police", optional=True)])}
ROLE_GOLD = {(1, 0): {"Perpetrator"}, (1, 2): {"Victim"}}
DOCS = np.array(["a", "a", "a", "b", "b", "c"])
HEADS = np.array(["fmln", "priests", "army", "police", "army", "fmln"])
ROLES = [(0, 0), (1, 2), (1, 0), (0, 0), (1, 0), (1, 0)]


def direct_totals(roles: list[tuple[int, int]]) -> np.ndarray:
    totals = np.zeros(3, dtype=np.int64)
    for d, slots in GOLD.items():
        for g, entities in slots.items():
            guesses = [h for h, doc, r in zip(HEADS, DOCS, roles, strict=True)
                       if doc == d and g in ROLE_GOLD.get(r, ())]
            c = count_message_slot(guesses, entities)
            totals += [c.tp, c.fp, c.fn]
    return totals


def test_the_cell_scorer_counts_as_the_protocol_and_scores_a_change_before_making_it():
    scorer = bounds.CellScorer(GOLD, ROLE_GOLD, DOCS, HEADS, ROLES)
    # a: victims found, army a false perpetrator, FMLN missed; b: army false, police optional.
    assert scorer.totals.tolist() == direct_totals(ROLES).tolist() == [1, 2, 1]
    change = (np.array([0]), [(1, 0)])           # fmln of message a into the perpetrator role
    after = list(ROLES)
    after[0] = (1, 0)
    expected = f1_score(*direct_totals(after)) - f1_score(*direct_totals(ROLES))
    assert scorer.gain(change) == pytest.approx(expected)
    assert scorer.totals.tolist() == [1, 2, 1]   # gain leaves the state alone
    scorer.apply(change)
    assert scorer.totals.tolist() == direct_totals(after).tolist() == [2, 2, 0]
    assert scorer.roles[0] == (1, 0)
    # Message c has no key: its mentions change nothing.
    assert scorer.gain((np.array([5]), [(0, 0)])) == 0.0


def test_greedy_changes_make_the_best_change_first_and_stop_when_nothing_gains():
    scorer = bounds.CellScorer(GOLD, ROLE_GOLD, DOCS, HEADS, ROLES)
    candidates = {
        "fmln in": (np.array([0]), [(1, 0)]),
        "army b out": (np.array([4]), [(0, 0)]),
        "army a out": (np.array([2]), [(0, 0)]),
        "priests out": (np.array([1]), [(0, 0)]),
    }
    # F1 0.4 -> 0.667 (fmln in) -> 0.8 (either army out; ties go to the first name) -> 1.
    assert bounds.greedy_changes(scorer, dict(candidates), steps=2) == ["fmln in", "army a out"]
    scorer = bounds.CellScorer(GOLD, ROLE_GOLD, DOCS, HEADS, ROLES)
    made = bounds.greedy_changes(scorer, candidates, steps=5)
    assert made == ["fmln in", "army a out", "army b out"]
    assert scorer.totals.tolist() == [2, 0, 0]
    assert bounds.greedy_changes(scorer, candidates, steps=5) == []


def labels() -> object:
    # Template 1: heads x (class 1) and y (class 0); 2 classes per position, 4 positions.
    templates = np.array([1, 1, 1, 0, 0, 0])
    cut_slots = np.array([1, 2 + 1, 0, 0, 2, 4])
    return bounds.Labels(templates, cut_slots, cut_slots.copy())


def test_a_moved_mention_keeps_its_position_and_takes_its_heads_class_there():
    heads = np.array(["x", "x", "y", "x", "z", "y"])
    positions = np.array([0, 1, 0, 1, 1, 2])
    tables = bounds.class_tables(labels(), heads, positions, 1, 2)
    moved = bounds.nearest_class_slots(tables, heads[3:], positions[3:], 2)
    # x: class 1 in template 1 -> object slot 3; z unseen -> the object position's class 1;
    # y: class 0 -> locative slot 4.
    assert moved.tolist() == [3, 3, 4]


def test_unit_moves_touch_only_mentions_outside_the_mapped_templates():
    heads = np.array(["x", "x", "y", "x", "z", "y"])
    positions = np.array([0, 1, 0, 1, 1, 2])
    units = np.array(["kill", "kill", "say", "kill", "say", "say"])
    moves = bounds.unit_candidates(units, labels(), heads, positions, [1], 2, {(1, 3): 3})
    assert sorted(moves) == ["kill -> 1", "say -> 1"]
    (rows, roles), cut = moves["kill -> 1"]
    assert rows.tolist() == [3] and roles == [(1, 3)] and cut.tolist() == [3]


def test_slot_merges_move_a_mapped_templates_slot_into_its_mapped_slots_only():
    merges = bounds.merge_candidates(labels(), [1], {(1, 0), (0, 2)})
    assert sorted(merges) == ["slot 1:1 -> 1:0", "slot 1:3 -> 1:0"]
    rows, roles = merges["slot 1:3 -> 1:0"]
    assert rows.tolist() == [1] and roles == [(1, 0)]


def test_event_documents_and_the_allowed_mentions_limit_where_a_unit_moves():
    templates = np.array([1, 1, 1, 0, 0, 0])
    documents = np.array(["a", "a", "a", "a", "b", "b"])
    held = bounds.event_documents(templates, documents, [1], least=3)
    assert held[1].tolist() == [True, True, True, True, False, False]
    heads = np.array(["x", "x", "y", "x", "z", "y"])
    positions = np.array([0, 1, 0, 1, 1, 2])
    units = np.array(["kill", "kill", "say", "say", "say", "say"])
    moves = bounds.unit_candidates(units, labels(), heads, positions, [1], 2, {}, allowed=held,
                                   suffix=" in event documents")
    assert sorted(moves) == ["say in event documents -> 1"]
    (rows, _), _ = moves["say in event documents -> 1"]
    assert rows.tolist() == [3]


def test_relevance_scores_learn_from_the_keyed_documents_and_score_them_out_of_fold():
    relevant_texts = [f"guerrillas bombed the bank in town {i}" for i in range(6)]
    other_texts = [f"the minister discussed the budget in session {i}" for i in range(6)]
    texts = relevant_texts + other_texts + ["guerrillas bombed a bank", "the budget session"]
    train = np.array([True] * 12 + [False, False])
    relevant = np.array([True] * 6 + [False] * 6 + [False, False])
    scores = bounds.relevance_scores(texts, train, relevant, folds=3)
    assert scores.shape == (14,) and ((scores >= 0) & (scores <= 1)).all()
    assert scores[12] > 0.5 > scores[13]
    # Out of fold: every keyed document is scored by a model that did not see it, and the
    # relevant ones still score above the others.
    assert scores[:6].min() > scores[6:12].max()


def test_filtered_f1_turns_a_dropped_messages_finds_into_misses_and_drops_its_false_ones():
    per_message = pd.DataFrame({"doc_id": ["a", "a", "b"], "tp": [2, 0, 0], "fp": [1, 0, 3],
                                "fn": [1, 0, 0]})
    assert bounds.filtered_f1(per_message, {}) == pytest.approx(f1_score(2, 4, 1))
    assert bounds.filtered_f1(per_message, {"b": False}) == pytest.approx(f1_score(2, 1, 1))
    assert bounds.filtered_f1(per_message, {"a": False}) == pytest.approx(f1_score(0, 3, 3))
