"""Tied units: cutting Gᵀ W G equals cutting W with labels shared inside each unit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.sparse.linalg import aslinearoperator
from sklearn.metrics import adjusted_rand_score

from aesi_lib.model.features import FeatureVocabulary
from aesi_lib.model.induction import ModelConfig, induce
from aesi_lib.model.ncut import normalized_association
from aesi_lib.model.sc import solve_sc
from aesi_lib.model.similarity import slot_similarity, template_similarity
from aesi_lib.model.synthetic import planted_features
from aesi_lib.model.terms import (
    CosineTerm,
    GroupTerm,
    SimilarityOperator,
    TiedSimilarityOperator,
)
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


def _similarity_of_every_term_kind(n_units: int) -> tuple[SimilarityOperator, np.ndarray]:
    """A W of a shared-vector cosine (few distinct rows), a per-mention two-block cosine, a
    group term with M and one without, and units that are fewer than or as many as the
    distinct rows."""
    rng = np.random.default_rng(7)
    n = 40
    sentences = rng.normal(size=(6, 5))
    context = CosineTerm("context", [sentences], ids=rng.integers(0, 6, n))
    own = CosineTerm("cos_hp", [rng.normal(size=(n, 3)), rng.normal(size=(n, 2))])
    M = rng.random((5, 5))
    pmi = GroupTerm("pmi", rng.integers(0, 5, n), M + M.T, 5)
    dep = GroupTerm("dep", rng.integers(0, 3, n), None, 3)
    W = SimilarityOperator([(0.75, context), (1.0, own), (2.0, pmi), (0.5, dep), (0.0, dep)],
                           zero_diagonal=True)
    units = np.concatenate([np.arange(n_units), rng.integers(0, n_units, n - n_units)])
    return W, units


@pytest.mark.parametrize("n_units", [4, 30])
def test_a_similarity_operator_is_tied_term_by_term(n_units):
    """Reduced to the units once, ``Gᵀ W G`` equals the product through the mentions, with
    the mentions' self-pairs left out (zero diagonal), whether the units are fewer than the
    distinct vectors (one dense factor per block) or more (the counts beside the vectors)."""
    W, units = _similarity_of_every_term_kind(n_units)
    G = unit_indicator(units)
    tied = tied_operator(W, G)
    assert isinstance(tied, TiedSimilarityOperator)
    dense = G.T.toarray() @ (W @ np.eye(W.shape[0])) @ G.toarray()
    np.testing.assert_allclose(tied @ np.eye(G.shape[1]), dense, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tied.matvec(np.ones(G.shape[1])),
                               G.T @ W.degrees(), rtol=1e-12)


def test_operators_that_share_terms_reduce_each_term_once(monkeypatch):
    """The consensus members are W_T at other weights of the same terms: tied with one
    ``reduced`` memo, each term is reduced once, and each member's tied graph is still its
    own ``Gᵀ W G``."""
    W, units = _similarity_of_every_term_kind(4)
    G = unit_indicator(units)
    calls: list[str] = []
    for cls in (CosineTerm, GroupTerm):
        original = cls.tied

        def counted(self, G, original=original):
            calls.append(self.name)
            return original(self, G)

        monkeypatch.setattr(cls, "tied", counted)
    reduced: dict = {}
    for scale in (0.5, 1.0, 2.0):
        member = SimilarityOperator([(w * scale if t.name == "context" else w, t)
                                     for w, t in W.terms], zero_diagonal=True)
        tied = tied_operator(member, G, reduced)
        dense = G.T.toarray() @ (member @ np.eye(member.shape[0])) @ G.toarray()
        np.testing.assert_allclose(tied @ np.eye(G.shape[1]), dense, rtol=1e-12, atol=1e-12)
    assert sorted(calls) == ["context", "cos_hp", "dep", "pmi"]


def test_tied_objective_equals_the_mention_objective_of_the_expanded_labels():
    rng = np.random.default_rng(1)
    W = rng.random((12, 12))
    W = W + W.T
    units = np.array([0, 0, 1, 1, 1, 2, 3, 3, 4, 4, 5, 5])
    G = unit_indicator(units)
    unit_labels = np.array([0, 1, 0, 2, 1, 2])
    tied = normalized_association(tied_operator(aslinearoperator(W), G), G.T @ W.sum(axis=1),
                          unit_labels, 3)
    mention = normalized_association(aslinearoperator(W), W.sum(axis=1), unit_labels[units], 3)
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
