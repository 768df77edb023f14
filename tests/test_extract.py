"""Slot filling with an existing schema (``aesi_lib.model.extract``): known units take their
unit's label, scores are the mean W_T / W_S similarity to each cluster's members (the rows of
the run's own graphs, checked against the dense definitions), words are matched by name, and
held-out mentions of a planted corpus land in their planted clusters."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp
from dense_reference import dense_slot_similarity, dense_template_similarity

from aesi_lib.model.extract import align_features, fill_slots, slot_scores, template_scores
from aesi_lib.model.features import EntityFeatures, FeatureVocabulary
from aesi_lib.model.induction import ModelConfig, induce
from aesi_lib.model.similarity import SimilarityOptions, slot_similarity, template_similarity
from aesi_lib.model.synthetic import planted_features


def _vocab(features: EntityFeatures) -> FeatureVocabulary:
    n_predicates = 0 if features.predicate_ids is None else int(features.predicate_ids.max()) + 1
    return FeatureVocabulary(
        heads=tuple(f"head{i}" for i in range(features.pmi.shape[0])),
        deps=tuple(f"dep{i}" for i in range(int(features.dep_ids.max()) + 1)),
        types=tuple(f"type{i}" for i in range(features.types.shape[1])),
        documents=(), oov_rate=0.0,
        predicates=tuple(f"pred{i:03d}" for i in range(n_predicates)))


@pytest.fixture(scope="module")
def planted() -> tuple[EntityFeatures, np.ndarray, np.ndarray]:
    return planted_features(700, seed=3)


OPTIONS = [
    SimilarityOptions(),
    SimilarityOptions(pmi_weight=2.0, type_weight=0.5, cos_p_weight=0.25),
]


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "other-weights"])
def test_scores_are_mean_similarity_to_members(planted, options):
    """Treating the training mentions as new ones, score(i, c) = (W @ X_c)[i] / |c|."""
    features, templates, slots = planted
    vocab = _vocab(features)
    ts = template_scores(features, vocab, templates, features, vocab, options)
    X = np.eye(templates.max() + 1)[templates]
    expected = (template_similarity(features, options) @ X) / X.sum(axis=0)
    np.testing.assert_allclose(ts, expected, rtol=1e-9, atol=1e-12)

    ss = slot_scores(features, vocab, slots, features, vocab, options)
    X = np.eye(slots.max() + 1)[slots]
    expected = (slot_similarity(features, options) @ X) / X.sum(axis=0)
    np.testing.assert_allclose(ss, expected, rtol=1e-9, atol=1e-12)


def test_words_are_matched_by_name_not_by_index(planted):
    """New mentions with their own (reversed) vocabulary ids score as the same words do."""
    features, templates, slots = planted
    vocab = _vocab(features)
    rows = np.arange(0, features.n_entities, 7)
    new = features.subset(rows)
    n_heads, n_deps = len(vocab.heads), len(vocab.deps)
    rev_types = sp.csr_matrix(new.types)[:, ::-1]
    renamed = EntityFeatures(
        head_ids=n_heads - 1 - new.head_ids, head_vectors=new.head_vectors,
        predicate_vectors=new.predicate_vectors, dep_ids=n_deps - 1 - new.dep_ids,
        types=rev_types, sentence_ids=new.sentence_ids, doc_ids=new.doc_ids,
        pmi=sp.csr_matrix((n_heads, n_heads)))
    renamed_vocab = FeatureVocabulary(vocab.heads[::-1], vocab.deps[::-1], vocab.types[::-1],
                                      (), 0.0)
    direct = fill_slots(features, vocab, templates, slots, new, vocab)
    via_names = fill_slots(features, vocab, templates, slots, renamed, renamed_vocab)
    np.testing.assert_allclose(via_names.template_scores, direct.template_scores, rtol=1e-12)
    np.testing.assert_allclose(via_names.slot_scores, direct.slot_scores, rtol=1e-12)
    # The training PMI counted: without it the template scores differ.
    no_pmi = template_scores(features, vocab, templates, new, vocab,
                             SimilarityOptions(pmi_weight=0.0))
    assert not np.allclose(no_pmi, direct.template_scores)


def test_unknown_words_contribute_nothing(planted):
    """Heads, labels and types the schema never saw add no PMI, dependency or type score."""
    features, templates, slots = planted
    vocab = _vocab(features)
    new = features.subset(np.arange(20))
    strangers = FeatureVocabulary(tuple(f"x{h}" for h in vocab.heads),
                                  tuple(f"x{d}" for d in vocab.deps),
                                  tuple(f"x{t}" for t in vocab.types), (), 0.0)
    only_cos_t = template_scores(features, vocab, templates, new, vocab,
                                 SimilarityOptions(pmi_weight=0.0))
    np.testing.assert_allclose(
        template_scores(features, vocab, templates, new, strangers), only_cos_t)
    only_cos_s = slot_scores(features, vocab, slots, new, vocab,
                             SimilarityOptions(dep_weight=0.0, type_weight=0.0))
    np.testing.assert_allclose(slot_scores(features, vocab, slots, new, strangers), only_cos_s)


def test_held_out_mentions_land_in_their_planted_clusters():
    """Schema = the planted labels of 80% of the documents; the other 20% are filled."""
    features, templates, slots = planted_features(3000, seed=5, noise=0.5)
    vocab = _vocab(features)
    held_out = features.doc_ids % 5 == 0
    train_rows, new_rows = np.flatnonzero(~held_out), np.flatnonzero(held_out)
    fill = fill_slots(features.subset(train_rows), vocab, templates[train_rows],
                      slots[train_rows], features.subset(new_rows), vocab)
    # Exact labels, no relabelling needed: the schema's clusters are the planted ones.
    template_acc = float(np.mean(fill.template == templates[new_rows]))
    slot_acc = float(np.mean(fill.slot == slots[new_rows]))
    assert template_acc > 0.6, template_acc       # chance: 1/6
    assert slot_acc > 0.6, slot_acc               # chance: 1/4


def test_empty_cluster_is_never_chosen_and_bad_labels_raise(planted):
    features, templates, slots = planted
    vocab = _vocab(features)
    shifted = np.where(templates == 0, 1, templates)           # template 0 has no member
    six = ModelConfig(n_templates=6, n_slots=4, mode="sc")
    fill = fill_slots(features, vocab, shifted, slots, features, vocab, six)
    assert np.all(np.isneginf(fill.template_scores[:, 0]))
    assert not np.any(fill.template == 0)
    with pytest.raises(ValueError, match="labels must lie"):
        fill_slots(features, vocab, templates, slots, features, vocab,
                   ModelConfig(n_templates=2, n_slots=4, mode="sc"))


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "other-weights"])
def test_scores_of_new_mentions_match_the_dense_rows(planted, options):
    """Held-out mentions, some words unknown: scores = dense W[new, train] @ X / |c|."""
    features, templates, slots = planted
    vocab = _vocab(features)
    train_rows = np.flatnonzero(features.doc_ids % 4 != 0)
    new_rows = np.flatnonzero(features.doc_ids % 4 == 0)
    train = features.subset(train_rows)
    new = features.subset(new_rows)
    # Half the heads and one label are unknown to the schema under the new vocabulary.
    new_vocab = FeatureVocabulary(
        tuple(h if i % 2 else f"unseen-{h}" for i, h in enumerate(vocab.heads)),
        vocab.deps[:-1] + ("unseen-dep",), vocab.types, (), 0.0)
    rows = align_features(new, new_vocab, train, vocab)
    assert np.any(rows.head_ids == -1) and np.any(rows.head_ids >= 0)
    X = np.eye(templates.max() + 1)[templates[train_rows]]
    expected = dense_template_similarity(train, options, rows) @ X / X.sum(axis=0)
    got = template_scores(train, vocab, templates[train_rows], new, new_vocab, options)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    X = np.eye(slots.max() + 1)[slots[train_rows]]
    expected = dense_slot_similarity(train, options, rows) @ X / X.sum(axis=0)
    got = slot_scores(train, vocab, slots[train_rows], new, new_vocab, options)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def _tied_corpus(seed: int = 2) -> EntityFeatures:
    """A planted corpus with predicate ids and argument positions (the default's units)."""
    features, _, _ = planted_features(1500, seed=seed)
    predicate_ids = np.unique(np.round(features.predicate_vectors[:, 0], 1),
                              return_inverse=True)[1].astype(np.int64)
    return dataclasses.replace(features, predicate_ids=predicate_ids,
                               argument_positions=features.dep_ids % 4)


TIED = ModelConfig(n_templates=4, n_slots=8, mode="sc", template_unit="predicate",
                   slot_unit="pattern", slot_model="factored")


TIED_BY_TEMPLATE = dataclasses.replace(TIED, class_scope="template")


@pytest.mark.parametrize("config", [
    TIED,
    TIED_BY_TEMPLATE,
    ModelConfig(n_templates=4, n_slots=4, mode="sc", template_unit="predicate",
                slot_unit="pattern"),
], ids=["factored", "factored-by-template", "tied-cut"])
def test_training_mentions_get_back_their_induced_labels(config):
    """The run's own rule: re-extracting the training mentions reproduces the solve."""
    features = _tied_corpus()
    vocab = _vocab(features)
    result = induce(features, config)
    fill = fill_slots(features, vocab, result.template_labels, result.slot_labels, features,
                      vocab, config)
    assert fill.template_known.all() and fill.slot_known.all()
    np.testing.assert_array_equal(fill.template, result.template_labels)
    np.testing.assert_array_equal(fill.slot, result.slot_labels)


def test_unseen_units_are_placed_by_similarity():
    features = _tied_corpus()
    vocab = _vocab(features)
    result = induce(features, TIED)
    renamed = FeatureVocabulary(vocab.heads, vocab.deps, vocab.types, (), 0.0,
                                tuple(f"new-{p}" for p in vocab.predicates))
    fill = fill_slots(features, vocab, result.template_labels, result.slot_labels, features,
                      renamed, TIED)
    assert not fill.template_known.any() and fill.slot_known.all()
    # Each unseen predicate is placed once, as the training tie would: all its mentions take
    # the best template of their summed scores.
    for p in np.unique(features.predicate_ids):
        members = features.predicate_ids == p
        assert len(set(fill.template[members])) == 1
        assert fill.template[members][0] == np.argmax(fill.template_scores[members].sum(axis=0))
    # Factored slots keep the mention's own argument position.
    np.testing.assert_array_equal(fill.slot // 2, features.argument_positions)


def test_an_unseen_head_word_takes_one_class_in_every_position():
    features = _tied_corpus()
    vocab = _vocab(features)
    result = induce(features, TIED)
    renamed = FeatureVocabulary(tuple(f"new-{h}" for h in vocab.heads), vocab.deps, vocab.types,
                                (), 0.0, vocab.predicates)
    fill = fill_slots(features, vocab, result.template_labels, result.slot_labels, features,
                      renamed, TIED)
    assert fill.template_known.all() and not fill.slot_known.any()
    n_classes = TIED.n_slots // 4
    np.testing.assert_array_equal(fill.slot // n_classes, features.argument_positions)
    for h in np.unique(features.head_ids):
        members = features.head_ids == h
        assert len(set(fill.slot[members] % n_classes)) == 1


def test_classes_within_templates_are_found_within_the_mentions_template():
    """class_scope="template": a head word's class is its class in the new mention's own
    template; where the template never had the head word, the class is placed by similarity to
    that template's classes only, once per (template, head word)."""
    features = _tied_corpus()
    vocab = _vocab(features)
    result = induce(features, TIED_BY_TEMPLATE)
    lt, ls = result.template_labels, result.slot_labels
    n_classes = TIED_BY_TEMPLATE.n_slots // 4
    # Move every mention to the predicate of another template: some (template, head word)
    # pairs are then new, though every head word is known.
    first_predicate = {t: int(features.predicate_ids[lt == t][0]) for t in np.unique(lt)}
    moved_to = (lt + 1) % (lt.max() + 1)
    new = dataclasses.replace(features, predicate_ids=np.asarray(
        [first_predicate[t] for t in moved_to], dtype=np.int64))
    fill = fill_slots(features, vocab, lt, ls, new, vocab, TIED_BY_TEMPLATE)
    np.testing.assert_array_equal(fill.template, moved_to)
    pairs = set(zip(lt.tolist(), features.head_ids.tolist(), strict=True))
    seen = np.asarray([(t, h) in pairs for t, h in zip(moved_to, features.head_ids,
                                                                    strict=True)])
    assert seen.any() and (~seen).any()
    np.testing.assert_array_equal(fill.slot_known, seen)
    np.testing.assert_array_equal(fill.slot // n_classes, features.argument_positions)
    for i in np.flatnonzero(seen)[:50]:
        same = (lt == moved_to[i]) & (features.head_ids == features.head_ids[i])
        assert fill.slot[i] % n_classes == ls[same][0] % n_classes
    classes_of = {t: set((ls[lt == t] % n_classes).tolist()) for t in np.unique(lt)}
    new_pairs = {(t, h) for t, h, k in zip(moved_to, features.head_ids, seen, strict=True)
                 if not k}
    for t, h in new_pairs:
        members = (moved_to == t) & (features.head_ids == h)
        got = set((fill.slot[members] % n_classes).tolist())
        assert len(got) == 1 and got <= classes_of[t]
