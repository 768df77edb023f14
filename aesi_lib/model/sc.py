"""The "-SC" model: independent template and slot cuts (Eqs. 4 and 5, no ε3)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse.linalg import LinearOperator

from aesi_lib.model.cut_step import cut_step
from aesi_lib.model.terms import degrees as graph_degrees


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
    init_t: np.ndarray | None = None,
    init_s: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The "-SC" model: independent template and slot cuts (Eqs. 4 and 5, no ε3).

    ``units_t`` / ``units_s`` (ints of shape (E,)) tie the labels of entities that share a
    unit (:func:`aesi_lib.model.tying.unit_indicator`); None cuts single entities as the paper does.
    ``slot_labels`` (shape (E,)), when given, are used as they are and W_S is not cut
    (factored slots, ``aesi_lib.model.factored_slots``). ``init_t`` / ``init_s`` (shape (E,),
    -1 where none) warm-start the template / slot cut from a previous partition
    (:func:`aesi_lib.model.ncut.normalized_cut`).

    Returns
    -------
    template_labels, slot_labels : ndarray of shape (E,)
    info : dict
        ``template_step`` / ``slot_step`` eigen diagnostics.
    """
    ncut_options = ncut_options or {}
    dt = graph_degrees(W_T) if degrees_t is None else degrees_t
    ds = graph_degrees(W_S) if degrees_s is None else degrees_s
    lt, it = cut_step(None, W_T, dt, n_templates, seed, ncut_options, units_t, init_t)
    if slot_labels is not None:
        return lt, np.asarray(slot_labels, dtype=np.int64), {"template_step": it}
    ls, is_ = cut_step(None, W_S, ds, n_slots, seed, ncut_options, units_s, init_s)
    return lt, ls, {"template_step": it, "slot_step": is_}

