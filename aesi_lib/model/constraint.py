"""The sentence constraint of Sha et al. 2016, Eqs. 7-8, and the appendix's f(X_T), f(X_S).

J is the |E|×N_sentence indicator of Eq. 7 of [1]; ``J Jᵀ`` is the same-sentence indicator and
``Jᵀ X`` the sentence-by-cluster counts G of Section 3.3. The template constraint rewards
entities of one sentence that share a template (``f(X_T) = tr(X_Tᵀ J Jᵀ X_T)``), the slot
constraint entities of one sentence in different slots (the appendix's [2]
``f(X_S) = tr(X_Sᵀ (E - J Jᵀ) X_S)``, E = 11ᵀ). :class:`SentenceConstraint` is the operator
``½ (D C + C D)`` that the appendix adds to W in the AMP steps (``aesi_lib.model.amp``).
Nothing here forms an |E|×|E| matrix: ``J Jᵀ x`` is a per-sentence sum broadcast back and
``E x = 1 (1ᵀ x)``.

References
----------
.. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
   Induction", NAACL 2016, Section 3.3, Eqs. 7-8.

.. [2] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of Sha
   et al., NAACL 2016: f(X_T), f(X_S) and the sentence terms of ``W*_S`` and ``W*_T``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from aesi_lib.model.ncut import indicator_matrix

ConstraintKind = Literal["same", "complement", "normalized"]


def sentence_indicator(sentence_ids: np.ndarray) -> sp.csr_matrix:
    """J (Eq. 7): ``J[i, s] = 1`` iff entity i is in sentence s, shape (E, N_sentence).

    Sentence ids are compacted to ``0..N-1`` in sorted order. (The paper calls J
    N_sentence×|E| but uses ``J Jᵀ`` as the |E|×|E| same-sentence indicator and ``Jᵀ X`` as the
    sentence-by-cluster counts, which needs the |E|×N orientation used here.)

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 7.
    """
    _, codes = np.unique(np.asarray(sentence_ids), return_inverse=True)
    codes = np.asarray(codes).reshape(-1)
    n = codes.shape[0]
    n_sent = int(codes.max()) + 1 if n else 0
    return sp.csr_matrix((np.ones(n), (np.arange(n), codes)), shape=(n, n_sent))



def _sentence_codes(J: sp.csr_matrix) -> np.ndarray:
    return J.indices


def same_sentence_product(J: sp.csr_matrix, X: np.ndarray) -> np.ndarray:
    """``J Jᵀ X``: for each entity, the sum of X over the entities of its sentence (itself too)."""
    X = np.asarray(X, dtype=np.float64)
    return np.asarray(J.T @ X)[_sentence_codes(J)]


def sentence_cluster_counts(J: sp.csr_matrix, labels: np.ndarray, k: int) -> np.ndarray:
    """``G = Jᵀ X``: entities of sentence s in cluster l, shape (N_sentence, k) (Sec. 3.3).

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Section 3.3 (G_T = Jᵀ X_T).
    """
    return (J.T @ indicator_matrix(labels, k, sparse=True)).toarray()


def template_constraint(J: sp.csr_matrix, labels_t: np.ndarray, k: int) -> float:
    """f(X_T) = tr(X_Tᵀ J Jᵀ X_T) = ‖Jᵀ X_T‖²_F (Eq. 8 numerator; appendix).

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 8, the numerator.

    .. [2] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of
       Sha et al., NAACL 2016: f(X_T).
    """
    G = sentence_cluster_counts(J, labels_t, k)
    return float(np.sum(G * G))


def same_slot_pairs(J: sp.csr_matrix, labels_s: np.ndarray, k: int) -> float:
    """tr(X_Sᵀ J Jᵀ X_S): ordered same-sentence pairs (self included) sharing a slot (Eq. 8
    denominator).

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 8, the denominator.
    """
    return template_constraint(J, labels_s, k)


def slot_constraint(J: sp.csr_matrix, labels_s: np.ndarray, k: int) -> float:
    """f(X_S) = tr(X_Sᵀ (E - J Jᵀ) X_S) = Σ_l |S_l|² - ‖Jᵀ X_S‖²_F (appendix), never dense.

    References
    ----------
    .. [1] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of
       Sha et al., NAACL 2016: f(X_S), the slot term of ε3 as a product.
    """
    sizes = np.bincount(np.asarray(labels_s, dtype=np.int64), minlength=k).astype(np.float64)
    return float(sizes @ sizes) - same_slot_pairs(J, labels_s, k)


def same_sentence_pair_total(J: sp.csr_matrix) -> float:
    """Σ_s n_s²: ``f(X_T)`` when every sentence lies in one template (its maximum)."""
    n_s = np.asarray(J.sum(axis=0)).reshape(-1)
    return float(n_s @ n_s)


class SentenceConstraint(LinearOperator):
    """``½ (D C + C D)`` for a same-sentence matrix C, matrix-free and symmetric.

    Parameters
    ----------
    J : csr_matrix of shape (E, N_sentence)
    degrees : ndarray of shape (E,)
        The diagonal D (D_S or D_T).
    kind : {"same", "complement", "normalized"}
        ``C = J Jᵀ`` (literal ``W*_T``), ``C = E - J Jᵀ`` (literal ``W*_S``) or the per-entity
        normalised ``P = (J Jᵀ - I) / (n_s - 1)`` (scaled mode; 0 for one-entity sentences).

    References
    ----------
    .. [1] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of
       Sha et al., NAACL 2016: the sentence terms of ``W*_S`` and ``W*_T``, with a scalar Ω ("same",
       "complement"); "normalized" is aesi's.
    """

    def __init__(self, J: sp.csr_matrix, degrees: np.ndarray, kind: ConstraintKind):
        n = J.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        if kind not in ("same", "complement", "normalized"):
            raise ValueError(f"unknown constraint kind {kind!r}")
        self.J = J
        self.d = np.asarray(degrees, dtype=np.float64).reshape(-1)
        self.kind = kind
        n_s = np.asarray(J.sum(axis=0)).reshape(-1)[_sentence_codes(J)]
        self.inv_mates = np.divide(1.0, n_s - 1.0, out=np.zeros(n), where=n_s > 1)

    def _apply_c(self, X: np.ndarray) -> np.ndarray:
        Y = same_sentence_product(self.J, X)
        if self.kind == "same":
            return Y
        if self.kind == "complement":
            return X.sum(axis=0, keepdims=True) - Y
        return self.inv_mates[:, None] * (Y - X)

    def _matmat(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        d = self.d[:, None]
        return 0.5 * (d * self._apply_c(X) + self._apply_c(d * X))

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        return self._matmat(np.asarray(x).reshape(-1, 1))[:, 0]

    def _rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self._matvec(x)

    def _adjoint(self) -> SentenceConstraint:
        return self



def same_cluster_fraction(J: sp.csr_matrix, labels: np.ndarray, k: int) -> float:
    """Fraction of the ordered same-sentence pairs (i ≠ j) whose two entities share a cluster
    (0 when no sentence holds two entities)."""
    n = J.shape[0]
    pairs = same_sentence_pair_total(J) - n
    if pairs <= 0:
        return 0.0
    return (template_constraint(J, labels, k) - n) / pairs

