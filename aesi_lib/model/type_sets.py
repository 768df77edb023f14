"""Type sets: the mentions grouped by their distinct set of semantic types.

``δ(types_i ∩ types_j ≠ ∅)``, the type term of W_S and W_H (``aesi_lib.model.similarity``), is a
group term ``Γ S Γᵀ`` (``aesi_lib.model.terms.GroupTerm``) over the distinct type sets, with S
the small set-by-set "shares a type" matrix; the factored slots' head classes are tied by the
same groups (``aesi_lib.model.units``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def _distinct_sets(types: sp.spmatrix) -> tuple[np.ndarray, sp.csr_matrix]:
    """Group the rows of a type indicator by their distinct type set.

    Returns the group id of each row and the (K, H) indicator U of the K distinct sets.
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
    return group_ids, U


def _sharing(U_rows: sp.csr_matrix, U_cols: sp.csr_matrix) -> sp.csr_matrix:
    S = (U_rows @ U_cols.T).tocsr()
    S.data[:] = 1.0
    S.eliminate_zeros()
    return S


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
    group_ids, U = _distinct_sets(types)
    return group_ids, _sharing(U, U)


def cross_type_set_groups(
    row_types: sp.spmatrix, types: sp.spmatrix
) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix]:
    """:func:`type_set_groups` for a rectangular term: rows and columns from other mentions.

    Parameters
    ----------
    row_types : sparse matrix of shape (N, H)
    types : sparse matrix of shape (E, H)
        Both over the same H types.

    Returns
    -------
    row_group_ids : ndarray of shape (N,), int
    group_ids : ndarray of shape (E,), int
    S : csr_matrix of shape (K_rows, K)
        ``δ(types_i ∩ types_j ≠ ∅) = S[row_group_ids[i], group_ids[j]]``.
    """
    row_ids, U_rows = _distinct_sets(row_types)
    col_ids, U_cols = _distinct_sets(types)
    return row_ids, col_ids, _sharing(U_rows, U_cols)
