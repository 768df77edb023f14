"""Sentence constraint and the alternating maximisation procedure (Eqs. 6-9 and the appendix).

The joint model (Eq. 9) maximises ε1(X_T) + ε2(X_S) + ε3(X_T, X_S) where ε1, ε2 are the
normalized associations of the template and slot graphs (Eqs. 4-5) and ε3 rewards templates
shared within a sentence and slots differing within a sentence. The appendix writes it as

    ε3 = f(X_T) · f(X_S),   f(X_T) = tr(X_Tᵀ J Jᵀ X_T),   f(X_S) = tr(X_Sᵀ (E - J Jᵀ) X_S)

(the main text's Eq. 8 is the ratio ``f(X_T) / tr(X_Sᵀ J Jᵀ X_S)``; both are recorded) and
solves it by alternating normalized cuts (AMP) on modified graphs with ``D* = D``:

    W*_S = (1/|S|) W_S + ½ f(X_T) [D_S (E - JJᵀ) Ω_S + Ω_S (E - JJᵀ) D_S]
    W*_T = (1/|T|) W_T + 1/(2 f(X_S)) [JJᵀ D_T Ω_T + Ω_T D_T JJᵀ]

J is the |E|×N_sentence indicator (Eq. 6), E = 11ᵀ, and Ω is the cluster-size prior; with the
paper's equal-size prior ``Ω_S = X_S_lᵀ X_S_l = |E|/|S|`` is a scalar (a |S|×|S| matrix would
not fit the |E|×|E| products). Everything is matrix-free: ``JJᵀx`` is a per-sentence sum
broadcast back, ``E x = 1 (1ᵀx)``.

Two readings of the appendix to keep in mind: (1) X_T and X_S interact only through the
scalars f(X_T) and f(X_S), so each step's partition depends on the other only through one
weight, and a random and an -SC initialisation lead to the same fixed point; (2) with the product
form ε3 = f(X_T) f(X_S) the template step's weight would be f(X_S), but W*_T carries
1/(2 f(X_S)), which matches the main text's ratio form (with f(X_S) read as tr(X_Sᵀ JJᵀ X_S)).
``literal`` implements W*_T as printed, with the appendix's f(X_S) = tr(X_Sᵀ (E - JJᵀ) X_S).

Two modes:

``literal``
    The formulas above exactly. On realistic sizes the slot constraint coefficient
    ``f(X_T) Ω_S`` is ~10^9 and multiplies degrees ~10^4 and a dense E: the constraint outweighs
    ``W_S / |S|`` by ~15 orders of magnitude, below double precision, so the slot eigenvectors
    no longer depend on W_S. The template coefficient ``Ω_T / (2 f(X_S))`` is ~10^-6. The
    per-step scales are recorded in the history so this can be measured.
``scaled``
    Keeps the structure and makes the weight meaningful:

    * the ``E`` part of ``E - JJᵀ`` is dropped: with ``D* = D`` it adds exactly
      ``Σ_l |S_l| = |E|`` to the discrete objective whatever the partition, yet dominates the
      relaxed eigenproblem as a huge rank-2 term;
    * ``JJᵀ`` is replaced by the per-entity normalised same-sentence matrix
      ``P = (JJᵀ - I) / (n_s - 1)`` (each entity's sentence-mates share weight 1; symmetric
      because all entities of a sentence have the same n_s). Unnormalised, long sentences form
      heavy cliques that eigenvectors lock onto;
    * the term ``C = ½ (D P + P D)`` is scaled by ``α = 1ᵀD1 / 1ᵀC1`` so it carries the same
      total edge weight as the similarity graph, times ``λ`` (the constraint weight) times the
      coupling factor of the product form ε3 = f(X_T) f(X_S) normalised to [0, 1]:

          W*_S = W_S - λ a_T α_S C_S,   a_T = fraction of same-sentence pairs sharing a template
          W*_T = W_T + λ a_S α_T C_T,   a_S = fraction of same-sentence pairs in different slots

    With ``λ = 0`` both steps are the unconstrained cuts (the paper's "-SC" model).

Indefiniteness. With ``D* = D`` (the appendix's choice, kept in both modes) ``W*`` is no longer
``D*·1``, so ``D^-1/2 W* D^-1/2`` loses the trivial eigenpair, may have negative eigenvalues
(slot step: a negative term) and its spectrum is not bounded by 1. That is harmless for the
eigensolver (``eigsh`` with ``which="LA"`` on a symmetric operator) and it is exactly what makes
the discrete objective ``Σ_l X_lᵀ W* X_l / X_lᵀ D X_l`` equal to "cut term + λ·constraint"; but
the trivial eigenpair can no longer be deflated, and in ``literal`` mode the scale is dictated by
the constraint.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from aesi_lib.ncut import SpectralEmbedding, indicator_matrix, ncut_objective, normalized_cut

Mode = Literal["literal", "scaled"]
Init = Literal["random", "sc"]
ConstraintKind = Literal["same", "complement", "normalized"]
Progress = Callable[[int, dict[str, Any]], None]


# --------------------------------------------------------------------------------------------
# The sentence constraint (Eqs. 6-8)
# --------------------------------------------------------------------------------------------


def sentence_indicator(sentence_ids: np.ndarray) -> sp.csr_matrix:
    """J (Eq. 6): ``J[i, s] = 1`` iff entity i is in sentence s, shape (E, N_sentence).

    Sentence ids are compacted to ``0..N-1`` in sorted order. (The paper calls J
    N_sentence×|E| but uses ``J Jᵀ`` as the |E|×|E| same-sentence indicator and ``Jᵀ X`` as the
    sentence-by-cluster counts, which needs the |E|×N orientation used here.)
    """
    _, codes = np.unique(np.asarray(sentence_ids), return_inverse=True)
    codes = np.asarray(codes).reshape(-1)
    n = codes.shape[0]
    n_sent = int(codes.max()) + 1 if n else 0
    return sp.csr_matrix((np.ones(n), (np.arange(n), codes)), shape=(n, n_sent))


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


def tied_operator(W: LinearOperator, G: sp.csr_matrix) -> LinearOperator:
    """``Gᵀ W G`` as a matrix-free operator (see :func:`unit_indicator`)."""
    Gt = G.T.tocsr()

    def matmat(Y: np.ndarray) -> np.ndarray:
        return np.asarray(Gt @ np.asarray(W @ (G @ Y)))

    return LinearOperator(
        (G.shape[1], G.shape[1]),
        matvec=lambda y: matmat(np.asarray(y).reshape(-1, 1)).reshape(-1),
        matmat=matmat,
        dtype=np.float64,
    )


def _sentence_codes(J: sp.csr_matrix) -> np.ndarray:
    return J.indices


def same_sentence_product(J: sp.csr_matrix, X: np.ndarray) -> np.ndarray:
    """``J Jᵀ X``: for each entity, the sum of X over the entities of its sentence (itself too)."""
    X = np.asarray(X, dtype=np.float64)
    return np.asarray(J.T @ X)[_sentence_codes(J)]


def sentence_cluster_counts(J: sp.csr_matrix, labels: np.ndarray, k: int) -> np.ndarray:
    """``G = Jᵀ X``: entities of sentence s in cluster l, shape (N_sentence, k) (Sec. 3.3)."""
    return np.asarray(J.T @ indicator_matrix(labels, k))


def template_constraint(J: sp.csr_matrix, labels_t: np.ndarray, k: int) -> float:
    """f(X_T) = tr(X_Tᵀ J Jᵀ X_T) = ‖Jᵀ X_T‖²_F (Eq. 8 numerator; appendix)."""
    G = sentence_cluster_counts(J, labels_t, k)
    return float(np.sum(G * G))


def same_slot_pairs(J: sp.csr_matrix, labels_s: np.ndarray, k: int) -> float:
    """tr(X_Sᵀ J Jᵀ X_S): ordered same-sentence pairs (self included) sharing a slot (Eq. 8)."""
    return template_constraint(J, labels_s, k)


def slot_constraint(J: sp.csr_matrix, labels_s: np.ndarray, k: int) -> float:
    """f(X_S) = tr(X_Sᵀ (E - J Jᵀ) X_S) = Σ_l |S_l|² - ‖Jᵀ X_S‖²_F (appendix), never dense."""
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
        ``C = J Jᵀ`` (literal W*_T), ``C = E - J Jᵀ`` (literal W*_S) or the per-entity
        normalised ``P = (J Jᵀ - I) / (n_s - 1)`` (scaled mode; 0 for one-entity sentences).
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


# --------------------------------------------------------------------------------------------
# The AMP operators (appendix Eqs. for W*_S and W*_T)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AugmentedGraph:
    """``W* = cut_weight · W + coefficient · C`` with ``D* = D`` (appendix), and its scales.

    Attributes
    ----------
    operator : LinearOperator
        W*, shape (E, E).
    degrees : ndarray of shape (E,)
        D* = D of the unconstrained graph.
    cut_weight, coefficient : float
        The scalars in front of W and of the constraint operator C.
    cut_scale, constraint_scale : float
        Mean absolute degree of each part, ``mean|cut_weight·W·1|`` and ``mean|coefficient·C·1|``.
    constraint : SentenceConstraint
    """

    operator: LinearOperator
    degrees: np.ndarray
    cut_weight: float
    coefficient: float
    cut_scale: float
    constraint_scale: float
    constraint: SentenceConstraint


def _augment(
    W: LinearOperator,
    degrees: np.ndarray,
    C: SentenceConstraint,
    cut_weight: float,
    coefficient: float,
) -> AugmentedGraph:
    ones = np.ones(W.shape[0])
    cut_scale = float(np.mean(np.abs(cut_weight * degrees)))
    constraint_scale = float(np.mean(np.abs(coefficient * (C @ ones))))
    if coefficient == 0.0:
        # Keep W itself (not W + 0·C) so λ = 0 reproduces the unconstrained cut bit for bit.
        op = W if cut_weight == 1.0 else cut_weight * W
    else:
        op = cut_weight * W + coefficient * C
    return AugmentedGraph(
        operator=op,
        degrees=degrees,
        cut_weight=cut_weight,
        coefficient=coefficient,
        cut_scale=cut_scale,
        constraint_scale=constraint_scale,
        constraint=C,
    )


def _normalized_weight(C: SentenceConstraint, degrees: np.ndarray) -> float:
    total = float(np.sum(C @ np.ones(C.shape[0])))
    return float(np.sum(degrees)) / total if total > 0 else 0.0


def _pair_fraction(J: sp.csr_matrix, labels: np.ndarray, k: int) -> float:
    # Fraction of ordered same-sentence pairs (i ≠ j) that share a cluster.
    n = J.shape[0]
    pairs = same_sentence_pair_total(J) - n
    if pairs <= 0:
        return 0.0
    return (template_constraint(J, labels, k) - n) / pairs


def slot_step_graph(
    W_S: LinearOperator,
    degrees_s: np.ndarray,
    J: sp.csr_matrix,
    labels_t: np.ndarray,
    n_templates: int,
    n_slots: int,
    mode: Mode,
    weight: float = 1.0,
) -> AugmentedGraph:
    """W*_S for fixed X_T (appendix, "When X_T is fixed"), D*_S = D_S.

    literal: ``W*_S = W_S/|S| + f(X_T) Ω_S · ½[D_S (E - JJᵀ) + (E - JJᵀ) D_S]``, Ω_S = |E|/|S|.
    scaled: ``W*_S = W_S - λ a_T α_S · ½[D_S P + P D_S]`` (see the module docstring).

    Parameters
    ----------
    W_S : LinearOperator of shape (E, E)
    degrees_s : ndarray of shape (E,)
    J : csr_matrix of shape (E, N_sentence)
    labels_t : ndarray of shape (E,)
        The fixed template partition X_T.
    n_templates, n_slots : int
    mode : {"literal", "scaled"}
    weight : float
        λ (scaled mode only).
    """
    n = W_S.shape[0]
    if mode == "literal":
        C = SentenceConstraint(J, degrees_s, "complement")
        omega = n / n_slots
        coef = template_constraint(J, labels_t, n_templates) * omega
        return _augment(W_S, degrees_s, C, 1.0 / n_slots, coef)
    if mode == "scaled":
        C = SentenceConstraint(J, degrees_s, "normalized")
        coef = weight * _pair_fraction(J, labels_t, n_templates)
        coef *= _normalized_weight(C, degrees_s) if coef else 0.0
        return _augment(W_S, degrees_s, C, 1.0, -coef)
    raise ValueError(f"mode must be 'literal' or 'scaled', got {mode!r}")


def template_step_graph(
    W_T: LinearOperator,
    degrees_t: np.ndarray,
    J: sp.csr_matrix,
    labels_s: np.ndarray,
    n_templates: int,
    n_slots: int,
    mode: Mode,
    weight: float = 1.0,
) -> AugmentedGraph:
    """W*_T for fixed X_S (appendix, "When X_S is fixed"), D*_T = D_T.

    literal: ``W*_T = W_T/|T| + Ω_T / f(X_S) · ½[JJᵀ D_T + D_T JJᵀ]``, Ω_T = |E|/|T|.
    scaled: ``W*_T = W_T + λ a_S α_T · ½[D_T P + P D_T]`` (see the module docstring).

    Parameters are as in :func:`slot_step_graph`, with the fixed slot partition ``labels_s``.
    """
    n = W_T.shape[0]
    if mode == "literal":
        C = SentenceConstraint(J, degrees_t, "same")
        omega = n / n_templates
        f_s = slot_constraint(J, labels_s, n_slots)
        coef = omega / f_s if f_s > 0 else 0.0
        return _augment(W_T, degrees_t, C, 1.0 / n_templates, coef)
    if mode == "scaled":
        C = SentenceConstraint(J, degrees_t, "normalized")
        coef = weight * (1.0 - _pair_fraction(J, labels_s, n_slots))
        if same_sentence_pair_total(J) - n <= 0:
            coef = 0.0
        coef *= _normalized_weight(C, degrees_t) if coef else 0.0
        return _augment(W_T, degrees_t, C, 1.0, coef)
    raise ValueError(f"mode must be 'literal' or 'scaled', got {mode!r}")


# --------------------------------------------------------------------------------------------
# Stopping rule and objective
# --------------------------------------------------------------------------------------------


def rotation_residual(labels_new: np.ndarray, labels_old: np.ndarray, k: int) -> float:
    """``‖RᵀR - I‖_F`` with ``R = (X_newᵀ X_new)⁻¹ X_newᵀ X_old`` (appendix stopping rule).

    ``R[a, b] = |new_a ∩ old_b| / |new_a|``; it is a permutation, and the residual 0, exactly
    when the two partitions agree up to relabelling. Empty clusters are dropped from both
    partitions first (``X_newᵀ X_new`` would be singular); if the numbers of non-empty clusters
    differ, R is rectangular and the residual is positive.
    """
    new = indicator_matrix(labels_new, k)
    old = indicator_matrix(labels_old, k)
    new = new[:, new.sum(axis=0) > 0]
    old = old[:, old.sum(axis=0) > 0]
    R = (new.T @ old) / new.sum(axis=0)[:, None]
    return float(np.linalg.norm(R.T @ R - np.eye(R.shape[1])))


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
    """
    eps1 = ncut_objective(W_T, degrees_t, labels_t, n_templates)
    eps2 = ncut_objective(W_S, degrees_s, labels_s, n_slots)
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
        "template_agreement": _pair_fraction(J, labels_t, n_templates),
        "slot_disagreement": 1.0 - _pair_fraction(J, labels_s, n_slots),
    }


# --------------------------------------------------------------------------------------------
# The solvers
# --------------------------------------------------------------------------------------------


@dataclass
class AMPResult:
    """Output of :func:`solve_amp` / :func:`solve_sc`.

    Attributes
    ----------
    template_labels, slot_labels : ndarray of shape (E,), int
    history : list of dict
        One entry per iteration (iteration 0 = the initial partition): objective terms
        (:func:`joint_objective`), the stopping residuals ``delta_t``, ``delta_s``, ``delta``,
        and for each step (``slot_step``, ``template_step``) the scalars and scales of W*, the
        eigenvalues, the largest eigen residual, operator applications and seconds.
    converged : bool
        Whether the stopping rule fired before ``max_iter``.
    n_iter : int
    mode : str
    """

    template_labels: np.ndarray
    slot_labels: np.ndarray
    history: list[dict[str, Any]] = field(default_factory=list)
    converged: bool = False
    n_iter: int = 0
    mode: str = "sc"


def _cut(
    graph: AugmentedGraph | None,
    W: LinearOperator,
    degrees: np.ndarray,
    k: int,
    seed: int,
    ncut_options: dict[str, Any],
    units: np.ndarray | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    start = time.perf_counter()
    options = dict(ncut_options)
    op = W
    if graph is not None:
        op = graph.operator
        # The trivial eigenpair (1, D^1/2 1) belongs to W with D = W·1 only.
        if graph.coefficient != 0.0 or graph.cut_weight != 1.0:
            options["deflate"] = False
    if units is not None:
        G = unit_indicator(units)
        unit_labels, emb = normalized_cut(
            tied_operator(op, G), k, seed, degrees=np.asarray(G.T @ degrees),
            return_embedding=True, **options
        )
        labels = unit_labels[np.asarray(units, dtype=np.int64)]
    else:
        labels, emb = normalized_cut(
            op, k, seed, degrees=degrees, return_embedding=True, **options
        )
    info = _step_info(emb, time.perf_counter() - start)
    if graph is not None:
        info.update(
            cut_weight=graph.cut_weight,
            coefficient=graph.coefficient,
            cut_scale=graph.cut_scale,
            constraint_scale=graph.constraint_scale,
            scale_ratio=(
                graph.constraint_scale / graph.cut_scale if graph.cut_scale else float("inf")
            ),
        )
    return labels, info


def _step_info(emb: SpectralEmbedding, seconds: float) -> dict[str, Any]:
    scale = float(np.abs(emb.eigenvalues).max(initial=0.0))
    max_res = float(emb.residuals.max(initial=0.0))
    return {
        "eigenvalues": emb.eigenvalues.tolist(),
        "max_residual": max_res,
        # Relative to the operator's scale (its largest |λ|): what double precision can resolve.
        "max_relative_residual": max_res / scale if scale > 0 else max_res,
        "residuals": emb.residuals.tolist(),
        "n_matvec": emb.n_matvec,
        "solver": emb.solver,
        "seconds": seconds,
    }


def solve_sc(
    W_T: LinearOperator,
    W_S: LinearOperator,
    n_templates: int,
    n_slots: int,
    seed: int = 0,
    *,
    degrees_t: np.ndarray | None = None,
    degrees_s: np.ndarray | None = None,
    ncut_options: dict[str, Any] | None = None,
    units_t: np.ndarray | None = None,
    units_s: np.ndarray | None = None,
    slot_labels: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The "-SC" model: independent template and slot cuts (Eqs. 4 and 5, no ε3).

    ``units_t`` / ``units_s`` (ints of shape (E,)) tie the labels of entities that share a
    unit (:func:`unit_indicator`); None cuts single entities as the paper does.
    ``slot_labels`` (shape (E,)), when given, are used as they are and W_S is not cut
    (factored slots, ``aesi_lib.factored_slots``).

    Returns
    -------
    template_labels, slot_labels : ndarray of shape (E,)
    info : dict
        ``template_step`` / ``slot_step`` eigen diagnostics.
    """
    ncut_options = ncut_options or {}
    dt = _degrees(W_T) if degrees_t is None else degrees_t
    ds = _degrees(W_S) if degrees_s is None else degrees_s
    lt, it = _cut(None, W_T, dt, n_templates, seed, ncut_options, units_t)
    if slot_labels is not None:
        return lt, np.asarray(slot_labels, dtype=np.int64), {"template_step": it}
    ls, is_ = _cut(None, W_S, ds, n_slots, seed, ncut_options, units_s)
    return lt, ls, {"template_step": it, "slot_step": is_}


def _random_labels(rng: np.random.Generator, k: int, n: int, units: np.ndarray | None
                   ) -> np.ndarray:
    """Random initial partition; entities of one unit share their label."""
    if units is None:
        return rng.integers(k, size=n)
    units = np.asarray(units, dtype=np.int64)
    return rng.integers(k, size=int(units.max()) + 1)[units]


def _degrees(W: LinearOperator) -> np.ndarray:
    return np.asarray(W @ np.ones(W.shape[0])).reshape(-1)


def solve_amp(
    W_T: LinearOperator,
    W_S: LinearOperator,
    sentence_ids: np.ndarray,
    n_templates: int,
    n_slots: int,
    *,
    mode: Mode = "scaled",
    weight: float = 1.0,
    init: Init = "sc",
    max_iter: int = 10,
    tol: float = 1e-6,
    seed: int = 0,
    degrees_t: np.ndarray | None = None,
    degrees_s: np.ndarray | None = None,
    ncut_options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    units_t: np.ndarray | None = None,
    units_s: np.ndarray | None = None,
) -> AMPResult:
    """Alternating maximisation of ε1 + ε2 + ε3 (Eq. 9; appendix Algorithm 1).

    Each iteration fixes X_T and solves the slot cut on W*_S (D*_S = D_S), then fixes the new
    X_S and solves the template cut on W*_T (D*_T = D_T); it stops when
    ``‖R_TᵀR_T - I‖ + ‖R_SᵀR_S - I‖ < tol`` (:func:`rotation_residual`) or after ``max_iter``.
    Each cut is solved to a discrete partition (Yu & Shi), so the final "discretize" step of
    the appendix's algorithm is part of every iteration.

    Parameters
    ----------
    W_T, W_S : LinearOperator of shape (E, E)
        Template and slot similarity graphs (Eqs. 1-2).
    sentence_ids : ndarray of shape (E,)
        Sentence of each entity (defines J, Eq. 6).
    n_templates, n_slots : int
        |T| and |S|.
    mode : {"literal", "scaled"}
        See the module docstring.
    weight : float
        λ, the constraint weight of the scaled mode (ignored by literal).
    init : {"random", "sc"}
        Random partitions as in the paper, or the -SC solution.
    max_iter : int
    tol : float
        ε of the stopping rule.
    seed : int
        Seeds the random init, the eigensolver start vectors and the discretisation.
    degrees_t, degrees_s : ndarray of shape (E,), optional
        D_T, D_S; ``W·1`` when omitted.
    ncut_options : dict, optional
        Extra arguments of :func:`aesi_lib.ncut.normalized_cut` (solver, tol, ncv, deflate,
        n_init).
    progress : callable, optional
        ``progress(iteration, terms)`` after every iteration (0 = the initial partition), with
        ``terms`` the history entry.
    units_t, units_s : ndarray of shape (E,), optional
        Tie the template (slot) labels of entities sharing a unit: every cut, constrained or
        not, is solved on ``Gᵀ W* G`` (:func:`unit_indicator`). None: single entities.

    Returns
    -------
    AMPResult
    """
    if mode not in ("literal", "scaled"):
        raise ValueError(f"mode must be 'literal' or 'scaled', got {mode!r}")
    if init not in ("random", "sc"):
        raise ValueError(f"init must be 'random' or 'sc', got {init!r}")
    ncut_options = ncut_options or {}
    n = W_T.shape[0]
    J = sentence_indicator(sentence_ids)
    dt = _degrees(W_T) if degrees_t is None else np.asarray(degrees_t, dtype=np.float64)
    ds = _degrees(W_S) if degrees_s is None else np.asarray(degrees_s, dtype=np.float64)

    start = time.perf_counter()
    init_info: dict[str, Any] = {}
    if init == "sc":
        lt, ls, init_info = solve_sc(
            W_T, W_S, n_templates, n_slots, seed,
            degrees_t=dt, degrees_s=ds, ncut_options=ncut_options,
            units_t=units_t, units_s=units_s,
        )
    else:
        rng = np.random.default_rng(seed)
        lt = _random_labels(rng, n_templates, n, units_t)
        ls = _random_labels(rng, n_slots, n, units_s)

    def record(it: int, entry: dict[str, Any]) -> None:
        entry.update(joint_objective(W_T, dt, W_S, ds, J, lt, ls, n_templates, n_slots))
        entry["iteration"] = it
        history.append(entry)
        if progress is not None:
            progress(it, entry)

    history: list[dict[str, Any]] = []
    record(0, {"init": init, "seconds": time.perf_counter() - start, **init_info})

    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        t0 = time.perf_counter()
        gs = slot_step_graph(W_S, ds, J, lt, n_templates, n_slots, mode, weight)
        ls_new, slot_info = _cut(gs, W_S, ds, n_slots, seed, ncut_options, units_s)
        gt = template_step_graph(W_T, dt, J, ls_new, n_templates, n_slots, mode, weight)
        lt_new, tmpl_info = _cut(gt, W_T, dt, n_templates, seed, ncut_options, units_t)
        delta_t = rotation_residual(lt_new, lt, n_templates)
        delta_s = rotation_residual(ls_new, ls, n_slots)
        lt, ls = lt_new, ls_new
        record(
            it,
            {
                "slot_step": slot_info,
                "template_step": tmpl_info,
                "delta_t": delta_t,
                "delta_s": delta_s,
                "delta": delta_t + delta_s,
                "seconds": time.perf_counter() - t0,
            },
        )
        if delta_t + delta_s < tol:
            converged = True
            break
    return AMPResult(
        template_labels=np.asarray(lt, dtype=np.int64),
        slot_labels=np.asarray(ls, dtype=np.int64),
        history=history,
        converged=converged,
        n_iter=it,
        mode=mode,
    )
