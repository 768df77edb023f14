"""Template and slot similarity graphs (Eqs. 1-2) as matrix-free linear operators.

Every term of W_T and W_S is a product of thin factors, so ``W @ x`` costs
O(|E|·d + nnz) and no |E|×|E| matrix is ever built:

* cosine terms are ``S V Vᵀ S`` with V the feature vectors (referenced, not copied; vec_hp is
  applied as the sum over the head and predicate blocks, never concatenated) and S the diagonal
  of inverse row norms;
* ``PMI(head_i, head_j)`` is ``H P Hᵀ`` with H the sparse |E|×|V| head indicator;
* ``δ(dep_i = dep_j)`` is ``A Aᵀ`` with A the |E|×|labels| dependency indicator;
* ``δ(types_i ∩ types_j ≠ ∅)`` is ``G S Gᵀ``: G maps each entity to its distinct type *set*
  and S is the 0/1 set-by-set "shares a type" matrix. (``T Tᵀ`` would count shared types
  instead of indicating one, which differs as soon as a head has several types.)

Conventions, all in :class:`SimilarityOptions`:

* ``cosine="shift"`` (default) uses ``(1 + cos) / 2`` ∈ [0, 1]. Raw cosines of word vectors are
  often negative; summed over tens of thousands of entities they give negative degrees and
  the normalized cut is undefined. The shift adds the rank-one constant ``½·11ᵀ``, so the
  operator stays low rank, but the graph becomes nearly complete and the informative
  eigenvalues of ``D^-1/2 W D^-1/2`` sit close together (see ``aesi_lib.ncut``).
  ``cosine="clip"`` uses ``max(cos, 0)``, which has no low-rank form: it is computed in row
  chunks, exact and with O(|E|·chunk) memory, but O(|E|²·d) time per product, so it is only
  meant for small inputs and for ablations. ``cosine="raw"`` is the paper's formula as written.
  A zero vector (an unknown word) has cosine 0 with everything (so 1/2 once shifted).
* ``diagonal="keep"`` (default) keeps ``W(i, i)`` as the formulas give it (cosine 1, or 1/2·(1+1)
  = 1 shifted; both deltas 1 when the entity has a type; ``PMI(h_i, h_i)`` as stored);
  ``diagonal="zero"`` removes it, the usual graph convention (scikit-learn's spectral
  embedding ignores the diagonal). Degrees ``D = W·1`` follow the chosen convention.
* ``term_normalization="mean_degree"`` divides each term by its mean degree before weighting, so
  that no single term (e.g. the huge ``δ(dep)`` cliques) dominates by sheer edge mass;
  ``"none"`` (default) adds the terms with their weights as in the paper.
* ``pmi="positive"`` (default) clips negative PMI to 0 (PPMI); ``"raw"`` keeps the stored values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from aesi_lib.features import EntityFeatures

CosineMode = Literal["shift", "clip", "raw"]
DiagonalMode = Literal["keep", "zero"]
TermNormalization = Literal["none", "mean_degree"]
PmiMode = Literal["positive", "raw"]


@dataclass(frozen=True)
class SimilarityOptions:
    """Weights and conventions of the similarity graphs (Eqs. 1-2).

    Parameters
    ----------
    pmi_weight, cos_hp_weight : float
        Weights of ``PMI(head_i, head_j)`` and ``cos(vec_hp(i), vec_hp(j))`` in W_T (Eq. 1).
    cos_p_weight, dep_weight, type_weight : float
        Weights of ``cos(vec_p(i), vec_p(j))``, ``δ(dep_i = dep_j)`` and
        ``δ(types_i ∩ types_j ≠ ∅)`` in W_S (Eq. 2). The paper uses 1 for all.
    cos_h_weight : float
        Weight of the head-vector cosine in W_H (:func:`head_class_similarity`, not in the
        paper); ``type_weight`` weighs its type term.
    cosine : {"shift", "clip", "raw"}
        How cosines enter the graph; see the module docstring.
    diagonal : {"keep", "zero"}
        Keep the self-similarity ``W(i, i)`` or set it to zero.
    term_normalization : {"none", "mean_degree"}
        Divide each term by its mean degree (after the diagonal convention) before weighting.
    pmi : {"positive", "raw"}
        Clip negative PMI to zero, or use the stored values.
    clip_chunk : int
        Rows per block when ``cosine="clip"`` is evaluated.
    """

    pmi_weight: float = 1.0
    cos_hp_weight: float = 1.0
    cos_p_weight: float = 1.0
    dep_weight: float = 1.0
    type_weight: float = 1.0
    cos_h_weight: float = 1.0
    cosine: CosineMode = "shift"
    diagonal: DiagonalMode = "keep"
    term_normalization: TermNormalization = "none"
    pmi: PmiMode = "positive"
    clip_chunk: int = 2048

    def __post_init__(self) -> None:
        if self.cosine not in ("shift", "clip", "raw"):
            raise ValueError(f"cosine must be 'shift', 'clip' or 'raw', got {self.cosine!r}")
        if self.diagonal not in ("keep", "zero"):
            raise ValueError(f"diagonal must be 'keep' or 'zero', got {self.diagonal!r}")
        if self.term_normalization not in ("none", "mean_degree"):
            raise ValueError(
                f"term_normalization must be 'none' or 'mean_degree', "
                f"got {self.term_normalization!r}"
            )
        if self.pmi not in ("positive", "raw"):
            raise ValueError(f"pmi must be 'positive' or 'raw', got {self.pmi!r}")


# --------------------------------------------------------------------------------------------
# Terms: each is a symmetric |E|×|E| matrix given by thin factors.
# --------------------------------------------------------------------------------------------


class CosineTerm:
    """``cos(v_i, v_j)`` (raw, shifted to ``(1+cos)/2`` or clipped at 0) as ``S V Vᵀ S``.

    ``v_i`` is the concatenation of the i-th rows of ``blocks`` (one block for vec_p, head and
    predicate blocks for vec_hp) and S the diagonal of inverse row norms, so
    ``cos = S (Σ_b B_b B_bᵀ) S`` is applied without copying or concatenating the vectors:
    the input is scaled, multiplied through each block, and scaled again. float64 blocks are
    referenced, not copied (other dtypes are converted once), so the operator costs no memory
    beyond the caller's feature arrays; do not modify them while the operator is in use.

    Parameters
    ----------
    name : str
    blocks : list of ndarray of shape (E, d_b)
    mode : {"shift", "clip", "raw"}
    chunk : int
        Row block size of the exact quadratic evaluation used by ``mode="clip"``.
    """

    def __init__(
        self, name: str, blocks: list[np.ndarray], mode: CosineMode, chunk: int = 2048
    ):
        self.name = name
        self.mode = mode
        self.chunk = int(chunk)
        self.blocks = [np.asarray(b, dtype=np.float64) for b in blocks]
        sq = sum(np.einsum("ij,ij->i", b, b) for b in self.blocks)
        norms = np.sqrt(sq)
        # A zero vector (unknown word) gets scale 0: cosine 0 with everything.
        self.scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        n = self.blocks[0].shape[0]
        self.shape = (n, n)

    def _gram_rows(self, rows: slice) -> np.ndarray:
        block = sum(b[rows] @ b.T for b in self.blocks)
        block *= self.scale[rows, None]
        block *= self.scale[None, :]
        return block

    def matmat(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        n = self.shape[0]
        if self.mode == "clip":
            out = np.empty((n, X.shape[1]), dtype=np.float64)
            for start in range(0, n, self.chunk):
                rows = slice(start, min(start + self.chunk, n))
                block = self._gram_rows(rows)
                np.maximum(block, 0.0, out=block)
                out[rows] = block @ X
            return out
        Xs = self.scale[:, None] * X
        out = sum(b @ (b.T @ Xs) for b in self.blocks)
        out *= self.scale[:, None]
        if self.mode == "shift":
            # (1 + cos)/2 = ½·11ᵀ + ½·cos: one constant column keeps it low rank.
            out += X.sum(axis=0, keepdims=True)
            out *= 0.5
        return out

    def diagonal(self) -> np.ndarray:
        sq = (self.scale > 0).astype(np.float64)
        return 0.5 * (1.0 + sq) if self.mode == "shift" else sq


class GroupTerm:
    """``M[g_i, g_j]`` for a group id per entity: the matrix ``G M Gᵀ``.

    Covers PMI (groups = head words, M = PMI), ``δ(same dependency)`` (groups = labels,
    M = I) and ``δ(shared type)`` (groups = distinct type sets, M = set-by-set sharing).

    Parameters
    ----------
    group_ids : ndarray of shape (E,), int
    M : sparse matrix of shape (K, K), symmetric, or None for the identity
    """

    def __init__(self, name: str, group_ids: np.ndarray, M: sp.spmatrix | None, n_groups: int):
        self.name = name
        group_ids = np.asarray(group_ids, dtype=np.int64)
        n = group_ids.shape[0]
        self.group_ids = group_ids
        self.G = sp.csr_matrix(
            (np.ones(n), (np.arange(n), group_ids)), shape=(n, n_groups), dtype=np.float64
        )
        self.GT = self.G.T.tocsr()
        self.M = None if M is None else sp.csr_matrix(M, dtype=np.float64)
        self.shape = (n, n)

    def matmat(self, X: np.ndarray) -> np.ndarray:
        Y = self.GT @ X
        if self.M is not None:
            Y = self.M @ Y
        return np.asarray(Y)[self.group_ids]

    def diagonal(self) -> np.ndarray:
        if self.M is None:
            return np.ones(self.group_ids.shape[0])
        return self.M.diagonal()[self.group_ids]


Term = CosineTerm | GroupTerm


class SimilarityOperator(LinearOperator):
    """A weighted sum of similarity terms, ``W = Σ_t w_t · term_t``, never materialised.

    Symmetric; ``zero_diagonal`` subtracts the diagonal of the sum.

    Parameters
    ----------
    terms : list of (weight, term)
    zero_diagonal : bool
    """

    def __init__(self, terms: list[tuple[float, Term]], zero_diagonal: bool = False):
        if not terms:
            raise ValueError("a similarity operator needs at least one term")
        n = terms[0][1].shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.terms = [(float(w), t) for w, t in terms]
        self.zero_diagonal = bool(zero_diagonal)
        self._diag = sum(w * t.diagonal() for w, t in self.terms)

    def _matmat(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        out = np.zeros((self.shape[0], X.shape[1]))
        for w, t in self.terms:
            if w != 0.0:
                out += w * t.matmat(X)
        if self.zero_diagonal:
            out -= self._diag[:, None] * X
        return out

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x).reshape(-1)
        return self._matmat(x[:, None])[:, 0]

    def _rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self._matvec(x)

    def _rmatmat(self, X: np.ndarray) -> np.ndarray:
        return self._matmat(X)

    def _adjoint(self) -> SimilarityOperator:
        return self

    def diagonal(self) -> np.ndarray:
        """Diagonal of W (zeros under ``zero_diagonal``), shape (E,)."""
        return np.zeros(self.shape[0]) if self.zero_diagonal else self._diag.copy()

    def degrees(self) -> np.ndarray:
        """``D(i, i) = Σ_j W(i, j)``, shape (E,)."""
        return degrees(self)

    def term_degrees(self) -> dict[str, np.ndarray]:
        """Weighted degree vector of each term (after the diagonal convention), by name."""
        ones = np.ones((self.shape[0], 1))
        out = {}
        for w, t in self.terms:
            d = w * t.matmat(ones)[:, 0]
            if self.zero_diagonal:
                d = d - w * t.diagonal()
            out[t.name] = d
        return out


def degrees(W: LinearOperator) -> np.ndarray:
    """Degrees ``D(i, i) = Σ_j W(i, j) = (W·1)_i`` of a symmetric operator, shape (E,)."""
    return np.asarray(W @ np.ones(W.shape[0])).reshape(-1)


# --------------------------------------------------------------------------------------------
# Factors built from EntityFeatures.
# --------------------------------------------------------------------------------------------


def type_set_groups(types: sp.spmatrix) -> tuple[np.ndarray, sp.csr_matrix]:
    """Group entities by their distinct type set; return ``(group_ids, S)``.

    ``δ(types_i ∩ types_j ≠ ∅) = S[g_i, g_j]`` exactly, with S the (K, K) 0/1 matrix of "set a
    and set b share a type" (the empty set shares nothing). K is the number of distinct type
    sets, at most the number of distinct heads, so S is small; it is sparse when few sets share
    a type (memory O(nnz(S))).

    Parameters
    ----------
    types : sparse matrix of shape (E, H)
        Entity-by-type indicator.

    Returns
    -------
    group_ids : ndarray of shape (E,), int
    S : csr_matrix of shape (K, K)
    """
    T = sp.csr_matrix(types, dtype=np.float64)
    T.sum_duplicates()
    T.eliminate_zeros()
    T.sort_indices()
    n = T.shape[0]
    counts = np.diff(T.indptr)
    width = int(counts.max()) if n and counts.size else 0
    # Each row as a -1-padded tuple of sorted type ids: np.unique(axis=0) groups identical sets.
    padded = np.full((n, max(width, 1)), -1, dtype=np.int64)
    if width:
        rows = np.repeat(np.arange(n), counts)
        cols = np.arange(T.indices.shape[0]) - np.repeat(T.indptr[:-1], counts)
        padded[rows, cols] = T.indices
    uniq, group_ids = np.unique(padded, axis=0, return_inverse=True)
    group_ids = np.asarray(group_ids).reshape(-1)
    k = uniq.shape[0]
    r, c = np.nonzero(uniq >= 0)
    U = sp.csr_matrix((np.ones(r.shape[0]), (r, uniq[r, c])), shape=(k, T.shape[1]))
    S = (U @ U.T).tocsr()
    S.data[:] = 1.0
    S.eliminate_zeros()
    return group_ids, S


def _positive_pmi(pmi: sp.spmatrix, mode: PmiMode) -> sp.csr_matrix:
    P = sp.csr_matrix(pmi, dtype=np.float64, copy=True)
    if mode == "positive":
        P.data = np.maximum(P.data, 0.0)
        P.eliminate_zeros()
    return P


def _assemble(
    terms: list[tuple[float, Term]], options: SimilarityOptions
) -> SimilarityOperator:
    zero = options.diagonal == "zero"
    if options.term_normalization == "mean_degree":
        scaled = []
        ones = np.ones((terms[0][1].shape[0], 1))
        for w, t in terms:
            d = t.matmat(ones)[:, 0]
            if zero:
                d = d - t.diagonal()
            mean = float(np.mean(np.abs(d)))
            # A term that is identically zero (no types at all) stays zero instead of NaN.
            scaled.append((w / mean if mean > 0 else 0.0, t))
        terms = scaled
    return SimilarityOperator(terms, zero_diagonal=zero)


def template_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None
) -> SimilarityOperator:
    """W_T(i, j) = PMI(head_i, head_j) + cos_hp(i, j) (Eq. 1), matrix-free.

    ``vec_hp`` is the concatenation head vector ⊕ predicate vector; the cosine is taken on the
    concatenation. PMI is ``H P Hᵀ`` with H the |E|×|V| head indicator.

    Parameters
    ----------
    features : EntityFeatures
    options : SimilarityOptions, optional

    Returns
    -------
    SimilarityOperator of shape (E, E)
    """
    options = options or SimilarityOptions()
    terms: list[tuple[float, Term]] = [
        (
            options.pmi_weight,
            GroupTerm(
                "pmi",
                features.head_ids,
                _positive_pmi(features.pmi, options.pmi),
                features.pmi.shape[0],
            ),
        ),
        (
            options.cos_hp_weight,
            CosineTerm(
                "cos_hp",
                [features.head_vectors, features.predicate_vectors],
                options.cosine,
                options.clip_chunk,
            ),
        ),
    ]
    return _assemble(terms, options)


def slot_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None
) -> SimilarityOperator:
    """W_S(i, j) = cos_p(i, j) + δ(dep_i = dep_j) + δ(types_i ∩ types_j ≠ ∅) (Eq. 2).

    Parameters
    ----------
    features : EntityFeatures
    options : SimilarityOptions, optional

    Returns
    -------
    SimilarityOperator of shape (E, E)
    """
    options = options or SimilarityOptions()
    dep = np.asarray(features.dep_ids, dtype=np.int64)
    set_ids, S = type_set_groups(features.types)
    terms: list[tuple[float, Term]] = [
        (
            options.cos_p_weight,
            CosineTerm(
                "cos_p", [features.predicate_vectors], options.cosine, options.clip_chunk
            ),
        ),
        (options.dep_weight, GroupTerm("dep", dep, None, int(dep.max()) + 1 if dep.size else 0)),
        (options.type_weight, GroupTerm("type", set_ids, S, S.shape[0])),
    ]
    return _assemble(terms, options)


def head_class_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None
) -> SimilarityOperator:
    """W_H(i, j) = δ(types_i ∩ types_j ≠ ∅) + cos_h(i, j), matrix-free.

    Not in the paper: the graph of the semantic classes of factored slots
    (``aesi_lib.factored_slots``). It keeps the type term of W_S (Eq. 2) and replaces the
    predicate vector by the head word's own vector, so that it groups heads by what they denote
    (people, organisations, devices, buildings) whatever their predicate and dependency.

    Parameters
    ----------
    features : EntityFeatures
    options : SimilarityOptions, optional
        ``type_weight`` and ``cos_h_weight`` weigh the two terms.

    Returns
    -------
    SimilarityOperator of shape (E, E)
    """
    options = options or SimilarityOptions()
    set_ids, S = type_set_groups(features.types)
    terms: list[tuple[float, Term]] = [
        (options.type_weight, GroupTerm("type", set_ids, S, S.shape[0])),
        (
            options.cos_h_weight,
            CosineTerm("cos_h", [features.head_vectors], options.cosine, options.clip_chunk),
        ),
    ]
    return _assemble(terms, options)


# --------------------------------------------------------------------------------------------
# Dense references, straight from the definitions; for tests and small inputs only.
# --------------------------------------------------------------------------------------------


def _dense_cosine(vectors: np.ndarray, mode: CosineMode) -> np.ndarray:
    X = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(X, axis=1)
    denom = np.outer(norms, norms)
    dots = X @ X.T
    cos = np.divide(dots, denom, out=np.zeros_like(dots), where=denom > 0)
    if mode == "shift":
        return (1.0 + cos) / 2.0
    if mode == "clip":
        return np.maximum(cos, 0.0)
    return cos


def _dense_assemble(terms: list[tuple[float, np.ndarray]], options: SimilarityOptions):
    n = terms[0][1].shape[0]
    W = np.zeros((n, n))
    for w, M in terms:
        M = M.astype(np.float64, copy=True)
        if options.diagonal == "zero":
            np.fill_diagonal(M, 0.0)
        if options.term_normalization == "mean_degree":
            mean = float(np.mean(np.abs(M.sum(axis=1))))
            w = w / mean if mean > 0 else 0.0
        W += w * M
    return W


def dense_template_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None
) -> np.ndarray:
    """Dense |E|×|E| W_T (Eq. 1) computed entry by entry from the definitions (tests only)."""
    options = options or SimilarityOptions()
    h = np.asarray(features.head_ids)
    P = features.pmi.toarray().astype(np.float64)
    if options.pmi == "positive":
        P = np.maximum(P, 0.0)
    hp = np.hstack([features.head_vectors, features.predicate_vectors])
    terms = [
        (options.pmi_weight, P[np.ix_(h, h)]),
        (options.cos_hp_weight, _dense_cosine(hp, options.cosine)),
    ]
    return _dense_assemble(terms, options)


def dense_slot_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None
) -> np.ndarray:
    """Dense |E|×|E| W_S (Eq. 2) computed entry by entry from the definitions (tests only)."""
    options = options or SimilarityOptions()
    dep = np.asarray(features.dep_ids)
    T = (features.types.toarray() != 0).astype(np.int64)
    shares = (T @ T.T) > 0
    terms = [
        (options.cos_p_weight, _dense_cosine(features.predicate_vectors, options.cosine)),
        (options.dep_weight, (dep[:, None] == dep[None, :]).astype(np.float64)),
        (options.type_weight, shares.astype(np.float64)),
    ]
    return _dense_assemble(terms, options)


def dense_head_class_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None
) -> np.ndarray:
    """Dense |E|×|E| W_H (:func:`head_class_similarity`) from the definition (tests only)."""
    options = options or SimilarityOptions()
    T = (features.types.toarray() != 0).astype(np.int64)
    terms = [
        (options.type_weight, ((T @ T.T) > 0).astype(np.float64)),
        (options.cos_h_weight, _dense_cosine(features.head_vectors, options.cosine)),
    ]
    return _dense_assemble(terms, options)
