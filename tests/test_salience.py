"""Predicate salience (``aesi_lib.model.salience``) and its W_T term: the formula against a
count made predicate by predicate, the term against its dense definition (square, tied to
units, and for new mentions), and the features that carry WordNet's tagged counts."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from dense_reference import dense_template_similarity, naive_salience
from test_features import _pmi, _table, _vectors
from test_similarity import random_features

from aesi_lib.model.extract import align_features
from aesi_lib.model.feature_files import load_features, save_features
from aesi_lib.model.features import (
    EntityFeatures,
    FeatureOptions,
    FeatureVocabulary,
    build_features,
)
from aesi_lib.model.salience import (
    SALIENCE_MIN_COUNT,
    SALIENCE_SMOOTHING,
    predicate_salience,
    salience_products,
)
from aesi_lib.model.similarity import SimilarityOptions, template_similarity
from aesi_lib.model.tying import unit_indicator

# Only the salience term: the other terms of W_T weigh 0.
ONLY_SALIENCE = SimilarityOptions(pmi_weight=0.0, cos_hp_weight=0.0, salience_weight=1.0)


def graph_salience(f: EntityFeatures) -> dict[int, float]:
    """The salience the graphs use (its smoothing and least count fixed), from its
    definition; several predicates of ``f`` must be salient for a test to say anything."""
    s = naive_salience(f.predicate_ids, f.predicate_tagged_counts, SALIENCE_SMOOTHING,
                       SALIENCE_MIN_COUNT)
    assert sum(v > 0 for v in s.values()) >= 2
    return s


def with_predicates(n: int, seed: int, n_predicates: int = 9) -> EntityFeatures:
    """Random features whose mentions have predicates (some frequent, some rare) with tagged
    counts (some 0: a predicate WordNet never tagged)."""
    rng = np.random.default_rng(seed)
    predicate_ids = rng.choice(n_predicates, size=n, p=np.arange(n_predicates, 0, -1)
                               / np.arange(n_predicates, 0, -1).sum())
    predicate_ids[:n_predicates] = np.arange(n_predicates)   # every predicate has a mention
    tagged = rng.integers(0, 40, size=n_predicates).astype(np.float64)
    tagged[rng.random(n_predicates) < 0.3] = 0.0
    return dataclasses.replace(random_features(n, seed=seed), predicate_ids=predicate_ids,
                               predicate_tagged_counts=tagged[predicate_ids])


@pytest.mark.parametrize("smoothing, min_count", [(5.0, 1), (2.0, 3), (0.5, 6)])
def test_salience_follows_its_definition(smoothing, min_count):
    f = with_predicates(80, seed=1)
    got = predicate_salience(f.predicate_ids, f.predicate_tagged_counts, smoothing, min_count)
    expected = naive_salience(f.predicate_ids, f.predicate_tagged_counts, smoothing, min_count)
    assert got.shape == (9,)
    np.testing.assert_allclose(got, [expected[p] for p in range(9)], atol=1e-12)
    assert got.max() == pytest.approx(1.0) and got.min() >= 0.0
    counts = np.bincount(f.predicate_ids)
    assert np.all(got[counts < min_count] == 0.0)


def test_a_predicate_the_corpus_uses_more_than_english_is_salient():
    # kill: 30 of 60 mentions, rare in the reference; say: 30 mentions, frequent there.
    ids = np.repeat([0, 1], 30)
    tagged = np.where(ids == 0, 100.0, 2000.0)
    s = predicate_salience(ids, tagged, 5.0, 1)
    assert s[0] == 1.0 and s[1] == 0.0
    # bomb: 10 mentions, tagged 3 times. Before the scaling to 1, kill's salience is
    # log[(30/71) / (105/2123)] and bomb's log[(10/71) / (8/2123)]; a predicate below the
    # least count (m = 2) is not salient whatever its ratio.
    ids = np.repeat([0, 1, 2, 3], [30, 30, 10, 1])
    tagged = np.repeat([100.0, 2000.0, 3.0, 0.0], [30, 30, 10, 1])
    s = predicate_salience(ids, tagged, 5.0, 2)
    kill, bomb = np.log((30 / 71) / (105 / 2123)), np.log((10 / 71) / (8 / 2123))
    np.testing.assert_allclose(s, [kill / bomb, 0.0, 1.0, 0.0])


def test_without_tagged_counts_nothing_is_salient():
    ids = np.array([0, 0, 1, 2])
    np.testing.assert_array_equal(predicate_salience(ids, None, 5.0, 1), np.zeros(3))
    np.testing.assert_array_equal(predicate_salience(ids, np.zeros(4), 5.0, 1), np.zeros(3))
    with pytest.raises(ValueError, match="smoothing"):
        predicate_salience(ids, np.ones(4), 0.0, 1)


def test_ids_without_mentions_are_no_predicate():
    # A subset's predicate ids may have gaps: the missing ids take no share of the reference.
    ids = np.array([0, 0, 0, 3, 3, 1])
    tagged = np.array([1.0, 1.0, 1.0, 50.0, 50.0, 4.0])
    got = predicate_salience(ids, tagged, 5.0, 1)
    expected = naive_salience(ids, tagged, 5.0, 1)
    np.testing.assert_allclose(got[[0, 1, 3]], [expected[0], expected[1], expected[3]])
    assert got[2] == 0.0


def test_products_hold_the_salient_block_only():
    s = np.array([0.0, 0.5, 1.0, 0.0])
    M = salience_products(s)
    np.testing.assert_allclose(M.toarray(), np.outer(s, s))
    assert M.nnz == 4


def test_the_term_is_the_product_of_the_two_predicates_saliences():
    f = with_predicates(200, seed=2)
    W = template_similarity(f, ONLY_SALIENCE) @ np.eye(200)
    s = graph_salience(f)
    expected = np.array([[s[int(p)] * s[int(q)] for q in f.predicate_ids]
                         for p in f.predicate_ids])
    np.testing.assert_allclose(W, expected, atol=1e-12)
    # With the other terms, the dense reference of the whole W_T.
    options = dataclasses.replace(ONLY_SALIENCE, pmi_weight=1.0, cos_hp_weight=1.0,
                                  salience_weight=0.5)
    np.testing.assert_allclose(template_similarity(f, options) @ np.eye(200),
                               dense_template_similarity(f, options), atol=1e-10)
    names = [t.name for _, t in template_similarity(f, options).terms]
    assert names == ["pmi", "cos_hp", "salience"]
    assert "salience" not in [t.name for _, t in template_similarity(
        f, dataclasses.replace(options, salience_weight=0.0)).terms]


def test_the_tied_term_is_the_units_sum():
    f = with_predicates(200, seed=3)
    graph_salience(f)
    W = template_similarity(f, ONLY_SALIENCE)
    G = unit_indicator(f.predicate_ids)
    tied = W.tied(G)
    np.testing.assert_allclose(tied @ np.eye(G.shape[1]), G.T @ (W @ np.eye(200)) @ G,
                               atol=1e-10)


def test_new_mentions_take_the_training_corpus_salience():
    train = with_predicates(200, seed=4)
    vocab = FeatureVocabulary(heads=tuple(f"h{i}" for i in range(train.pmi.shape[0])),
                              deps=tuple(f"d{i}" for i in range(4)),
                              types=tuple(f"t{i}" for i in range(train.types.shape[1])),
                              documents=(), oov_rate=0.0,
                              predicates=tuple(f"p{i}" for i in range(9)))
    new = with_predicates(12, seed=5)
    # The new corpus names its predicates in another order, and has one the training lacks.
    new_names = ("p8", "p7", "unseen", "p5", "p4", "p3", "p2", "p1", "p0")
    new_vocab = dataclasses.replace(vocab, predicates=new_names)
    rows = align_features(new, new_vocab, train, vocab)
    expected_ids = [vocab.predicates.index(new_names[p]) if new_names[p] in vocab.predicates
                    else -1 for p in new.predicate_ids]
    np.testing.assert_array_equal(rows.predicate_ids, expected_ids)
    block = template_similarity(train, ONLY_SALIENCE, rows=rows) @ np.eye(200)
    s = graph_salience(train)
    for n, p in enumerate(expected_ids):
        mine = 0.0 if p < 0 else s[p]
        np.testing.assert_allclose(block[n], [mine * s[int(q)] for q in train.predicate_ids],
                                   atol=1e-12)
    assert -1 in expected_ids


class _TaggedCounts:
    """The one WordNet lookup ``build_features`` makes for predicates, and no noun senses."""

    counts = {"destroy": 72, "attack": 44}

    def verb_tagged_count(self, lemma: str) -> int:
        return self.counts.get(lemma, 0)

    def semantic_types(self, lemma: str, scheme: str) -> tuple[str, ...]:
        return ()


def test_features_carry_each_predicates_tagged_count(tmp_path):
    features, vocab = build_features(_table(), _pmi(), _vectors(), _TaggedCounts(),
                                     FeatureOptions())
    names = [vocab.predicates[p] for p in features.predicate_ids]
    assert list(features.predicate_tagged_counts) == [
        _TaggedCounts.counts.get(p, 0) for p in names]
    path = tmp_path / "features.npz"
    save_features(path, features, vocab)
    loaded, _ = load_features(path)
    np.testing.assert_array_equal(loaded.predicate_tagged_counts,
                                  features.predicate_tagged_counts)
    np.testing.assert_array_equal(features.subset(np.array([3, 0])).predicate_tagged_counts,
                                  features.predicate_tagged_counts[[3, 0]])
    bare, _ = build_features(_table(), _pmi(), _vectors(), None, FeatureOptions())
    assert bare.predicate_tagged_counts is None
