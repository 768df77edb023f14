"""Factored slots (``aesi_lib.model.factored_slots``): argument positions, semantic classes tied by
head word, the slot code, their use in ``induce`` and in slot filling."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

from aesi_lib.entities.positions import ARGUMENT_POSITIONS, argument_position, argument_positions
from aesi_lib.model.extract import factored_slot_scores, fill_slots
from aesi_lib.model.factored_slots import (
    factored_slot_labels,
    semantic_classes,
    semantic_classes_by_template,
)
from aesi_lib.model.features import EntityFeatures, FeatureVocabulary
from aesi_lib.model.induction import ModelConfig, induce
from aesi_lib.model.similarity import SimilarityOptions
from aesi_lib.model.synthetic import planted_features


@pytest.mark.parametrize(("dep", "position"), [
    ("nsubj", "subject"), ("dobj", "object"), ("iobj", "object"), ("prep_at", "locative"),
    ("prep_in", "locative"), ("prep_by", "other"), ("prep_according_to", "other"),
    ("prep_", "other"), ("nsubjpass", "other"),
])
def test_argument_position(dep: str, position: str) -> None:
    assert ARGUMENT_POSITIONS[argument_position(dep)] == position


def test_argument_positions_is_an_int_array() -> None:
    got = argument_positions(["dobj", "nsubj", "prep_on"])
    assert got.dtype == np.int64
    assert got.tolist() == [1, 0, 2]


def _grouped_heads(n_groups: int = 3, heads_per_group: int = 4, mentions_per_head: int = 5,
                   seed: int = 0) -> tuple[EntityFeatures, np.ndarray]:
    """Heads in groups with their own type and vector direction; dependencies are random."""
    rng = np.random.default_rng(seed)
    n_heads = n_groups * heads_per_group
    head_group = np.repeat(np.arange(n_groups), heads_per_group)
    centers = np.eye(n_groups, 8) * 4.0
    head_vectors = centers[head_group] + rng.normal(scale=0.3, size=(n_heads, 8))
    heads = np.repeat(np.arange(n_heads), mentions_per_head)
    n = heads.size
    deps = rng.integers(5, size=n)
    types = sp.csr_matrix((np.ones(n), (np.arange(n), head_group[heads])),
                          shape=(n, n_groups))
    features = EntityFeatures(
        head_ids=heads, head_vectors=head_vectors[heads],
        predicate_vectors=rng.normal(size=(n, 8)), dep_ids=deps, types=types,
        sentence_ids=np.arange(n) // 3, doc_ids=np.arange(n) // 9,
        pmi=sp.csr_matrix((n_heads, n_heads)), argument_positions=deps % 4,
    )
    return features, head_group[heads]


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_semantic_classes_recover_head_groups_and_tie_heads() -> None:
    features, groups = _grouped_heads()
    classes = semantic_classes(features, 3, seed=0)
    assert _same_partition(classes, groups)
    for head in np.unique(features.head_ids):
        assert len(set(classes[features.head_ids == head].tolist())) == 1


def test_classes_cut_within_each_template_use_its_own_head_words() -> None:
    # Four head groups, two to a template: within a template its two groups part, whichever
    # way a corpus-wide cut into two classes would pair the four.
    features, groups = _grouped_heads(n_groups=4)
    templates = groups // 2
    classes = semantic_classes_by_template(features, templates, 2, seed=0)
    for t in (0, 1):
        rows = templates == t
        assert _same_partition(classes[rows], groups[rows])
        np.testing.assert_array_equal(
            classes[rows], semantic_classes(features.subset(np.flatnonzero(rows)), 2, seed=0))
    for head in np.unique(features.head_ids):
        assert len(set(classes[features.head_ids == head].tolist())) == 1
    # A template with fewer head words than classes: one class per head word.
    one_head = np.where(features.head_ids == 0, 2, np.where(np.isin(features.head_ids, [1, 2]),
                                                             3, templates))
    classes = semantic_classes_by_template(features, one_head, 3, seed=0)
    assert set(classes[one_head == 2].tolist()) == {0}
    assert len(set(classes[one_head == 3].tolist())) == 2


def test_classes_within_templates_start_from_the_previous_classes_they_can_use() -> None:
    features, groups = _grouped_heads(n_groups=4)
    templates = groups // 2
    first = semantic_classes_by_template(features, templates, 2, seed=0)
    # An update: template 0 keeps its previous classes (numbers swapped), every mention of
    # template 1 is new (-1), which a warm start alone could not take.
    init = np.where(templates == 0, 1 - first, -1)
    again = semantic_classes_by_template(features, templates, 2, seed=0, init_classes=init)
    np.testing.assert_array_equal(again[templates == 0], 1 - first[templates == 0])
    assert _same_partition(again[templates == 1], groups[templates == 1])
    # Class numbers past a template's count of classes (numbered to match an earlier
    # solution) still start it from that partition.
    beyond = semantic_classes_by_template(features, templates, 2, seed=0,
                                          init_classes=first + 5)
    for t in (0, 1):
        assert _same_partition(beyond[templates == t], first[templates == t])


def test_a_head_word_may_take_another_class_in_another_template() -> None:
    features, groups = _grouped_heads(n_groups=3)
    # Template 0 holds groups 0 and 1, template 1 groups 1 and 2 (the same head words of group
    # 1 in both): with two classes each, group 1 parts from 0 in one and from 2 in the other.
    rows = np.concatenate([np.flatnonzero(groups < 2), np.flatnonzero(groups > 0)])
    both = features.subset(rows)
    templates = np.repeat([0, 1], [int(np.sum(groups < 2)), int(np.sum(groups > 0))])
    classes = semantic_classes_by_template(both, templates, 2, seed=0)
    for t in (0, 1):
        assert _same_partition(classes[templates == t], groups[rows][templates == t])
    slots = factored_slot_labels(both, 8, seed=0, templates=templates)
    np.testing.assert_array_equal(slots // 2, both.argument_positions)
    np.testing.assert_array_equal(slots % 2, classes)


def test_factored_slot_code_is_position_block_plus_class() -> None:
    features, groups = _grouped_heads()
    slots = factored_slot_labels(features, 12, seed=1)
    assert slots.min() >= 0 and slots.max() < 12
    np.testing.assert_array_equal(slots // 3, features.argument_positions)
    assert _same_partition(slots % 3, groups)


def test_factored_slots_reject_bad_inputs() -> None:
    features, _ = _grouped_heads()
    with pytest.raises(ValueError, match="multiple of 4"):
        factored_slot_labels(features, 6)
    with pytest.raises(ValueError, match="argument_positions"):
        factored_slot_labels(dataclasses.replace(features, argument_positions=None), 8)
    untyped = dataclasses.replace(features, types=sp.csr_matrix(features.types.shape))
    with pytest.raises(ValueError, match="no semantic type"):
        semantic_classes(untyped, 3, options=SimilarityOptions(cos_h_weight=0.0))
    with pytest.raises(ValueError, match="mode='sc'"):
        ModelConfig(slot_model="factored", mode="scaled", n_slots=8)
    with pytest.raises(ValueError, match="multiple of 4"):
        ModelConfig(slot_model="factored", mode="sc", n_slots=6)
    with pytest.raises(ValueError, match="slot_model"):
        ModelConfig(slot_model="product")


def test_induce_with_factored_slots() -> None:
    planted, _, _ = planted_features(600, n_templates=3, n_slots=4, seed=2)
    features = dataclasses.replace(planted, argument_positions=planted.dep_ids % 4)
    config = ModelConfig(mode="sc", n_templates=3, n_slots=8, slot_model="factored", seed=0)
    result = induce(features, config)
    np.testing.assert_array_equal(result.slot_labels // 2, features.argument_positions)
    np.testing.assert_array_equal(result.slot_labels,
                                  factored_slot_labels(features, 8, seed=0))
    assert set(result.template_labels.tolist()) <= set(range(3))
    assert "slot_step" not in result.history[0]


def test_induce_cuts_the_classes_within_the_induced_templates() -> None:
    planted, _, _ = planted_features(600, n_templates=3, n_slots=4, seed=2)
    features = dataclasses.replace(planted, argument_positions=planted.dep_ids % 4)
    config = ModelConfig(mode="sc", n_templates=3, n_slots=8, slot_model="factored", seed=0,
                         class_scope="template")
    result = induce(features, config)
    np.testing.assert_array_equal(result.slot_labels // 2, features.argument_positions)
    np.testing.assert_array_equal(
        result.slot_labels,
        factored_slot_labels(features, 8, seed=0, templates=result.template_labels))
    corpus = induce(features, dataclasses.replace(config, class_scope="corpus"))
    np.testing.assert_array_equal(result.template_labels, corpus.template_labels)


def test_classes_within_templates_need_factored_slots() -> None:
    with pytest.raises(ValueError, match="class_scope"):
        ModelConfig(mode="sc", n_slots=8, class_scope="template")


def test_fill_slots_keeps_position_and_finds_class() -> None:
    features, groups = _grouped_heads()
    slots = factored_slot_labels(features, 12, seed=0)
    vocab = FeatureVocabulary(
        heads=tuple(f"h{i}" for i in range(features.pmi.shape[0])),
        deps=tuple(f"d{i}" for i in range(5)),
        types=tuple(f"t{i}" for i in range(features.types.shape[1])),
        documents=(), oov_rate=0.0)
    scores = factored_slot_scores(features, vocab, slots, features, vocab, 12)
    assert scores.shape == (features.n_entities, 12)
    # Outside a mention's own position block every score is -inf.
    for i, position in enumerate(features.argument_positions):
        outside = np.ones(12, dtype=bool)
        outside[position * 3:(position + 1) * 3] = False
        assert np.all(np.isinf(scores[i, outside]))
    config = ModelConfig(n_templates=1, n_slots=12, mode="sc", slot_model="factored")
    fill = fill_slots(features, vocab, np.zeros(features.n_entities, dtype=np.int64), slots,
                      features, vocab, config)
    # Training mentions re-filled take their head's class: their own slots.
    np.testing.assert_array_equal(fill.slot, slots)
    assert fill.slot_known.all()
    # By similarity alone (every head unknown) they land in their own slots too: the classes
    # are well separated.
    strangers = dataclasses.replace(vocab, heads=tuple(f"x{h}" for h in vocab.heads))
    by_similarity = fill_slots(features, vocab, np.zeros(features.n_entities, dtype=np.int64),
                               slots, features, strangers, config)
    assert not by_similarity.slot_known.any()
    np.testing.assert_array_equal(by_similarity.slot, np.argmax(scores, axis=1))
