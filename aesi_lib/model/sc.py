"""The "-SC" model: independent template and slot cuts (Eqs. 4 and 5, no ε3)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from scipy.sparse.linalg import LinearOperator

from aesi_lib.model.consensus import coassociation_operator
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
    slot_labels: np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None,
    init_t: np.ndarray | None = None,
    init_s: np.ndarray | None = None,
    template_members: Iterable[tuple[LinearOperator, np.ndarray]] | None = None,
    init_members: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The "-SC" model: independent template and slot cuts (Eqs. 4 and 5, no ε3).

    ``units_t`` / ``units_s`` (ints of shape (E,)) tie the labels of entities that share a
    unit (:func:`aesi_lib.model.tying.unit_indicator`); None cuts single entities as the paper does.
    ``slot_labels`` (shape (E,)), when given, are used as they are and W_S is not cut
    (factored slots, ``aesi_lib.model.factored_slots``); a callable is given the template
    labels and returns them (factored slots whose classes are cut within each template).
    ``init_t`` / ``init_s`` (shape (E,), -1 where none) warm-start the template / slot cut from
    a previous partition (:func:`aesi_lib.model.ncut.normalized_cut`).

    ``template_members`` (pairs of a graph of shape (E, E) and its degrees), when given, replace
    the cut of W_T by the consensus of the members' cuts (``aesi_lib.model.consensus``): each
    member is cut as W_T would be, and the templates are the cut of their co-association. With
    ``init_t`` the consensus cut is warm-started from it, and member r from ``init_members[r]``
    (shape (R, E), -1 where none: the previous solution's own member cuts) or, without them,
    from ``init_t``, so that an update keeps the templates it can. The members are taken one at
    a time, so a generator holds one graph in memory at once. Not in the paper.

    Returns
    -------
    template_labels, slot_labels : ndarray of shape (E,)
    info : dict
        ``template_step`` / ``slot_step`` eigen diagnostics; with members, ``template_step``
        is the consensus cut's and lists the members' own under ``"members"``, and
        ``template_members`` holds the members' cuts, shape (R, E).

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eqs. 4 and 5, the "-SC" model of Table 2.
    """
    ncut_options = ncut_options or {}
    ds = graph_degrees(W_S) if degrees_s is None else degrees_s
    info: dict[str, Any] = {}
    if template_members is None:
        dt = graph_degrees(W_T) if degrees_t is None else degrees_t
        lt, info["template_step"] = cut_step(None, W_T, dt, n_templates, seed, ncut_options,
                                             units_t, init_t)
    else:
        lt, info["template_step"], info["template_members"] = consensus_template_cut(
            template_members, n_templates, seed, ncut_options, units_t, init_t, init_members)
    if callable(slot_labels):
        slot_labels = slot_labels(lt)
    if slot_labels is not None:
        return lt, np.asarray(slot_labels, dtype=np.int64), info
    ls, info["slot_step"] = cut_step(None, W_S, ds, n_slots, seed, ncut_options, units_s,
                                     init_s)
    return lt, ls, info


def consensus_template_cut(
    members: Iterable[tuple[LinearOperator, np.ndarray]],
    n_templates: int,
    seed: int,
    ncut_options: dict[str, Any],
    units_t: np.ndarray | None = None,
    init_t: np.ndarray | None = None,
    init_members: np.ndarray | None = None,
) -> tuple[np.ndarray, dict[str, Any], np.ndarray]:
    """Templates as the normalized cut of the co-association of the members' template cuts
    (``aesi_lib.model.consensus``), tied by ``units_t`` like each member's cut.

    ``init_t`` (shape (E,), -1 where none) warm-starts the consensus cut, and each member's cut
    unless ``init_members`` (shape (R, E)) gives that member a start of its own: an update
    starts each member from its own last cut, so that every member moves as little as a single
    warm-started cut would, and their consensus with them.

    Returns
    -------
    template_labels : ndarray of shape (E,)
    info : dict
        The consensus cut's eigen diagnostics, with the members' under ``"members"``.
    member_labels : ndarray of shape (R, E)
        The members' template cuts.

    References
    ----------
    .. [1] A. L. N. Fred and A. K. Jain, "Combining Multiple Clusterings Using Evidence
       Accumulation", IEEE TPAMI 27(6), 2005: the co-association of the members (cut here by a
       normalized cut, not by their hierarchical clustering).
    """
    partitions, member_info = [], []
    # The members share W_T's terms and differ in their weights only: reduce each term to the
    # units once, not once a member.
    reduced: dict[int, Any] = {}
    for r, (graph, graph_degrees_) in enumerate(members):
        start = init_t
        if init_members is not None and r < len(init_members) and (init_members[r] >= 0).any():
            start = init_members[r]
        labels, info = cut_step(None, graph, graph_degrees_, n_templates, seed, ncut_options,
                                units_t, start, reduced)
        partitions.append(labels)
        member_info.append(info)
    C = coassociation_operator(partitions)
    labels, info = cut_step(None, C, graph_degrees(C), n_templates, seed, ncut_options, units_t,
                            init_t)
    info["members"] = member_info
    return labels, info, np.stack(partitions)
