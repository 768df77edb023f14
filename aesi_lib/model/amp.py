"""The AMP of Sha et al. 2016's appendix for Eq. 9: ``W*_S``, ``W*_T`` and the stopping rule.

The joint model of [1] (Eq. 9) maximises ε1(X_T) + ε2(X_S) + ε3(X_T, X_S) where ε1, ε2 are the
normalized associations of the template and slot graphs (Eqs. 4-5) and ε3 rewards templates
shared within a sentence and slots differing within a sentence. The appendix [2] writes it as

    ε3 = f(X_T) · f(X_S),   f(X_T) = tr(X_Tᵀ J Jᵀ X_T),   f(X_S) = tr(X_Sᵀ (E - J Jᵀ) X_S)

(the main text's Eq. 8 is the ratio ``f(X_T) / tr(X_Sᵀ J Jᵀ X_S)``; both are recorded) and
solves it by alternating normalized cuts (AMP; each cut as Yu and Shi [3]) on modified graphs
with ``D* = D``:

    W*_S = (1/|S|) W_S + ½ f(X_T) [D_S (E - JJᵀ) Ω_S + Ω_S (E - JJᵀ) D_S]
    W*_T = (1/|T|) W_T + 1/(2 f(X_S)) [JJᵀ D_T Ω_T + Ω_T D_T JJᵀ]

J is the |E|×N_sentence indicator (Eq. 7), E = 11ᵀ, and Ω is the cluster-size prior; with the
paper's equal-size prior ``Ω_S = X_S_lᵀ X_S_l = |E|/|S|`` is a scalar (a |S|×|S| matrix would
not fit the |E|×|E| products). Everything is matrix-free: ``JJᵀx`` is a per-sentence sum
broadcast back, ``E x = 1 (1ᵀx)``.

Two readings of the appendix to keep in mind: (1) X_T and X_S interact only through the
scalars f(X_T) and f(X_S), so each step's partition depends on the other only through one
weight, and a random and an -SC initialisation lead to the same fixed point; (2) with the product
form ε3 = f(X_T) f(X_S) the template step's weight would be f(X_S), but ``W*_T`` carries
1/(2 f(X_S)), which matches the main text's ratio form (with f(X_S) read as tr(X_Sᵀ JJᵀ X_S)).
``literal`` implements ``W*_T`` as printed, with the appendix's f(X_S) = tr(X_Sᵀ (E - JJᵀ) X_S).

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
the discrete objective ``Σ_l X_lᵀ W* X_l / X_lᵀ D X_l`` equal to "cut term + λ·constraint"; in
``literal`` mode the scale is dictated by the constraint.

References
----------
.. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
   Induction", NAACL 2016, Eqs. 4-5, 7-9.

.. [2] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of Sha
   et al., NAACL 2016: ε3 as a product, ``W*_S``, ``W*_T``, the stopping rule and the algorithm.

.. [3] S. X. Yu and J. Shi, "Multiclass Spectral Clustering", ICCV 2003: the cut of each step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from aesi_lib.model.constraint import (
    SentenceConstraint,
    same_cluster_fraction,
    same_sentence_pair_total,
    sentence_indicator,
    slot_constraint,
    template_constraint,
)
from aesi_lib.model.cut_step import cut_step
from aesi_lib.model.ncut import indicator_matrix
from aesi_lib.model.objective import joint_objective
from aesi_lib.model.sc import solve_sc
from aesi_lib.model.terms import degrees as graph_degrees

Mode = Literal["literal", "scaled"]
Init = Literal["random", "sc"]
Progress = Callable[[int, dict[str, Any]], None]

#: The stopping threshold of the AMP on ``‖R_TᵀR_T - I‖ + ‖R_SᵀR_S - I‖``
#: (:func:`rotation_residual`): below it an iteration moved the partitions by less than
#: rounding, so the alternation has converged. Never changed by any preset.
AMP_TOL = 1e-6

# --------------------------------------------------------------------------------------------
# The AMP operators (the appendix's W*_S and W*_T)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AugmentedGraph:
    """``W* = cut_weight · W + coefficient · C`` with ``D* = D`` (appendix), and its scales.

    Attributes
    ----------
    operator : LinearOperator
        ``W*``, shape (E, E).
    degrees : ndarray of shape (E,)
        ``D* = D`` of the unconstrained graph.
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
    """``W*_S`` for fixed X_T (appendix, "When X_T is fixed"), ``D*_S = D_S``.

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

    Returns
    -------
    AugmentedGraph

    References
    ----------
    .. [1] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of
       Sha et al., NAACL 2016: ``W*_S`` and ``D*_S`` ("When X_T is fixed"), the literal mode; the
       scaled mode is aesi's.
    """
    n = W_S.shape[0]
    if mode == "literal":
        C = SentenceConstraint(J, degrees_s, "complement")
        omega = n / n_slots
        coef = template_constraint(J, labels_t, n_templates) * omega
        return _augment(W_S, degrees_s, C, 1.0 / n_slots, coef)
    if mode == "scaled":
        C = SentenceConstraint(J, degrees_s, "normalized")
        coef = weight * same_cluster_fraction(J, labels_t, n_templates)
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
    """``W*_T`` for fixed X_S (appendix, "When X_S is fixed"), ``D*_T = D_T``.

    literal: ``W*_T = W_T/|T| + Ω_T / f(X_S) · ½[JJᵀ D_T + D_T JJᵀ]``, Ω_T = |E|/|T|.
    scaled: ``W*_T = W_T + λ a_S α_T · ½[D_T P + P D_T]`` (see the module docstring).

    Parameters are as in :func:`slot_step_graph`, with the fixed slot partition ``labels_s``.

    References
    ----------
    .. [1] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of
       Sha et al., NAACL 2016: ``W*_T`` and ``D*_T`` ("When X_S is fixed"), the literal mode; the
       scaled mode is aesi's.
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
        coef = weight * (1.0 - same_cluster_fraction(J, labels_s, n_slots))
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

    References
    ----------
    .. [1] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of
       Sha et al., NAACL 2016: the stopping criteria, R in closed form and ‖RᵀR - I‖.
    """
    new = indicator_matrix(labels_new, k)
    old = indicator_matrix(labels_old, k)
    new = new[:, new.sum(axis=0) > 0]
    old = old[:, old.sum(axis=0) > 0]
    R = (new.T @ old) / new.sum(axis=0)[:, None]
    return float(np.linalg.norm(R.T @ R - np.eye(R.shape[1])))


# --------------------------------------------------------------------------------------------
# The solvers
# --------------------------------------------------------------------------------------------


@dataclass
class AMPResult:
    """Output of :func:`solve_amp`.

    Attributes
    ----------
    template_labels, slot_labels : ndarray of shape (E,), int
    history : list of dict
        One entry per iteration (iteration 0 = the initial partition): objective terms
        (:func:`joint_objective`), the stopping residuals ``delta_t``, ``delta_s``, ``delta``,
        and for each step (``slot_step``, ``template_step``) the scalars and scales of ``W*``, the
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


def _random_labels(rng: np.random.Generator, k: int, n: int, units: np.ndarray | None
                   ) -> np.ndarray:
    """Random initial partition; entities of one unit share their label."""
    if units is None:
        return rng.integers(k, size=n)
    units = np.asarray(units, dtype=np.int64)
    return rng.integers(k, size=int(units.max()) + 1)[units]


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
    tol: float = AMP_TOL,
    seed: int = 0,
    degrees_t: np.ndarray | None = None,
    degrees_s: np.ndarray | None = None,
    ncut_options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    units_t: np.ndarray | None = None,
    units_s: np.ndarray | None = None,
) -> AMPResult:
    """Alternating maximisation of ε1 + ε2 + ε3 (Eq. 9; appendix Algorithm 1).

    Each iteration fixes X_T and solves the slot cut on ``W*_S`` (``D*_S = D_S``), then fixes
    the new X_S and solves the template cut on ``W*_T`` (``D*_T = D_T``); it stops when
    ``‖R_TᵀR_T - I‖ + ‖R_SᵀR_S - I‖ < tol`` (:func:`rotation_residual`) or after ``max_iter``.
    Each cut is solved to a discrete partition (Yu & Shi), so the final "discretize" step of
    the appendix's algorithm is part of every iteration.

    Parameters
    ----------
    W_T, W_S : LinearOperator of shape (E, E)
        Template and slot similarity graphs (Eqs. 1-2).
    sentence_ids : ndarray of shape (E,)
        Sentence of each entity (defines J, Eq. 7).
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
        ε of the stopping rule (:data:`AMP_TOL`).
    seed : int
        Seeds the random init, the eigensolver start vectors and the discretisation.
    degrees_t, degrees_s : ndarray of shape (E,), optional
        D_T, D_S; ``W·1`` when omitted.
    ncut_options : dict, optional
        Extra arguments of :func:`aesi_lib.model.ncut.normalized_cut` (``n_init``, ...).
    progress : callable, optional
        ``progress(iteration, terms)`` after every iteration (0 = the initial partition), with
        ``terms`` the history entry.
    units_t, units_s : ndarray of shape (E,), optional
        Tie the template (slot) labels of entities sharing a unit: every cut, constrained or
        not, is solved on ``Gᵀ W* G`` (:func:`aesi_lib.model.tying.unit_indicator`). None:
        single entities.

    Returns
    -------
    AMPResult

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 9.

    .. [2] L. Sha, "The Solving Method of the Event Schema Induction Joint Model", the appendix of
       Sha et al., NAACL 2016: the algorithm (``W*_S``, ``W*_T``, the stopping criteria).

    .. [3] S. X. Yu and J. Shi, "Multiclass Spectral Clustering", ICCV 2003: the cut of each step.
    """
    if mode not in ("literal", "scaled"):
        raise ValueError(f"mode must be 'literal' or 'scaled', got {mode!r}")
    if init not in ("random", "sc"):
        raise ValueError(f"init must be 'random' or 'sc', got {init!r}")
    ncut_options = ncut_options or {}
    n = W_T.shape[0]
    J = sentence_indicator(sentence_ids)
    dt = graph_degrees(W_T) if degrees_t is None else np.asarray(degrees_t, dtype=np.float64)
    ds = graph_degrees(W_S) if degrees_s is None else np.asarray(degrees_s, dtype=np.float64)

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
        ls_new, slot_info = cut_step(gs, W_S, ds, n_slots, seed, ncut_options, units_s)
        gt = template_step_graph(W_T, dt, J, ls_new, n_templates, n_slots, mode, weight)
        lt_new, tmpl_info = cut_step(gt, W_T, dt, n_templates, seed, ncut_options, units_t)
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
