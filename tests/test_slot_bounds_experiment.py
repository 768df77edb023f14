"""experiments/slot_bounds.py: the slots a run's templates could hold, on the hand-made
annotated file of tests/test_evaluate_annotations.py."""

from __future__ import annotations

import numpy as np
from test_evaluate_annotations import export, write_annotations

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.evaluate.annotations import read_annotations
from experiments import slot_bounds


def test_each_mention_takes_the_role_the_evaluation_matches_it_to(tmp_path):
    write_annotations(tmp_path / "gold.jsonl")
    gold = read_annotations(tmp_path / "gold.jsonl")
    roles = slot_bounds.matched_roles(export(), gold)
    # The files' head lies outside the victim *city of Baltimore*, the flaw has no role.
    assert roles.tolist() == ["Attacker", "Data", "Attacker", None, "Releaser", None,
                              "Attacker", "Victim"]


def test_the_bound_gives_each_role_a_slot_of_its_own_and_keeps_the_rest():
    slots = np.array([0, 1, 0, 1, 5])
    roles = np.array(["Attacker", None, "Attacker", None, "Victim"], dtype=object)
    out = slot_bounds.gold_role_slots(slots, roles)
    assert out[0] == out[2] != out[4]
    assert min(out[0], out[4]) > slots.max()
    assert out[[1, 3]].tolist() == [1, 1]


def test_the_bound_scores_at_least_the_run(tmp_path):
    write_annotations(tmp_path / "gold.jsonl")
    gold = read_annotations(tmp_path / "gold.jsonl")
    readings = slot_bounds.readings(export(), gold)
    run = slot_bounds.macros(readings["run"](), gold, 0)
    bound = slot_bounds.macros(readings["gold roles"](), gold, 0, slot_bounds.SYSTEMS[:1])
    assert set(run) == {"aesi_single_macro", "aesi_multi_macro", "predicate_single_macro",
                        "predicate_multi_macro"}
    assert bound["aesi_single_macro"] >= run["aesi_single_macro"]
    assert bound["aesi_multi_macro"] >= run["aesi_multi_macro"]
    positions = [ARGUMENT_POSITIONS[s] for s in readings["position"]()["slot"]]
    assert positions == ["subject", "object"] * 3 + ["subject", "other"]  # from: other
    assert set(readings["gold roles, one template"]()["template"]) == {0}


def test_patterns_group_predicates_by_their_heads_within_template_and_position():
    templates = np.array([0, 0, 0, 0, 0, 1])
    positions = np.array([1, 1, 1, 1, 0, 1])
    predicates = np.array(["steal", "steal", "leak", "patch", "steal", "steal"])
    vectors = np.array([[1.0, 0.0], [0.9, 0.1], [1.0, 0.05], [0.0, 1.0], [1.0, 0.0],
                        [1.0, 0.0]])
    out = slot_bounds.pattern_slots(templates, positions, predicates, vectors, groups=2)
    assert out[0] == out[1] == out[2]  # steal and leak take data alike
    assert out[3] != out[0]  # patch takes something else
    assert len({out[0], out[4], out[5]}) == 3  # another position, another template
    again = slot_bounds.pattern_slots(templates, positions, predicates, vectors, groups=2)
    np.testing.assert_array_equal(out, again)
