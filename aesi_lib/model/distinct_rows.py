"""The distinct rows of the features' vector blocks, kept as an index into the blocks.

Mentions repeat their vectors (every mention of a sentence has its sentence vector, every
mention of a predicate its predicate vector), so the cosine terms of
:mod:`aesi_lib.model.terms` work on each distinct row once. :func:`distinct_rows` finds them
by a hash of each row's bits, and :class:`DistinctRows` holds them as an index into the
features' own arrays, widened to float64 a slab at a time for each product: no copy of the
vectors is made.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def distinct_rows(blocks: list[np.ndarray]) -> tuple[list[DistinctRows], np.ndarray]:
    """The distinct rows of ``blocks`` taken side by side, and the index of each row among them.

    Parameters
    ----------
    blocks : list of ndarray of shape (E, d_b)
        Rows are equal when they are equal, bit for bit, in every block.

    Returns
    -------
    distinct : list of DistinctRows of shape (K, d_b)
        One per block, rows in order of first appearance, indexing the block itself: no row
        is copied (:class:`DistinctRows`).
    ids : ndarray of shape (E,), int64
        ``blocks[b][i] == distinct[b].widened()[ids[i]]`` for every block b and row i.
    """
    arrays = [_stored(np.ascontiguousarray(b)) for b in blocks]
    n = arrays[0].shape[0]
    key = np.zeros(n, dtype=np.int64)
    for a in arrays:
        codes = _row_codes(_as_words(a))
        # Combined codes stay below n * n <= 2**63 for any |E| below 3·10^9.
        _, key = np.unique(key * n + codes, return_inverse=True)
    # Numbered by first appearance: the result does not depend on how the codes sort.
    _, first, key = np.unique(key.ravel(), return_index=True, return_inverse=True)
    if first.size == n:
        return [DistinctRows(a) for a in arrays], np.arange(n, dtype=np.int64)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    ids = rank[key.ravel()].astype(np.int64)
    firsts = first[order]
    return [DistinctRows(a, firsts) for a in arrays], ids


def _stored(a: np.ndarray) -> np.ndarray:
    """``a`` as a term keeps it: float32 as it is, anything else as float64."""
    return a if a.dtype == np.float32 else np.asarray(a, dtype=np.float64)


# Float64 elements a widened slab of stored rows may hold (32 MiB).
_SLAB_ELEMENTS = 1 << 22


class DistinctRows:
    """The distinct rows of a stored block of vectors, as an index into it: no row is copied.

    Products are taken in float64 whatever the stored type. float32 rows (the features'
    vectors) or an index are widened a slab at a time (at most :data:`_SLAB_ELEMENTS` float64
    values), so a product is that of a float64 copy of the distinct rows, and the term holds
    only the index beside the features' own arrays. A float64 block without an index is used
    as it is.

    Parameters
    ----------
    array : ndarray of shape (E, d), float32 or float64
        The stored block (the features' array: do not modify it while the term is in use).
    index : ndarray of shape (K,), int, optional
        The rows of ``array`` that are distinct, in order; None: every row.
    """

    def __init__(self, array: np.ndarray, index: np.ndarray | None = None) -> None:
        self.array = array
        self.index = index
        self.shape = (array.shape[0] if index is None else index.shape[0], array.shape[1])

    @property
    def direct(self) -> bool:
        """Whether products can use ``array`` as it is (float64, every row)."""
        return self.index is None and self.array.dtype == np.float64

    def widened(self, rows: slice = slice(None), cols: slice = slice(None)) -> np.ndarray:
        """Rows ``rows`` and columns ``cols`` of the distinct rows, as a float64 array."""
        picked = rows if self.index is None else self.index[rows]
        return np.asarray(self.array[picked, cols], dtype=np.float64)

    def column_slabs(self) -> list[slice]:
        """Slices of the columns whose float64 slab fits in :data:`_SLAB_ELEMENTS`."""
        k, d = self.shape
        width = max(1, min(d, _SLAB_ELEMENTS // max(k, 1)))
        return [slice(c, c + width) for c in range(0, d, width)]

    def row_slabs(self) -> list[slice]:
        """Slices of the rows whose float64 slab fits in :data:`_SLAB_ELEMENTS`."""
        k, d = self.shape
        height = max(1, _SLAB_ELEMENTS // max(d, 1))
        return [slice(r, r + height) for r in range(0, k, height)]

    def transposed_product(self, Y: np.ndarray) -> np.ndarray:
        """``Uᵀ Y`` (d, k) for Y of shape (K, k): a slab of columns at a time, so that each
        entry sums over all K rows in one product, as it would with a float64 copy."""
        if self.direct:
            return self.array.T @ Y
        return np.vstack([self.widened(cols=c).T @ Y for c in self.column_slabs()])

    def left_product(self, M: np.ndarray) -> np.ndarray:
        """``U M`` (K, k) for M of shape (d, k), a slab of rows at a time."""
        if self.direct:
            return self.array @ M
        return np.vstack([self.widened(rows=r) @ M for r in self.row_slabs()])

    def scaled_unit_sums(self, Q: sp.csr_matrix, scale: np.ndarray) -> np.ndarray:
        """``Q S U`` (U, d) for the unit counts Q (U, K) and the inverse norms S (K,), a slab of
        columns at a time."""
        return np.hstack([np.asarray(Q @ (self.widened(cols=c) * scale[:, None]))
                          for c in self.column_slabs()])

    def squared_norms(self) -> np.ndarray:
        """The squared norm of each distinct row, shape (K,), in float64."""
        if self.direct or self.shape[0] == 0:
            return np.einsum("ij,ij->i", self.array, self.array, dtype=np.float64)
        slabs = (self.widened(rows=r) for r in self.row_slabs())
        return np.concatenate([np.einsum("ij,ij->i", w, w) for w in slabs])


def distinct_rows_with_index(blocks: list[np.ndarray], ids: np.ndarray | None
                             ) -> tuple[list[DistinctRows], np.ndarray]:
    """:func:`distinct_rows` of ``blocks``, and each mention's distinct row: through ``ids``
    (the mention's row of the blocks) when the blocks hold shared rows."""
    distinct, inner = distinct_rows(blocks)
    if ids is None:
        return distinct, inner
    return distinct, inner[np.asarray(ids, dtype=np.int64)]


def _as_words(a: np.ndarray) -> np.ndarray:
    """The rows of ``a`` as unsigned integers of the widest size that divides a row (a view)."""
    flat = a.reshape(a.shape[0], int(np.prod(a.shape[1:])))
    row_bytes = flat.dtype.itemsize * flat.shape[1]
    size = next(s for s in (8, 4, 2, 1) if row_bytes % s == 0)
    return flat.view(np.dtype(f"u{size}"))


def _hash_weights(width: int) -> np.ndarray:
    """Fixed odd 64-bit multipliers of the row hash (the same on every machine)."""
    return np.random.default_rng(0).integers(1, 2**63, size=width, dtype=np.uint64) | 1


def _row_codes(words: np.ndarray, chunk: int = 1 << 15) -> np.ndarray:
    """A code per row, equal for rows with equal bits and distinct otherwise.

    Sorting the rows themselves would copy all of them; a 64-bit multiplicative hash per row
    (computed by chunks) is sorted instead, and every row is compared with the first row of
    its hash to rule out a collision (the exact sort is the fallback, never needed in
    practice).
    """
    n, width = words.shape
    weights = _hash_weights(width)
    hashes = np.empty(n, dtype=np.uint64)
    for start in range(0, n, chunk):
        hashes[start:start + chunk] = words[start:start + chunk].astype(np.uint64) @ weights
    _, first, codes = np.unique(hashes, return_index=True, return_inverse=True)
    codes = codes.ravel()
    for start in range(0, n, chunk):
        rows = slice(start, min(start + chunk, n))
        if not np.array_equal(words[rows], words[first[codes[rows]]]):
            exact = words.view(np.dtype((np.void, words.dtype.itemsize * width))).ravel()
            return np.unique(exact, return_inverse=True)[1].ravel()
    return codes
