"""The k-way normalized cut of Sha et al. 2016 (Eqs. 3-6), solved as Yu & Shi 2003 do.

The template and slot clusterings (Eqs. 4 and 5 of [1], over the partition matrices X_T and X_S
of Eqs. 3 and 6) are Shi and Malik's normalized cut [2] in the k-way form of Yu and Shi [3]:
maximise the normalized association

    ε(X) = (1/k) Σ_l X_lᵀ W X_l / X_lᵀ D X_l,      X ∈ {0,1}^{|E|×k}, X 1_k = 1_|E|.

Yu and Shi solve it in two steps:

1. the relaxed optimum is spanned by the top-k eigenvectors of ``N = D^-1/2 W D^-1/2``
   (:func:`spectral_embedding`, matrix-free: only ``W @ x`` is needed);
2. a discrete partition is found by alternating between the closest discrete indicator and the
   closest rotation of the row-normalised eigenvectors (:func:`discretize`).

Eigensolver notes. With the shifted cosine (``aesi_lib.model.terms.CosineTerm``) the graph
is nearly complete:
``N`` has the trivial eigenvalue 1 (eigenvector ``D^1/2 1``), a handful of informative
eigenvalues that are small and close together, and a bulk near 0. Lanczos (``eigsh``) resolves
them reliably when given a tight tolerance (:data:`EIG_TOL`) and a Krylov space of
``ncv ≥ 2k+1`` vectors; every call reports the residuals ``‖N v - λ v‖`` so a caller can check.

References
----------
.. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
   Induction", NAACL 2016, Eqs. 3-6.

.. [2] J. Shi and J. Malik, "Normalized Cuts and Image Segmentation", IEEE TPAMI 22(8), 2000.

.. [3] S. X. Yu and J. Shi, "Multiclass Spectral Clustering", ICCV 2003.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh

Solver = Literal["eigsh", "dense"]

#: The eigensolver's tolerance (eigsh's ``tol``, relative to ``|λ|``): tight enough for the
#: close informative eigenvalues of the nearly complete graphs (see the module docstring), and
#: the same in every preset.
EIG_TOL = 1e-8


@dataclass(frozen=True)
class SpectralEmbedding:
    """Top-k eigenpairs of ``N = D^-1/2 W D^-1/2``.

    Attributes
    ----------
    eigenvalues : ndarray of shape (k,)
        In decreasing order.
    eigenvectors : ndarray of shape (E, k)
        Orthonormal eigenvectors of N (Yu & Shi's ``Z* = D^-1/2 V`` has the same row directions,
        which is all the discretisation uses).
    residuals : ndarray of shape (k,)
        ``‖N v_l - λ_l v_l‖₂`` for each returned pair, computed after the solve.
    n_matvec : int
        Operator applications (columns) spent by the eigensolver.
    solver : str
        The solver that produced the pairs.
    """

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    residuals: np.ndarray
    n_matvec: int
    solver: str


class _Counted(LinearOperator):
    """``D^-1/2 W D^-1/2``, counting the columns it is applied to."""

    def __init__(self, W: LinearOperator, inv_sqrt_d: np.ndarray):
        super().__init__(dtype=np.float64, shape=W.shape)
        self.W = W
        self.s = inv_sqrt_d
        self.count = 0

    def _matmat(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        self.count += X.shape[1]
        return self.s[:, None] * np.asarray(self.W @ (self.s[:, None] * X))

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        return self._matmat(np.asarray(x).reshape(-1, 1))[:, 0]

    def _rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self._matvec(x)

    def _adjoint(self) -> _Counted:
        return self


def normalized_operator(W: LinearOperator, degrees: np.ndarray) -> LinearOperator:
    """``N = D^-1/2 W D^-1/2`` as a LinearOperator (Yu & Shi's relaxed problem, Eq. 4/5).

    Parameters
    ----------
    W : LinearOperator of shape (E, E), symmetric
    degrees : ndarray of shape (E,), all > 0

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eqs. 4-5.

    .. [2] S. X. Yu and J. Shi, "Multiclass Spectral Clustering", ICCV 2003: the relaxed k-way
       problem.
    """
    return _Counted(W, _inv_sqrt_degrees(degrees))


def _inv_sqrt_degrees(degrees: np.ndarray) -> np.ndarray:
    d = np.asarray(degrees, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(d)) or d.min(initial=np.inf) <= 0:
        bad = int(np.sum(~(d > 0)))
        raise ValueError(
            f"normalized cut needs positive degrees; {bad} of {d.size} are <= 0 or not finite "
            f"(min {np.nanmin(d):.4g}): a graph with negative entries (raw cosines, negative "
            f"weights) can have them, which is why the graphs of aesi_lib.model.similarity "
            f"shift their cosines to [0, 1]"
        )
    return 1.0 / np.sqrt(d)


def _fix_signs(vectors: np.ndarray) -> np.ndarray:
    # Eigenvectors are defined up to sign; fixing it makes results reproducible across solvers.
    idx = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[idx, np.arange(vectors.shape[1])])
    signs[signs == 0] = 1.0
    return vectors * signs


def spectral_embedding(
    W: LinearOperator,
    degrees: np.ndarray,
    k: int,
    seed: int = 0,
    *,
    solver: Solver = "eigsh",
    tol: float = EIG_TOL,
    maxiter: int | None = None,
    ncv: int | None = None,
) -> SpectralEmbedding:
    """Top-k eigenvectors of ``D^-1/2 W D^-1/2``: the relaxed k-way normalized cut (Eqs. 4-5).

    Parameters
    ----------
    W : LinearOperator of shape (E, E)
        Symmetric affinity; only products ``W @ X`` are used.
    degrees : ndarray of shape (E,)
        The diagonal of D, all positive. Usually ``W·1``; the AMP steps pass ``D* = D`` of the
        unconstrained graph (the appendix's ``W*_S``, ``W*_T``).
    k : int
        Number of eigenpairs (clusters).
    seed : int
        Seeds the start vector (eigsh ``v0``), so results are deterministic.
    solver : {"eigsh", "dense"}
        ARPACK Lanczos on the operator, or a dense ``eigh`` (small inputs only; also used
        automatically when |E| is tiny).
    tol : float
        eigsh's tolerance, relative to ``|λ|`` (:data:`EIG_TOL`).
    maxiter : int, optional
        eigsh's iteration cap (its default when None).
    ncv : int, optional
        Lanczos basis size for eigsh; default ``max(2k + 1, 20)``.

    Returns
    -------
    SpectralEmbedding

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eqs. 4-5.

    .. [2] S. X. Yu and J. Shi, "Multiclass Spectral Clustering", ICCV 2003: the continuous optimum,
       spanned by the top-k eigenvectors.
    """
    n = W.shape[0]
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, {n}], got {k}")
    inv_sqrt = _inv_sqrt_degrees(degrees)
    rng = np.random.default_rng(seed)
    op = _Counted(W, inv_sqrt)
    if ncv is None:
        ncv = max(2 * k + 1, 20)
    if solver not in ("eigsh", "dense"):
        raise ValueError(f"unknown solver {solver!r}")
    if solver != "dense" and n <= max(ncv + 1, 5 * k, 50):
        solver = "dense"

    if solver == "dense":
        dense = op @ np.eye(n)
        vals, vecs = np.linalg.eigh((dense + dense.T) / 2.0)
        vals, vecs = vals[::-1][:k], vecs[:, ::-1][:, :k]
    else:
        v0 = rng.uniform(-1.0, 1.0, size=n)
        vals, vecs = eigsh(
            op, k=k, which="LA", v0=v0, tol=tol, maxiter=maxiter, ncv=min(ncv, n - 1)
        )

    order = np.argsort(-vals)
    vals, vecs = np.asarray(vals)[order], np.asarray(vecs)[:, order]
    vecs = _fix_signs(vecs)
    # Residuals, one extra block product (not counted in n_matvec).
    count = op.count
    residuals = np.linalg.norm(op @ vecs - vecs * vals[None, :], axis=0)
    return SpectralEmbedding(
        eigenvalues=vals,
        eigenvectors=vecs,
        residuals=residuals,
        n_matvec=int(count),
        solver=solver,
    )


#: Decimals kept when a discretisation compares scores (argmax, argmin, the stopping rule):
#: the row-normalised eigenvectors of two machines differ by about 1e-13 (other BLAS, other
#: thread counts), and an exact comparison of nearly tied scores sent some discretisations to
#: other local optima there (MUC-4, README "Reproducibility"). Rounding to 1e-10 makes such
#: near-ties exact ties, broken by the lower index, on every machine.
DECIMALS = 10


def _argmax_rows(M: np.ndarray) -> np.ndarray:
    """The column of each row's largest entry, ties (to :data:`DECIMALS`) to the lower one."""
    return np.argmax(np.round(M, DECIMALS), axis=1)


def _numerical_rank(sigma: np.ndarray) -> int:
    """How many singular values (in decreasing order) are not zero up to rounding: those
    above 1e-10 times the largest."""
    return int(np.sum(sigma > 1e-10 * max(float(sigma[0]), 1e-300)))


def _closest_rotation(U: np.ndarray, sigma: np.ndarray, Wt: np.ndarray, previous: np.ndarray
                      ) -> np.ndarray:
    """The rotation ``R`` maximising ``tr(Rᵀ M)`` for ``M = U diag(sigma) Wt``, and among
    those, when ``M`` is singular (a cluster is empty), the one closest to ``previous``.

    ``U Wt`` alone is one maximiser, but on the null space of ``M`` its columns are whatever
    basis LAPACK returned, which differs between machines; machines then followed other
    discretisations (seen on MUC-4, README "Reproducibility"). The completion that is closest
    to the previous rotation does not depend on that basis.
    """
    rank = _numerical_rank(sigma)
    W = Wt.T
    R = U[:, :rank] @ W[:, :rank].T
    if rank == len(sigma):
        return R
    U0, W0 = U[:, rank:], W[:, rank:]
    P, _, Qt = np.linalg.svd(U0.T @ previous @ W0)
    return R + U0 @ (P @ Qt) @ W0.T


def canonical_labels(labels: np.ndarray) -> np.ndarray:
    """Cluster numbers in order of first appearance (the cluster of row 0 is 0, ...), so that
    one partition gets one numbering whichever discretisation found it."""
    labels = np.asarray(labels, dtype=np.int64)
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first)
    renumber = np.empty(order.size, dtype=np.int64)
    renumber[order] = np.arange(order.size)
    values = np.unique(labels)
    return renumber[np.searchsorted(values, labels)]


def discretize(
    vectors: np.ndarray,
    seed: int = 0,
    max_iter: int = 100,
    tol: float = 1e-9,
    init_labels: np.ndarray | None = None,
) -> np.ndarray:
    """Yu & Shi's discretisation of a k-dimensional spectral embedding.

    Finds a partition X and a rotation R maximising ``tr(Xᵀ Ṽ R)`` with Ṽ the row-normalised
    eigenvectors (every rotation of the relaxed optimum is optimal too): R starts from k rows of
    Ṽ that are as orthogonal as possible, then X = argmax of each row of Ṽ R and R = U Wᵀ from
    the SVD ``Ṽᵀ X = U Σ Wᵀ`` alternate until ``tr(Σ)`` stops increasing. Two additions make
    it machine-independent: while a cluster is empty, ``Ṽᵀ X`` is singular and R is completed
    on its null space by the rotation closest to the previous R (:func:`_closest_rotation`),
    not by whatever basis LAPACK returns; and scores are compared to :data:`DECIMALS`
    decimals, ties to the lower index.

    Parameters
    ----------
    vectors : ndarray of shape (E, k)
        Eigenvectors (any per-row positive scaling, e.g. ``D^-1/2 V``, gives the same result).
    seed : int
        Picks the first row of the initial rotation.
    max_iter : int
        Cap on the alternations.
    tol : float
        Stop when ``tr(Σ)`` grows by less than ``tol · |E|`` (well above the rounding noise of
        different machines, so that they stop at the same iteration).
    init_labels : ndarray of shape (E,), int, optional
        A warm start: a partition to stay close to (-1 where a row has none, at least one row
        labelled). The first rotation is the best fit of Ṽ R to it (the SVD step above on the
        labelled rows, the axes of its empty clusters pointing away from the rows), so the
        alternation starts from that partition and its cluster numbers are kept; a partition
        this function returned comes back unchanged (every one in the tests; with two empty
        clusters or more, or after a stop by ``tol``, this is not guaranteed). ``seed`` is
        then unused.

    Returns
    -------
    labels : ndarray of shape (E,), int

    References
    ----------
    .. [1] S. X. Yu and J. Shi, "Multiclass Spectral Clustering", ICCV 2003: the discretisation,
       alternating between X and R (the warm start, the null-space completion and the rounding
       are aesi's additions).
    """
    V = np.asarray(vectors, dtype=np.float64)
    n, k = V.shape
    if k == 1:
        return np.zeros(n, dtype=np.int64)
    norms = np.linalg.norm(V, axis=1)
    norms[norms == 0] = 1.0
    V = V / norms[:, None]

    if init_labels is not None:
        R = _warm_rotation(V, np.asarray(init_labels, dtype=np.int64), k)
    else:
        rng = np.random.default_rng(seed)
        R = np.empty((k, k))
        R[:, 0] = V[rng.integers(n)]
        closeness = np.zeros(n)
        for j in range(1, k):
            # The next axis is the row least aligned with all axes chosen so far.
            closeness += np.abs(V @ R[:, j - 1])
            R[:, j] = V[np.argmin(np.round(closeness, DECIMALS))]

    previous = -np.inf
    labels = _argmax_rows(V @ R)
    for _ in range(max_iter):
        X = sp.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, k))
        U, sigma, Wt = np.linalg.svd(np.asarray(X.T @ V).T)
        value = float(sigma.sum())
        if value - previous < tol * n:
            break
        previous = value
        R = _closest_rotation(U, sigma, Wt, R)
        new = _argmax_rows(V @ R)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels.astype(np.int64)


def _warm_rotation(V: np.ndarray, init_labels: np.ndarray, k: int) -> np.ndarray:
    """The rotation R maximising tr(Xᵀ Ṽ R) for the given partition of the labelled rows.

    When a cluster of that partition is empty, ``Ṽᵀ X`` is singular and every completion of R
    on its null space is a maximiser. ``U Wᵀ`` would take LAPACK's basis of it (machine
    dependent, as in :func:`_closest_rotation`), and an axis of an empty cluster that points
    towards a row takes that row out of its cluster: a warm start from a partition the
    discretisation returned would not give it back. So the empty clusters' axes are chosen to
    keep the rows where they are (:func:`_empty_cluster_axes`).
    """
    known = init_labels >= 0
    if init_labels.shape[0] != V.shape[0] or not known.any() or init_labels.max() >= k:
        raise ValueError("init_labels must have one entry per row, labels below k, and at "
                         "least one row labelled")
    rows = np.flatnonzero(known)
    X = sp.csr_matrix((np.ones(rows.size), (rows, init_labels[known])), shape=(V.shape[0], k))
    U, sigma, Wt = np.linalg.svd(np.asarray(X.T @ V).T)
    empty = np.flatnonzero(np.bincount(init_labels[known], minlength=k) == 0)
    if empty.size == 0:
        return U @ Wt
    rank = _numerical_rank(sigma)
    fitted = U[:, :rank] @ Wt[:rank]
    own_scores = np.einsum("ij,ji->i", V[rows], fitted[:, init_labels[rows]])
    target = np.zeros((k, k))
    target[:, empty] = _empty_cluster_axes(V[rows], U[:, rank:], own_scores)[:, :empty.size]
    return _closest_rotation(U, sigma, Wt, target)


def _empty_cluster_axes(V: np.ndarray, null_basis: np.ndarray, own_scores: np.ndarray
                        ) -> np.ndarray:
    """An orthonormal basis of the span of ``null_basis`` (shape (k, m)) for the axes of the
    empty clusters, chosen whatever basis of that span is given, that takes as few rows of
    ``V`` as it can from their clusters.

    Axis by axis: the row with the largest projection on the part of the span not yet used
    (ties to the lower row, to :data:`DECIMALS` decimals) gives the axis opposite to that
    projection (where no row reaches that part, a coordinate axis projected on it); the axis
    then takes the sign under which fewer rows score higher on it than ``own_scores``, their
    score on their own cluster's axis (a tie keeps the opposite). With one empty cluster
    these are the only two completions, so a partition that one of them keeps is kept.
    """
    k, m = null_basis.shape
    remaining = null_basis @ null_basis.T
    axes = np.zeros((k, m))
    own = np.round(own_scores, DECIMALS)
    for j in range(m):
        projections = V @ remaining
        lengths = np.round(np.einsum("ij,ij->i", projections, projections), DECIMALS)
        if lengths.max() > 0:
            axis = -projections[int(np.argmax(lengths))]
        else:
            axis = remaining[:, int(np.argmax(np.round(np.diag(remaining), DECIMALS)))]
        axis = axis / np.linalg.norm(axis)
        scores = np.round(V @ axis, DECIMALS)
        if np.sum(-scores > own) < np.sum(scores > own):
            axis = -axis
        axes[:, j] = axis
        remaining = remaining - np.outer(axis, axis)
    return axes


def _checked_labels(labels: np.ndarray, k: int) -> np.ndarray:
    """``labels`` as int64; ValueError for a label outside ``[0, k)``."""
    labels = np.asarray(labels, dtype=np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= k):
        raise ValueError(f"labels must lie in [0, {k}), got [{labels.min()}, {labels.max()}]")
    return labels


def indicator_matrix(labels: np.ndarray, k: int, sparse: bool = False
                     ) -> np.ndarray | sp.csr_matrix:
    """Partition matrix X (X_T of Eq. 3, X_S of Eq. 6): ``X[i, l] = 1`` iff entity i is in
    cluster l, shape (E, k). ValueError for a label outside ``[0, k)``.

    ``sparse`` gives it as a CSR matrix, one entry a row: for products with sparse matrices,
    whose counts are exact either way, without the dense E × k array.

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eqs. 3 and 6.
    """
    labels = _checked_labels(labels, k)
    rows = np.arange(labels.shape[0])
    if sparse:
        return sp.csr_matrix((np.ones(labels.shape[0]), (rows, labels)),
                             shape=(labels.shape[0], k))
    X = np.zeros((labels.shape[0], k))
    X[rows, labels] = 1.0
    return X


#: Clusters whose indicator columns :func:`rayleigh_terms` multiplies by W at once. A product
#: with W holds a few E × (columns) arrays at a time, so at mention level (the joint objective,
#: E mentions) this, not k, sets its memory: 64 bytes a mention for each such array, where the
#: 36 slots of the default took 288.
RAYLEIGH_COLUMNS = 8


def rayleigh_terms(
    W: LinearOperator, degrees: np.ndarray, labels: np.ndarray, k: int
) -> np.ndarray:
    """``X_lᵀ W X_l / X_lᵀ D X_l`` for each cluster l (0 for an empty cluster), shape (k,): the
    terms of :func:`normalized_association`, :data:`RAYLEIGH_COLUMNS` clusters at a time.

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, the terms of the sums of Eqs. 4-5.
    """
    labels = _checked_labels(labels, k)
    degrees = np.asarray(degrees, dtype=np.float64)
    num, den = np.zeros(k), np.zeros(k)
    for first in range(0, k, RAYLEIGH_COLUMNS):
        block = min(RAYLEIGH_COLUMNS, k - first)
        inside = (labels >= first) & (labels < first + block)
        X = indicator_matrix(np.where(inside, labels - first, 0), block)
        X[~inside] = 0.0
        num[first:first + block] = np.einsum("il,il->l", X, np.asarray(W @ X))
        den[first:first + block] = X.T @ degrees
    return np.divide(num, den, out=np.zeros(k), where=den != 0)


def normalized_association(
    W: LinearOperator, degrees: np.ndarray, labels: np.ndarray, k: int
) -> float:
    """Normalized association ε(X) = (1/k) Σ_l X_lᵀ W X_l / X_lᵀ D X_l (Eqs. 4-5).

    Parameters
    ----------
    W : LinearOperator of shape (E, E)
    degrees : ndarray of shape (E,)
        Diagonal of D.
    labels : ndarray of shape (E,), int in [0, k)
    k : int

    Returns
    -------
    float
        In [0, 1] for a nonnegative W with ``D = W·1``, where it is 1 minus the k-way normalized
        cut [3] (1: no edge is cut), so that maximising it minimises the cut.

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eqs. 4-5 (ε1, ε2).

    .. [2] J. Shi and J. Malik, "Normalized Cuts and Image Segmentation", IEEE TPAMI 22(8), 2000:
       the normalized association and the normalized cut.

    .. [3] S. X. Yu and J. Shi, "Multiclass Spectral Clustering", ICCV 2003: the k-way normalized
       association.
    """
    return float(rayleigh_terms(W, degrees, labels, k).sum() / k)


def normalized_cut(
    W: LinearOperator,
    k: int,
    seed: int = 0,
    *,
    degrees: np.ndarray | None = None,
    solver: Solver = "eigsh",
    tol: float = EIG_TOL,
    ncv: int | None = None,
    max_iter: int = 100,
    n_init: int = 1,
    init_labels: np.ndarray | None = None,
    return_embedding: bool = False,
) -> np.ndarray | tuple[np.ndarray, SpectralEmbedding]:
    """k-way normalized cut of a matrix-free graph (Eqs. 3-6, Yu & Shi 2003).

    Parameters
    ----------
    W : LinearOperator of shape (E, E)
        Symmetric affinity.
    k : int
        Number of clusters.
    seed : int
        Seeds the eigensolver start and the discretisation.
    degrees : ndarray of shape (E,), optional
        Diagonal of D; ``W·1`` when omitted.
    solver, tol, ncv
        Passed to :func:`spectral_embedding`.
    max_iter : int
        Discretisation iterations.
    n_init : int
        Discretisations from seeds ``seed, seed+1, ...``; the partition with the largest
        :func:`normalized_association` wins (a later one only when larger by a relative 1e-9:
        rounding noise does not decide). The discretisation has local optima of nearly equal
        objective that can differ substantially (ARI ≈ 0.6 between seeds on noisy graphs).
    init_labels : ndarray of shape (E,), int, optional
        Warm start of the discretisation (:func:`discretize`): one discretisation from this
        partition (-1 where none), instead of ``n_init`` from seeds, so that a re-solve on a
        slightly changed graph stays close to the previous partition and keeps its cluster
        numbers. Not in the paper: for incremental updates.
    return_embedding : bool
        Also return the :class:`SpectralEmbedding` (eigenvalues, residuals).

    Returns
    -------
    labels : ndarray of shape (E,), int
        Numbered in order of first appearance (:func:`canonical_labels`), except after a warm
        start, which keeps the numbers of ``init_labels``.
    embedding : SpectralEmbedding, only if ``return_embedding``

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eqs. 3-6.

    .. [2] J. Shi and J. Malik, "Normalized Cuts and Image Segmentation", IEEE TPAMI 22(8), 2000:
       the normalized cut criterion.

    .. [3] S. X. Yu and J. Shi, "Multiclass Spectral Clustering", ICCV 2003: the solution method,
       eigenvectors and discretisation.
    """
    if degrees is None:
        degrees = np.asarray(W @ np.ones(W.shape[0])).reshape(-1)
    emb = spectral_embedding(W, degrees, k, seed, solver=solver, tol=tol, ncv=ncv)
    if init_labels is not None:
        labels = discretize(emb.eigenvectors, max_iter=max_iter, init_labels=init_labels)
        return (labels, emb) if return_embedding else labels
    labels = discretize(emb.eigenvectors, seed=seed, max_iter=max_iter)
    if n_init > 1:
        best = normalized_association(W, degrees, labels, k)
        for s in range(seed + 1, seed + n_init):
            candidate = discretize(emb.eigenvectors, seed=s, max_iter=max_iter)
            value = normalized_association(W, degrees, candidate, k)
            if value > best + 1e-9 * abs(best):
                labels, best = candidate, value
    labels = canonical_labels(labels)
    return (labels, emb) if return_embedding else labels
