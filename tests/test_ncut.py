"""Multiclass normalized cut (Eqs. 3-6, Yu & Shi 2003)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.linalg import aslinearoperator
from sklearn.cluster import SpectralClustering
from sklearn.metrics import adjusted_rand_score

from aesi_lib.model.ncut import (
    RAYLEIGH_COLUMNS,
    discretize,
    indicator_matrix,
    normalized_association,
    normalized_cut,
    rayleigh_terms,
    spectral_embedding,
)
from aesi_lib.model.similarity import slot_similarity, template_similarity
from aesi_lib.model.synthetic import planted_features
from aesi_lib.model.terms import SimilarityOperator


def planted_graph(sizes: list[int], p_in: float, p_out: float, seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(len(sizes)), sizes)
    n = truth.shape[0]
    same = truth[:, None] == truth[None, :]
    W = rng.random((n, n)) * np.where(same, p_in, p_out)
    W = (W + W.T) / 2
    np.fill_diagonal(W, 0.0)
    return W, truth


@pytest.mark.parametrize("solver", ["eigsh", "dense"])
def test_planted_clusters_recovered(solver: str) -> None:
    W, truth = planted_graph([150, 120, 100, 80], 1.0, 0.3, seed=0)
    labels = normalized_cut(aslinearoperator(W), 4, seed=0, solver=solver)
    assert adjusted_rand_score(truth, labels) == 1.0


def test_planted_clusters_recovered_from_similarity_operator() -> None:
    f, templates, _ = planted_features(3000, seed=2, noise=0.5, generic_fraction=0.0)
    labels, emb = normalized_cut(template_similarity(f), 6, seed=0, return_embedding=True)
    assert adjusted_rand_score(templates, labels) > 0.99
    assert emb.residuals.max() < 1e-6


def test_deterministic_under_seed() -> None:
    f, _, _ = planted_features(2000, seed=3)
    W = slot_similarity(f)
    a, ea = normalized_cut(W, 4, seed=7, return_embedding=True)
    b, eb = normalized_cut(W, 4, seed=7, return_embedding=True)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ea.eigenvectors, eb.eigenvectors)


def test_eigenpairs_match_dense_and_residuals_reported() -> None:
    f, _, _ = planted_features(600, seed=4)
    W = slot_similarity(f)
    d = W.degrees()
    dense = W @ np.eye(W.shape[0])
    N = dense / np.sqrt(np.outer(d, d))
    expected = np.linalg.eigvalsh(N)[::-1][:5]
    for solver in ("eigsh", "dense"):
        emb = spectral_embedding(W, d, 5, seed=0, solver=solver, tol=1e-10)
        assert emb.solver == solver
        np.testing.assert_allclose(emb.eigenvalues, expected, atol=1e-7)
        assert emb.eigenvalues[0] == pytest.approx(1.0)
        assert emb.residuals.shape == (5,) and emb.residuals.max() < 1e-5
        np.testing.assert_allclose(emb.eigenvectors.T @ emb.eigenvectors, np.eye(5), atol=1e-6)


def test_agrees_with_sklearn_discretize() -> None:
    # sklearn's spectral embedding ignores the diagonal, so compare without it.
    f, _, slots = planted_features(1500, seed=5, noise=1.0)
    W = SimilarityOperator(slot_similarity(f).terms, zero_diagonal=True)
    dense = W @ np.eye(W.shape[0])
    ours = normalized_cut(W, 4, seed=0)
    theirs = SpectralClustering(
        n_clusters=4, affinity="precomputed", assign_labels="discretize", random_state=0
    ).fit_predict(dense)
    assert adjusted_rand_score(ours, theirs) > 0.95
    assert abs(adjusted_rand_score(slots, ours) - adjusted_rand_score(slots, theirs)) < 0.05


def test_discretize_recovers_rotated_indicators() -> None:
    rng = np.random.default_rng(0)
    truth = rng.integers(5, size=400)
    X = indicator_matrix(truth, 5)
    V = X / np.sqrt(X.sum(axis=0))  # orthonormal indicator basis
    Q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    labels = discretize(V @ Q, seed=1)
    assert adjusted_rand_score(truth, labels) == 1.0


def test_normalized_association_matches_definition() -> None:
    W, truth = planted_graph([30, 20, 25], 1.0, 0.2, seed=1)
    d = W.sum(axis=1)
    labels = np.random.default_rng(0).integers(3, size=75)
    X = indicator_matrix(labels, 3)
    expected = np.mean([X[:, l] @ W @ X[:, l] / (X[:, l] @ d) for l in range(3)])
    assert normalized_association(aslinearoperator(W), d, labels, 3) == pytest.approx(expected)
    # Disconnected blocks cut perfectly: ε = 1.
    block = W * (truth[:, None] == truth[None, :])
    assert normalized_association(aslinearoperator(block), block.sum(1), truth, 3) == \
        pytest.approx(1.0)
    assert normalized_association(aslinearoperator(W), d, truth, 3) > expected


def test_rayleigh_terms_in_column_blocks_are_those_of_the_whole_indicator() -> None:
    """More clusters than one block holds, one of them empty, one in the last block alone."""
    k = 2 * RAYLEIGH_COLUMNS + 1
    W, _ = planted_graph([40, 35, 30, 25], 1.0, 0.2, seed=3)
    d = W.sum(axis=1)
    labels = np.random.default_rng(1).integers(k - 1, size=W.shape[0])
    labels[labels == 3] = 0                     # cluster 3 empty
    labels[:5] = k - 1                          # the last block's only cluster
    X = indicator_matrix(labels, k)
    expected = [X[:, l] @ W @ X[:, l] / (X[:, l] @ d) if X[:, l].any() else 0.0
                for l in range(k)]
    got = rayleigh_terms(aslinearoperator(W), d, labels, k)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert got[3] == 0.0
    with pytest.raises(ValueError, match="labels must lie in"):
        rayleigh_terms(aslinearoperator(W), d, np.full(W.shape[0], k), k)


def test_the_sparse_indicator_is_the_dense_one() -> None:
    labels = np.array([2, 0, 1, 2, 2])
    sparse = indicator_matrix(labels, 4, sparse=True)
    assert sparse.nnz == 5
    np.testing.assert_array_equal(sparse.toarray(), indicator_matrix(labels, 4))


def test_negative_degrees_rejected() -> None:
    # Raw cosines of vectors ±u: the rows of the minority sign have negative degrees.
    signs = np.where(np.arange(60) % 3 == 0, -1.0, 1.0)
    W = aslinearoperator(np.outer(signs, signs))
    d = np.asarray(W @ np.ones(60))
    assert d.min() < 0
    with pytest.raises(ValueError, match="positive degrees; 20 of 60"):
        spectral_embedding(W, d, 3)


def test_n_init_keeps_the_best_discretisation() -> None:
    f, _, _ = planted_features(2000, seed=8, noise=2.0)
    W = template_similarity(f)
    d = W.degrees()
    one = normalized_cut(W, 6, seed=0, degrees=d)
    best = normalized_cut(W, 6, seed=0, degrees=d, n_init=5)
    values = [
        normalized_association(W, d, normalized_cut(W, 6, seed=s, degrees=d), 6) for s in range(5)
    ]
    assert normalized_association(W, d, best, 6) == pytest.approx(max(values))
    assert normalized_association(W, d, best, 6) >= normalized_association(W, d, one, 6)


# ---------------------------------------------------------------- machine independence

def test_an_empty_clusters_rotation_does_not_depend_on_the_null_space_basis() -> None:
    from aesi_lib.model.ncut import _closest_rotation

    rng = np.random.default_rng(0)
    k = 6
    M = rng.standard_normal((k, k))
    M[:, [2, 4]] = 0.0                    # two empty clusters: M is singular
    previous = np.linalg.qr(rng.standard_normal((k, k)))[0]
    U, sigma, Wt = np.linalg.svd(M)
    R = _closest_rotation(U, sigma, Wt, previous)
    np.testing.assert_allclose(R.T @ R, np.eye(k), atol=1e-12)
    # Another machine's LAPACK may return any other orthonormal basis of the null spaces.
    Q1 = np.linalg.qr(rng.standard_normal((2, 2)))[0]
    Q2 = np.linalg.qr(rng.standard_normal((2, 2)))[0]
    U2, W2 = U.copy(), Wt.T.copy()
    U2[:, 4:] = U[:, 4:] @ Q1
    W2[:, 4:] = W2[:, 4:] @ Q2
    np.testing.assert_allclose(_closest_rotation(U2, sigma, W2.T, previous), R, atol=1e-12)
    # ... which the plain U Wᵀ follows: that is what sent machines apart.
    assert not np.allclose(U2 @ W2.T, U @ Wt)
    # Both maximise tr(Rᵀ M).
    assert np.trace(R.T @ M) == pytest.approx(sigma.sum())


def test_a_discretisation_ignores_rounding_noise_of_the_eigenvectors() -> None:
    # Many small, nearly identical rows (rare units) and empty clusters along the way: the
    # case where an exact comparison followed the last bits of the eigenvectors.
    f, _, _ = planted_features(3000, seed=4, noise=3.0)
    W = template_similarity(f)
    emb = spectral_embedding(W, W.degrees(), 12, seed=0)
    noisy = emb.eigenvectors * (1 + 1e-13 * np.random.default_rng(1).standard_normal(
        emb.eigenvectors.shape))
    for seed in range(6):
        np.testing.assert_array_equal(discretize(noisy, seed=seed),
                                      discretize(emb.eigenvectors, seed=seed))


def test_labels_are_numbered_by_first_appearance() -> None:
    from aesi_lib.model.ncut import canonical_labels

    np.testing.assert_array_equal(canonical_labels(np.array([3, 3, 1, 0, 1, 5])),
                                  [0, 0, 1, 2, 1, 3])
    W, truth = planted_graph([60, 50, 40], 1.0, 0.2, seed=3)
    labels = normalized_cut(aslinearoperator(W), 3, seed=0, n_init=3)
    assert labels[0] == 0
    np.testing.assert_array_equal(labels, canonical_labels(labels))
