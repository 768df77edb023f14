"""Subject classes merged by their predicate profiles (aesi_lib.model.subject_merge)."""

from __future__ import annotations

import numpy as np

from aesi_lib.model.config import ModelConfig
from aesi_lib.model.subject_merge import complete_linkage, merged_slots, subject_merge_table
from aesi_lib.run.pipeline import role_slots, role_table

# 4 positions x 3 classes: subject slots 0-2, object slots 3-5.
N_SLOTS = 12


def test_complete_linkage_joins_only_groups_whose_every_pair_is_close():
    similarity = np.array([[1.0, 0.95, 0.9, 0.1],
                           [0.95, 1.0, 0.5, 0.1],
                           [0.9, 0.5, 1.0, 0.1],
                           [0.1, 0.1, 0.1, 1.0]])
    # 0 and 1 join first; 2 is close to 0 but not to 1, so it stays apart at 0.8.
    assert complete_linkage(similarity, 0.8) == [[0, 1], [2], [3]]
    assert complete_linkage(similarity, 0.4) == [[0, 1, 2], [3]]
    assert complete_linkage(similarity, 0.99) == [[0], [1], [2], [3]]


def _corpus():
    """Template 0: subject slots 0 and 1 are subjects of attack and kill alike, slot 2 of
    explode; object slots 3 and 4 are objects of the same predicates too. Template 1: one
    subject slot with the same profile as template 0's slot 0."""
    templates = [0] * 14 + [1] * 2
    slots = [0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 0, 5, 1, 1]
    predicates = ["attack", "attack", "kill", "attack", "attack", "kill", "explode", "explode",
                  "attack", "kill", "attack", "kill", "attack", "kill", "attack", "kill"]
    return np.array(templates), np.array(slots), np.array(predicates)


def test_subject_slots_with_one_profile_become_one_role_and_others_stay():
    templates, slots, predicates = _corpus()
    table = subject_merge_table(templates, slots, predicates, 2, N_SLOTS, 0.9)
    assert table.shape == (2, N_SLOTS)
    assert table[0, 1] == 0 and table[0, 0] == 0
    assert table[0, 2] == 2  # the instruments' slot has other predicates
    assert table[0, 4] == 4  # objects are never merged
    assert (table[1] == np.arange(N_SLOTS)).all()  # one subject slot: nothing to merge
    roles = merged_slots(templates, slots, table)
    assert (roles[slots == 1] == np.where(templates[slots == 1] == 0, 0, 1)).all()
    assert (roles[slots != 1] == slots[slots != 1]).all()


def test_a_threshold_above_every_cosine_merges_nothing():
    templates, slots, predicates = _corpus()
    table = subject_merge_table(templates, slots, predicates, 2, N_SLOTS, 1.0 + 1e-9)
    assert (merged_slots(templates, slots, table) == slots).all()


def test_unlabelled_mentions_stay_unlabelled():
    table = np.tile(np.arange(N_SLOTS), (2, 1))
    table[0, 1] = 0
    out = merged_slots(np.array([0, 0, -1]), np.array([1, -1, 1]), table)
    assert out.tolist() == [0, -1, 1]


def test_roles_merge_under_factored_slots_only():
    templates, slots, predicates = _corpus()
    cut = ModelConfig(n_templates=2, n_slots=N_SLOTS, mode="sc")
    assert role_table(templates, slots, predicates, cut) is None
    assert (role_slots(templates, slots, None) == slots).all()
    factored = ModelConfig(n_templates=2, n_slots=N_SLOTS, mode="sc", slot_model="factored")
    table = role_table(templates, slots, predicates, factored)
    assert table is not None and table[0, 1] == 0 and table[0, 2] == 2


def test_new_mentions_take_the_roles_their_training_twins_have():
    """The extraction's rule (``pipeline.fill_documents``): the cut's slot by the unit rule,
    then the role table of the run's own labels, gives the training mentions their roles."""
    from test_extract import TIED_BY_TEMPLATE, _tied_corpus, _vocab

    from aesi_lib.model.extract import fill_slots
    from aesi_lib.model.induction import induce

    features = _tied_corpus()
    vocab = _vocab(features)
    config = TIED_BY_TEMPLATE
    result = induce(features, config)
    predicates = np.asarray(vocab.predicates, dtype=object)[features.predicate_ids]
    # A cosine this low joins every template's subject slots, so some mentions must move.
    table = role_table(result.template_labels, result.slot_labels, predicates, config, 1e-6)
    trained = role_slots(result.template_labels, result.slot_labels, table)
    fill = fill_slots(features, vocab, result.template_labels, result.slot_labels, features,
                      vocab, config)
    np.testing.assert_array_equal(role_slots(fill.template, fill.slot, table), trained)
    assert (trained != result.slot_labels).any(), "some subject slots should merge"
