"""Tied labels: all mentions of a unit (a predicate, a head word, a pattern) share one label.

Tying the labels of a unit's entities (``X = G Y``, G the |E|×U unit indicator) turns the cut of
W into the cut of the U×U graph ``Gᵀ W G`` with degrees ``Gᵀ d``. The normalized association of
Eqs. 4-5 is unchanged for every tied partition, so a tied cut is the paper's objective
restricted to tied partitions. Not in the paper: an option of the quality track.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from aesi_lib.model.consensus import CoassociationOperator
from aesi_lib.model.terms import SimilarityOperator


def unit_indicator(units: np.ndarray) -> sp.csr_matrix:
    """|E|×U indicator G of a partition of the entities into units (U = ``units.max() + 1``).

    Tying the labels of a unit's entities (``X = G Y``) turns the cut of W into the cut of the
    U×U graph ``Gᵀ W G`` with degrees ``Gᵀ d``: the normalized association of Eqs. 4-5 is
    unchanged for every tied partition, because ``Xᵀ W X = Yᵀ (Gᵀ W G) Y`` and
    ``Xᵀ D X = Yᵀ diag(Gᵀ d) Y``.
    """
    units = np.asarray(units, dtype=np.int64)
    n_units = int(units.max()) + 1 if units.size else 0
    return sp.csr_matrix(
        (np.ones(units.size), (np.arange(units.size), units)), shape=(units.size, n_units)
    )


def tied_operator(W: LinearOperator, G: sp.csr_matrix,
                  reduced: dict[int, Any] | None = None) -> LinearOperator:
    """``Gᵀ W G`` as a matrix-free operator (see :func:`unit_indicator`).

    A similarity operator is reduced to the units term by term, once
    (:meth:`aesi_lib.model.terms.SimilarityOperator.tied`; ``reduced`` keeps the reduced terms
    across operators that share them, for the same G), and the consensus' co-association
    to its units' factor (:meth:`aesi_lib.model.consensus.CoassociationOperator.tied`); any
    other operator (the AMP's ``W*``) is applied through the mentions each time.
    """
    if isinstance(W, CoassociationOperator):
        return W.tied(G)
    if isinstance(W, SimilarityOperator) and W.square:
        return W.tied(G, reduced)
    Gt = G.T.tocsr()

    def matmat(Y: np.ndarray) -> np.ndarray:
        return np.asarray(Gt @ np.asarray(W @ (G @ Y)))

    return LinearOperator(
        (G.shape[1], G.shape[1]),
        matvec=lambda y: matmat(np.asarray(y).reshape(-1, 1)).reshape(-1),
        matmat=matmat,
        dtype=np.float64,
    )



def unit_majority(units: np.ndarray, labels: np.ndarray, n_units: int | None = None
                  ) -> np.ndarray:
    """The most frequent label of each unit's mentions, ignoring -1 (no label); -1 for a unit
    with no labelled mention, shape (U,). Ties go to the smallest label."""
    units = np.asarray(units, dtype=np.int64)
    labels = np.asarray(labels, dtype=np.int64)
    n_units = int(units.max()) + 1 if n_units is None and units.size else (n_units or 0)
    known = labels >= 0
    out = np.full(n_units, -1, dtype=np.int64)
    if not known.any():
        return out
    counts = np.zeros((n_units, int(labels[known].max()) + 1), dtype=np.int64)
    np.add.at(counts, (units[known], labels[known]), 1)
    has = counts.sum(axis=1) > 0
    out[has] = np.argmax(counts[has], axis=1)
    return out
