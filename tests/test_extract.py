"""Slot filling with an existing schema (``aesi_lib.extract``): scores are the mean W_T / W_S
similarity to each cluster's members, words are matched by name, and held-out mentions of a
planted corpus land in their planted clusters."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from aesi_lib.extract import fill_slots, slot_scores, template_scores
from aesi_lib.features import EntityFeatures, FeatureVocabulary
from aesi_lib.model import planted_features
from aesi_lib.similarity import SimilarityOptions, slot_similarity, template_similarity


def _vocab(features: EntityFeatures) -> FeatureVocabulary:
    return FeatureVocabulary(
        heads=tuple(f"head{i}" for i in range(features.pmi.shape[0])),
        deps=tuple(f"dep{i}" for i in range(int(features.dep_ids.max()) + 1)),
        types=tuple(f"type{i}" for i in range(features.types.shape[1])),
        documents=(), oov_rate=0.0)


def _subset(features: EntityFeatures, rows: np.ndarray) -> EntityFeatures:
    return EntityFeatures(
        head_ids=features.head_ids[rows], head_vectors=features.head_vectors[rows],
        predicate_vectors=features.predicate_vectors[rows], dep_ids=features.dep_ids[rows],
        types=features.types[rows], sentence_ids=features.sentence_ids[rows],
        doc_ids=features.doc_ids[rows], pmi=features.pmi)


@pytest.fixture(scope="module")
def planted() -> tuple[EntityFeatures, np.ndarray, np.ndarray]:
    return planted_features(700, seed=3)


OPTIONS = [
    SimilarityOptions(),
    SimilarityOptions(cosine="raw", term_normalization="mean_degree"),
    SimilarityOptions(cosine="clip", pmi_weight=2.0, type_weight=0.5, pmi="raw"),
]


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "raw-meandeg", "clip-weights"])
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
    new = _subset(features, rows)
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
    new = _subset(features, np.arange(20))
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
    fill = fill_slots(_subset(features, train_rows), vocab, templates[train_rows],
                      slots[train_rows], _subset(features, new_rows), vocab)
    # Exact labels, no relabelling needed: the schema's clusters are the planted ones.
    template_acc = float(np.mean(fill.template == templates[new_rows]))
    slot_acc = float(np.mean(fill.slot == slots[new_rows]))
    assert template_acc > 0.6, template_acc       # chance: 1/6
    assert slot_acc > 0.6, slot_acc               # chance: 1/4


def test_empty_cluster_is_never_chosen_and_bad_labels_raise(planted):
    features, templates, slots = planted
    vocab = _vocab(features)
    shifted = np.where(templates == 0, 1, templates)           # template 0 has no member
    fill = fill_slots(features, vocab, shifted, slots, features, vocab, n_templates=6)
    assert np.all(np.isneginf(fill.template_scores[:, 0]))
    assert not np.any(fill.template == 0)
    with pytest.raises(ValueError, match="labels must lie"):
        fill_slots(features, vocab, templates, slots, features, vocab, n_templates=2)
