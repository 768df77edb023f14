"""The joint objective of Eq. 9: ε1(X_T) + ε2(X_S) + ε3(X_T, X_S), with its terms."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from aesi_lib.model.constraint import (
    same_cluster_fraction,
    same_slot_pairs,
    slot_constraint,
    template_constraint,
)
from aesi_lib.model.ncut import normalized_association


def joint_objective(
    W_T: LinearOperator,
    degrees_t: np.ndarray,
    W_S: LinearOperator,
    degrees_s: np.ndarray,
    J: sp.csr_matrix,
    labels_t: np.ndarray,
    labels_s: np.ndarray,
    n_templates: int,
    n_slots: int,
) -> dict[str, float]:
    """Terms of the joint objective (Eq. 9): ε1, ε2, ε3 and their sum.

    ``eps3`` is the appendix's product ``f(X_T) f(X_S)``; ``eps3_ratio`` is the main text's
    Eq. 8 ``f(X_T) / tr(X_Sᵀ JJᵀ X_S)``. ``objective = eps1 + eps2 + eps3``. Also returns
    ``f_t``, ``f_s``, ``same_slot_pairs`` and the pair fractions ``template_agreement`` (same-
    sentence pairs i≠j sharing a template) and ``slot_disagreement`` (... in different slots).

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 9, with ε1, ε2 of Eqs. 4-5 and ε3 of Eq. 8.

    .. [2] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of
       Sha et al., NAACL 2016: ε3 as the product f(X_T) f(X_S).
    """
    eps1 = normalized_association(W_T, degrees_t, labels_t, n_templates)
    eps2 = normalized_association(W_S, degrees_s, labels_s, n_slots)
    f_t = template_constraint(J, labels_t, n_templates)
    f_s = slot_constraint(J, labels_s, n_slots)
    same = same_slot_pairs(J, labels_s, n_slots)
    eps3 = f_t * f_s
    return {
        "eps1": eps1,
        "eps2": eps2,
        "eps3": eps3,
        "eps3_ratio": f_t / same if same > 0 else float("inf"),
        "objective": eps1 + eps2 + eps3,
        "f_t": f_t,
        "f_s": f_s,
        "same_slot_pairs": same,
        "template_agreement": same_cluster_fraction(J, labels_t, n_templates),
        "slot_disagreement": 1.0 - same_cluster_fraction(J, labels_s, n_slots),
    }

