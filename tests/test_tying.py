"""Tied units: cutting Gᵀ W G equals cutting W with labels shared inside each unit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.sparse.linalg import aslinearoperator
from sklearn.metrics import adjusted_rand_score

from aesi_lib.model.features import FeatureVocabulary
from aesi_lib.model.induction import ModelConfig, induce
from aesi_lib.model.ncut import ncut_objective
from aesi_lib.model.sc import solve_sc
from aesi_lib.model.similarity import slot_similarity, template_similarity
from aesi_lib.model.synthetic import planted_features
from aesi_lib.model.tying import tied_operator, unit_indicator
from aesi_lib.model.units import label_units, unit_names


def test_tied_operator_is_the_aggregated_graph():
    rng = np.random.default_rng(0)
    W = rng.random((9, 9))
    W = W + W.T
    units = np.array([0, 1, 1, 2, 0, 2, 2, 3, 3])
    G = unit_indicator(units).toarray()
    op = tied_operator(aslinearoperator(W), unit_indicator(units))
    np.testing.assert_allclose(op @ np.eye(4), G.T @ W @ G)
    np.testing.assert_allclose(op.matvec(np.ones(4)), G.T @ W.sum(axis=1))


def test_tied_objective_equals_the_mention_objective_of_the_expanded_labels():
    rng = np.random.default_rng(1)
    W = rng.random((12, 12))
    W = W + W.T
    units = np.array([0, 0, 1, 1, 1, 2, 3, 3, 4, 4, 5, 5])
    G = unit_indicator(units)
    unit_labels = np.array([0, 1, 0, 2, 1, 2])
    tied = ncut_objective(tied_operator(aslinearoperator(W), G), G.T @ W.sum(axis=1),
                          unit_labels, 3)
    mention = ncut_objective(aslinearoperator(W), W.sum(axis=1), unit_labels[units], 3)
    assert tied == pytest.approx(mention)


def test_singleton_units_reproduce_the_untied_cut():
    features, _, _ = planted_features(600, seed=3)
    W_T, W_S = template_similarity(features), slot_similarity(features)
    plain = solve_sc(W_T, W_S, 6, 4, seed=0)
    singletons = np.arange(features.n_entities)
    tied = solve_sc(W_T, W_S, 6, 4, seed=0, units_t=singletons, units_s=singletons)
    assert adjusted_rand_score(plain[0], tied[0]) == pytest.approx(1.0)
    assert adjusted_rand_score(plain[1], tied[1]) == pytest.approx(1.0)


@pytest.mark.parametrize("mode", ["sc", "scaled"])
def test_units_share_labels_and_planted_templates_survive(mode):
    features, templates, _ = planted_features(1500, seed=5, noise=1.5)
    # One "predicate" per (planted template, random bucket): tying must not break templates.
    rng = np.random.default_rng(0)
    predicate_ids = templates * 10 + rng.integers(10, size=templates.size)
    features = replace(features, predicate_ids=predicate_ids)
    config = ModelConfig(mode=mode, constraint_weight=0.05, template_unit="predicate",
                         slot_unit="pattern", max_iter=3)
    result = induce(features, config)
    units_t, units_s = label_units(features, config)
    for units, labels in ((units_t, result.template_labels), (units_s, result.slot_labels)):
        for unit in np.unique(units):
            assert len(np.unique(labels[units == unit])) == 1
    assert adjusted_rand_score(templates, result.template_labels) > 0.5


def test_predicate_units_need_predicate_ids():
    features, _, _ = planted_features(200, seed=1)
    with pytest.raises(ValueError, match="predicate_ids"):
        induce(replace(features, predicate_ids=None), ModelConfig(template_unit="predicate"))
    with pytest.raises(ValueError, match="template_unit"):
        ModelConfig(template_unit="sentence")


def test_unit_names_partition_the_mentions_as_the_unit_codes_do():
    """One rule: the named units (used to label new mentions) are the tied units."""
    features, templates, _ = planted_features(800, seed=4)
    features = replace(features, predicate_ids=templates * 3 + features.dep_ids % 3)
    vocab = FeatureVocabulary(
        heads=tuple(f"h{i}" for i in range(features.pmi.shape[0])),
        deps=tuple(f"d{i}" for i in range(int(features.dep_ids.max()) + 1)),
        types=tuple(f"t{i}" for i in range(features.types.shape[1])),
        documents=(), oov_rate=0.0,
        predicates=tuple(f"p{i}" for i in range(int(features.predicate_ids.max()) + 1)))
    config = ModelConfig(mode="sc", template_unit="predicate", slot_unit="pattern")
    codes_t, codes_s = label_units(features, config)
    names = unit_names(features, vocab, config)
    for codes, named in ((codes_t, names.template), (codes_s, names.slot)):
        by_name = np.unique(named.astype(str), return_inverse=True)[1]
        assert adjusted_rand_score(codes, by_name) == 1.0
        assert len(np.unique(codes)) == len(np.unique(by_name))
