"""Consensus templates: one cut of the co-association of several template cuts.

The template cut of one graph lands on one of several nearby partitions of nearly equal
normalized association, and which one can turn on a small change of the graph: on MUC-4, with
event nouns, a change of the context weight by 0.05 to 0.1 moved the score by up to 0.05
(README, "The default and its neighbourhood"). Evidence accumulation (Fred & Jain,
"Combining multiple clusterings using evidence accumulation", TPAMI 2005) keeps what such
partitions agree on: each member cuts a graph of its own, and the templates are the
normalized cut of the co-association graph

    C(i, j) = (1/R) Σ_r δ(template_r(i) = template_r(j)),                 shape (E, E),

the share of the R member partitions that put mentions i and j in one template. Here the
members are the cuts of W_T (Eq. 1) at R context weights spread evenly around the run's own
(:func:`member_context_weights`); their mean graph is W_T at the run's weight, because W_T is
linear in its term weights, so ``aesi extract`` scores new mentions against the same W_T as a
run without consensus (``aesi_lib.model.extract``). Not in the paper: an option of the quality
track.

C is never built: with Z the |E|×Rk sparse indicator of the R partitions side by side,
``C = Z Zᵀ / R`` is applied as two sparse products (:func:`coassociation_operator`), and cut
through the same tied cut as W_T (``aesi_lib.model.cut_step``), which reduces Z to the units
once (:meth:`CoassociationOperator.tied`).

References
----------
.. [1] A. L. N. Fred and A. K. Jain, "Combining Multiple Clusterings Using Evidence Accumulation",
   IEEE TPAMI 27(6), 2005: the co-association matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from aesi_lib.model.terms import SymmetricOperator


def member_context_weights(context_weight: float, spread: float, members: int) -> np.ndarray:
    """The context weights of the consensus members: ``members`` values spaced evenly over
    ``[context_weight - spread, context_weight + spread]``, whose mean is ``context_weight``.

    Parameters
    ----------
    context_weight : float
        The run's weight of the sentence vectors in W_T (``SimilarityOptions.context_weight``).
    spread : float
        Half the width of the interval, ``0 <= spread <= context_weight`` (unused with one
        member).
    members : int
        How many cuts, >= 1 (1: the run's own weight alone).

    Returns
    -------
    ndarray of shape (members,)
        E.g. ``(0.75, 0.25, 6) -> [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]``.
    """
    if members < 1:
        raise ValueError(f"members must be >= 1, got {members}")
    if members == 1:
        return np.array([float(context_weight)])
    if not 0.0 <= spread <= context_weight:
        raise ValueError(f"spread must lie in [0, context_weight = {context_weight}], "
                         f"got {spread}")
    return np.linspace(context_weight - spread, context_weight + spread, members)


def coassociation_operator(partitions: Sequence[np.ndarray]) -> CoassociationOperator:
    """The co-association graph of R partitions of the same E items, matrix-free.

    Parameters
    ----------
    partitions : sequence of R ndarrays of shape (E,), int >= 0
        The labels of each member partition (any numbering).

    Returns
    -------
    CoassociationOperator of shape (E, E)
        ``C = Z Zᵀ / R`` with Z the (E, Σ_r k_r) indicator of all partitions side by side:
        ``C(i, j)`` is the share of partitions that put i and j together (1 on the diagonal).
        Symmetric and nonnegative; its degrees ``C·1`` are each item's mean cluster size.

    References
    ----------
    .. [1] A. L. N. Fred and A. K. Jain, "Combining Multiple Clusterings Using Evidence
       Accumulation", IEEE TPAMI 27(6), 2005: the co-association matrix.
    """
    if not partitions:
        raise ValueError("the co-association of no partition is undefined")
    n = len(partitions[0])
    blocks = []
    for labels in partitions:
        labels = np.asarray(labels, dtype=np.int64)
        if labels.shape != (n,) or (n and labels.min() < 0):
            raise ValueError(f"every partition needs {n} labels >= 0")
        k = int(labels.max()) + 1 if n else 0
        blocks.append(sp.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, k)))
    return CoassociationOperator(sp.hstack(blocks, format="csr") / np.sqrt(len(partitions)))


class CoassociationOperator(SymmetricOperator):
    """``F Fᵀ`` for a sparse nonnegative factor F, never materialised: the co-association
    ``C = Z Zᵀ / R`` with ``F = Z / √R`` (:func:`coassociation_operator`), or its tied form.

    Parameters
    ----------
    factor : sparse matrix of shape (n, m)
    """

    def __init__(self, factor: sp.spmatrix):
        super().__init__(dtype=np.float64, shape=(factor.shape[0], factor.shape[0]))
        self.factor = sp.csr_matrix(factor)
        self._factor_t = self.factor.T.tocsr()

    def _matmat(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.factor @ (self._factor_t @ np.asarray(X, dtype=np.float64)))

    def tied(self, G: sp.csr_matrix) -> CoassociationOperator:
        """``Gᵀ C G = (Gᵀ F)(Gᵀ F)ᵀ`` for the |E|×U unit indicator G
        (``aesi_lib.model.tying``): each unit's count of mentions per member cluster, formed
        once, so that the tied cut's products cost O(U) instead of a pass over the mentions."""
        return CoassociationOperator(G.T @ self.factor)
