"""W_T and W_S operators (Eqs. 1-2) against the dense definitions, entry by entry."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest
import scipy.sparse as sp
from dense_reference import (
    dense_head_class_similarity,
    dense_slot_similarity,
    dense_template_similarity,
    raw_cosine,
)

from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.similarity import (
    SimilarityOptions,
    head_class_similarity,
    slot_similarity,
    template_similarity,
)
from aesi_lib.model.terms import SimilarityOperator
from aesi_lib.model.type_sets import type_set_groups


def random_features(n: int, seed: int, dim: int = 6, vocab: int = 15) -> EntityFeatures:
    """Small random corpus: repeated heads, several types per head, zero vectors, signed PMI."""
    rng = np.random.default_rng(seed)
    head_ids = rng.integers(vocab, size=n)
    head_vectors = rng.standard_normal((vocab, dim))[head_ids]
    predicate_vectors = rng.standard_normal((n, dim))
    predicate_vectors[rng.random(n) < 0.1] = 0.0  # unknown predicates
    head_vectors[head_ids == 0] = 0.0  # an unknown head word
    types = sp.csr_matrix((rng.random((vocab, 7)) < 0.25).astype(float))[head_ids]
    P = rng.standard_normal((vocab, vocab)) * (rng.random((vocab, vocab)) < 0.4)
    P = sp.csr_matrix(np.triu(P) + np.triu(P, 1).T)
    sentence_ids = np.sort(rng.integers(n // 3 + 1, size=n))
    return EntityFeatures(
        head_ids=head_ids,
        head_vectors=head_vectors,
        predicate_vectors=predicate_vectors,
        dep_ids=rng.integers(4, size=n),
        types=types,
        sentence_ids=sentence_ids,
        doc_ids=sentence_ids // 4,
        pmi=P,
    )


def with_shared_sentences(f: EntityFeatures, n_sentences: int, dim: int,
                          rng: np.random.Generator
                          ) -> tuple[EntityFeatures, EntityFeatures, np.ndarray, np.ndarray]:
    """``f`` with random sentence vectors stored once per sentence (``context_rows``), and the
    same vectors copied per mention; also the sentence vectors and each mention's row."""
    sentence_vectors = rng.standard_normal((n_sentences, dim)).astype(np.float32)
    rows = rng.integers(n_sentences, size=f.n_entities)
    shared = dataclasses.replace(f, context_vectors=sentence_vectors, context_rows=rows)
    per_mention = dataclasses.replace(f, context_vectors=sentence_vectors[rows])
    return shared, per_mention, sentence_vectors, rows

OPTIONS = [
    SimilarityOptions(),
    SimilarityOptions(pmi_weight=2.0, cos_hp_weight=0.5, cos_p_weight=0.3, dep_weight=1.5,
                      type_weight=0.0, cos_h_weight=2.0),
]


@pytest.mark.parametrize("options", OPTIONS, ids=["equal-weights", "other-weights"])
@pytest.mark.parametrize("seed", [0, 1])
def test_operators_equal_dense_reference(options: SimilarityOptions, seed: int) -> None:
    f = random_features(40 + 7 * seed, seed)
    eye = np.eye(f.n_entities)
    for build, dense in (
        (template_similarity, dense_template_similarity),
        (slot_similarity, dense_slot_similarity),
        (head_class_similarity, dense_head_class_similarity),
    ):
        W = build(f, options)
        ref = dense(f, options)
        got = W @ eye  # every column: an identity column through the operator
        np.testing.assert_allclose(got, ref, atol=1e-12, rtol=1e-12)
        np.testing.assert_allclose(W.diagonal(), np.diag(ref), atol=1e-12)
        np.testing.assert_allclose(W.degrees(), ref.sum(axis=1), atol=1e-10)
        np.testing.assert_allclose(sum(W.term_degrees().values()), ref.sum(axis=1), atol=1e-10)
        x = np.random.default_rng(seed).standard_normal(f.n_entities)
        np.testing.assert_allclose(W @ x, ref @ x, atol=1e-10)
        np.testing.assert_allclose(W.rmatvec(x), ref.T @ x, atol=1e-10)


def test_the_diagonal_is_the_self_similarity_of_the_formulas() -> None:
    f = random_features(30, 3)
    W = slot_similarity(f)
    keep = W @ np.eye(30)
    # cos_p(i,i) = 1 shifted (1/2 for a zero predicate vector), δ(dep) = 1, δ(type) = 1 when
    # the head has a type.
    has_vec = np.linalg.norm(f.predicate_vectors, axis=1) > 0
    has_type = np.diff(f.types.indptr) > 0
    np.testing.assert_allclose(np.diag(keep), np.where(has_vec, 1.0, 0.5) + 1.0 + has_type)
    np.testing.assert_allclose(W.degrees(), keep.sum(axis=1), atol=1e-10)
    # Without it (scikit-learn's convention, for comparisons), only the diagonal changes.
    zero = SimilarityOperator(W.terms, zero_diagonal=True)
    np.testing.assert_allclose(np.diag(zero @ np.eye(30)), 0.0, atol=1e-14)
    off = ~np.eye(30, dtype=bool)
    np.testing.assert_allclose((zero @ np.eye(30))[off], keep[off], atol=1e-12)
    np.testing.assert_allclose(zero.degrees(), keep.sum(axis=1) - np.diag(keep), atol=1e-10)


def test_cosines_are_shifted_to_one_plus_cos_over_two() -> None:
    f = random_features(25, 4)
    raw = raw_cosine(f.predicate_vectors)
    shifted = slot_similarity(f, SimilarityOptions(dep_weight=0, type_weight=0)) @ np.eye(25)
    np.testing.assert_allclose(shifted, (1 + raw) / 2, atol=1e-12)
    assert raw.min() < 0 <= shifted.min()


def test_shared_type_is_an_indicator_not_a_count() -> None:
    # Entities 0 and 1 share two types: δ = 1 although (T Tᵀ)[0, 1] = 2.
    types = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=float))
    ids, S = type_set_groups(types)
    delta = S.toarray()[np.ix_(ids, ids)]
    expected = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]], dtype=float)
    np.testing.assert_array_equal(delta, expected)
    assert (types @ types.T).toarray()[0, 1] == 2


def test_type_set_groups_random_exact() -> None:
    rng = np.random.default_rng(5)
    T = sp.csr_matrix((rng.random((300, 12)) < 0.15).astype(float))
    ids, S = type_set_groups(T)
    dense = T.toarray()
    expected = (dense @ dense.T) > 0
    np.testing.assert_array_equal(S.toarray()[np.ix_(ids, ids)] > 0, expected)
    assert S.shape[0] == len({tuple(np.nonzero(r)[0]) for r in dense})


def test_template_terms_and_weights() -> None:
    f = random_features(30, 6)
    only_pmi = SimilarityOptions(cos_hp_weight=0.0)
    P = f.pmi.toarray()
    assert P.min() < 0
    # Positive PMI: negative values are clipped to 0.
    np.testing.assert_allclose(template_similarity(f, only_pmi) @ np.eye(30),
                               np.maximum(P, 0.0)[np.ix_(f.head_ids, f.head_ids)])
    w = SimilarityOptions(pmi_weight=2.0, cos_hp_weight=0.5)
    np.testing.assert_allclose(
        template_similarity(f, w) @ np.eye(30), dense_template_similarity(f, w), atol=1e-12
    )


def test_large_operator_is_matrix_free() -> None:
    # 200,000 entities: a dense W would need 320 GB; a product must take well under a second.
    n = 200_000
    rng = np.random.default_rng(0)
    vocab = 5000
    head_ids = rng.integers(vocab, size=n)
    f = EntityFeatures(
        head_ids=head_ids,
        head_vectors=rng.standard_normal((n, 8)),
        predicate_vectors=rng.standard_normal((n, 8)),
        dep_ids=rng.integers(10, size=n),
        types=sp.csr_matrix((rng.random((vocab, 30)) < 0.1).astype(float))[head_ids],
        sentence_ids=np.arange(n) // 3,
        doc_ids=np.arange(n) // 30,
        pmi=sp.random(vocab, vocab, density=0.01, random_state=0, format="csr"),
    )
    W_T, W_S = template_similarity(f), slot_similarity(f)
    x = rng.standard_normal(n)
    start = time.perf_counter()
    yt, ys = W_T @ x, W_S @ x
    assert time.perf_counter() - start < 5.0
    assert yt.shape == ys.shape == (n,)
    assert np.all(W_S.degrees() > 0)
