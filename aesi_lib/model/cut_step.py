"""One normalized-cut step of a solver, with its diagnostics.

The -SC solve (``aesi_lib.model.sc``) and every AMP step (``aesi_lib.model.amp``) cut a graph
the same way: on the entities, or on the units that tie their labels
(``aesi_lib.model.tying``), and record the eigen residuals, operator applications and seconds.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import numpy as np
from scipy.sparse.linalg import LinearOperator

from aesi_lib.model.ncut import SpectralEmbedding, normalized_cut
from aesi_lib.model.tying import tied_operator, unit_indicator, unit_majority


class ScaledGraph(Protocol):
    """What a cut step needs of an AMP graph W* (``aesi_lib.model.amp.AugmentedGraph``)."""

    operator: LinearOperator
    cut_weight: float
    coefficient: float
    cut_scale: float
    constraint_scale: float


def cut_step(
    graph: ScaledGraph | None,
    W: LinearOperator,
    degrees: np.ndarray,
    k: int,
    seed: int,
    ncut_options: dict[str, Any],
    units: np.ndarray | None = None,
    init_labels: np.ndarray | None = None,
    reduced: dict[int, Any] | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Cut ``W`` (or, when ``graph`` is given, its AMP operator W* with D* = ``degrees``) into
    ``k`` clusters with :func:`aesi_lib.model.ncut.normalized_cut`.

    Parameters
    ----------
    graph : AugmentedGraph or None
        The constrained operator of an AMP step; None cuts ``W`` itself.
    W : LinearOperator of shape (E, E)
    degrees : ndarray of shape (E,)
    k, seed : int
    ncut_options : dict
        Extra arguments of ``normalized_cut``.
    units : ndarray of shape (E,), optional
        Tie the labels of entities of one unit (the cut of ``Gᵀ W G``).
    init_labels : ndarray of shape (E,), optional
        Warm start of the discretisation (-1 for entities without a previous label; with
        ``units``, a unit starts from its mentions' most frequent previous label).
    reduced : dict, optional
        With ``units``: the terms of ``W`` already reduced to these units, kept across the
        cuts of graphs that share terms (:func:`aesi_lib.model.tying.tied_operator`).

    Returns
    -------
    labels : ndarray of shape (E,)
    info : dict
        :func:`step_info`, plus the scales of W* when ``graph`` is given.
    """
    start = time.perf_counter()
    op = W if graph is None else graph.operator
    if units is not None:
        G = unit_indicator(units)
        unit_init = None
        if init_labels is not None:
            unit_init = unit_majority(units, init_labels, G.shape[1])
        unit_labels, emb = normalized_cut(
            tied_operator(op, G, reduced), k, seed, degrees=np.asarray(G.T @ degrees),
            init_labels=unit_init, return_embedding=True, **ncut_options
        )
        labels = unit_labels[np.asarray(units, dtype=np.int64)]
    else:
        labels, emb = normalized_cut(
            op, k, seed, degrees=degrees, init_labels=init_labels, return_embedding=True,
            **ncut_options
        )
    info = step_info(emb, time.perf_counter() - start)
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


def step_info(emb: SpectralEmbedding, seconds: float) -> dict[str, Any]:
    """Eigenvalues, residuals, operator applications and seconds of one cut."""
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

