"""Induction: one call from :class:`EntityFeatures` to template and slot labels.

>>> from aesi_lib.model import ModelConfig, induce, planted_features
>>> features, _, _ = planted_features(2000, seed=0)
>>> result = induce(features, ModelConfig(n_templates=6, n_slots=4, mode="scaled"))
>>> result.template_labels.shape
(2000,)

:func:`induce` builds W_T and W_S (``aesi_lib.model.similarity``), then solves the -SC cuts
(``aesi_lib.model.sc``) or the AMP (``aesi_lib.model.amp``), with factored slots
(``aesi_lib.model.factored_slots``) when configured. Pure: no Prefect, no I/O.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from aesi_lib.model.amp import Progress, solve_amp
from aesi_lib.model.carry import PreviousLabels, within_configuration
from aesi_lib.model.config import ModelConfig, check_unit_counts
from aesi_lib.model.consensus import member_context_weights
from aesi_lib.model.constraint import sentence_indicator
from aesi_lib.model.factored_slots import factored_slot_labels
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.objective import joint_objective
from aesi_lib.model.parts import DEFAULT_PARTS, ModelParts
from aesi_lib.model.sc import solve_sc
from aesi_lib.model.similarity import (
    slot_similarity,
    template_similarity,
    with_context_weight,
)
from aesi_lib.model.terms import SimilarityOperator


@dataclass
class InductionResult:
    """Labels and diagnostics of :func:`induce`.

    Attributes
    ----------
    template_labels, slot_labels : ndarray of shape (E,), int
    history : list of dict
        Per-iteration objective terms and step diagnostics (``aesi_lib.model.amp.solve_amp``); for
        mode "sc" a single entry.
    timings : dict
        Seconds: ``similarity``, ``degrees``, ``solve``, ``total``.
    eigen_residuals : dict
        Largest ``‖N v - λ v‖`` of each step (``template``/``slot`` lists, one per solve).
    converged : bool
    n_iter : int
    config : ModelConfig
    template_members : ndarray of shape (R, E), int, or None
        The template cuts of the R consensus members (``model.consensus_members`` > 1), which
        an update warm-starts its members from; None without consensus. Not in
        :meth:`to_dict`.
    """

    template_labels: np.ndarray
    slot_labels: np.ndarray
    history: list[dict[str, Any]]
    timings: dict[str, float]
    eigen_residuals: dict[str, list[float]]
    converged: bool
    n_iter: int
    config: ModelConfig
    template_members: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (labels as lists)."""
        return {
            "template_labels": self.template_labels.tolist(),
            "slot_labels": self.slot_labels.tolist(),
            "history": _jsonable(self.history),
            "timings": dict(self.timings),
            "eigen_residuals": _jsonable(self.eigen_residuals),
            "converged": bool(self.converged),
            "n_iter": int(self.n_iter),
            "config": _jsonable(asdict(self.config)),
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    return value


def induce(
    features: EntityFeatures, config: ModelConfig | None = None, progress: Progress | None = None,
    previous: PreviousLabels | None = None, on_stage: Callable[[str, int, int], None] | None = None,
    parts: ModelParts = DEFAULT_PARTS,
) -> InductionResult:
    """Induce templates and slots: W_T, W_S (Eqs. 1-2), then -SC cuts or AMP (Eqs. 3-9).

    Parameters
    ----------
    features : EntityFeatures
        |E| entity mentions.
    config : ModelConfig, optional
    progress : callable, optional
        ``progress(iteration, terms)`` after every AMP iteration.
    previous : PreviousLabels, optional
        Labels of an earlier solution for the mentions it shared with this one
        (``aesi_lib.model.carry``): the -SC cuts are warm-started from them, so an
        incremental update keeps its partition (AMP modes start as usual). Their ids are
        carried afterwards by ``aesi_lib.model.carry.carry_ids``.
    on_stage : callable, optional
        ``on_stage(stage, done, total)`` as each part of a -SC solve starts: ``"template
        cut"`` with the consensus members cut so far and their number (1 without consensus),
        then ``"slot classes"`` (0 of 1); for progress reports.
    parts : ModelParts, optional
        The functions of the replaceable parts (``aesi_lib.model.parts``): the library's own
        unless an experiment passes its variant.

    Returns
    -------
    InductionResult
    """
    config = config or ModelConfig()
    features.validate()
    t0 = time.perf_counter()
    W_T = template_similarity(features, config.similarity, terms=parts.template_terms)
    W_S = slot_similarity(features, config.similarity)
    t1 = time.perf_counter()
    dt = W_T.degrees()
    ds = W_S.degrees()
    t2 = time.perf_counter()
    ncut_options = {"n_init": config.n_init}
    units_t, units_s = parts.label_units(features, config)
    check_unit_counts(config, features, units_t, units_s)
    init_t = init_s = None
    if previous is not None:
        _check_previous(previous, features.n_entities, config)
        init_t, init_s = previous.template, previous.slot
    stage = on_stage or (lambda name, done, total: None)
    if config.mode == "sc":
        factored: np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None
        if config.slot_model == "factored":
            def slots_of(templates: np.ndarray | None) -> np.ndarray:
                stage("slot classes", 0, 1)
                return factored_slot_labels(
                    features, config.n_slots, config.seed, options=config.similarity,
                    ncut_options=ncut_options, init_slots=init_s, templates=templates,
                    class_terms=parts.class_terms,
                    classes_by_template=parts.classes_by_template)

            # Classes cut within each template wait for the templates: solve_sc calls them.
            factored = slots_of(None) if config.class_scope == "corpus" else slots_of
        lt, ls, info = solve_sc(
            W_T, W_S, config.n_templates, config.n_slots, config.seed,
            degrees_t=dt, degrees_s=ds, ncut_options=ncut_options,
            units_t=units_t, units_s=units_s, slot_labels=factored,
            init_t=init_t, init_s=init_s,
            template_members=_reported(consensus_members(W_T, config), config, stage),
            init_members=None if previous is None else previous.template_members,
        )
        template_members = info.pop("template_members", None)
        entry = {"iteration": 0, **info}
        # The joint objective of Eq. 9 is recorded for -SC as well, so runs are comparable.
        entry.update(joint_objective(W_T, dt, W_S, ds, sentence_indicator(features.sentence_ids),
                                     lt, ls, config.n_templates, config.n_slots))
        history = [entry]
        if progress is not None:
            progress(0, entry)
        converged, n_iter = True, 0
    else:
        res = solve_amp(
            W_T, W_S, features.sentence_ids, config.n_templates, config.n_slots,
            mode=config.mode, weight=config.constraint_weight, init=config.init,
            max_iter=config.max_iter, seed=config.seed,
            degrees_t=dt, degrees_s=ds, ncut_options=ncut_options, progress=progress,
            units_t=units_t, units_s=units_s,
        )
        lt, ls, history = res.template_labels, res.slot_labels, res.history
        template_members = None
        converged, n_iter = res.converged, res.n_iter
    t3 = time.perf_counter()
    residuals: dict[str, list[float]] = {"template": [], "slot": []}
    for entry in history:
        for step, key in (("template_step", "template"), ("slot_step", "slot")):
            if step in entry:
                residuals[key].append(entry[step]["max_residual"])
    return InductionResult(
        template_labels=np.asarray(lt, dtype=np.int64),
        slot_labels=np.asarray(ls, dtype=np.int64),
        history=history,
        timings={
            "similarity": t1 - t0,
            "degrees": t2 - t1,
            "solve": t3 - t2,
            "total": t3 - t0,
        },
        eigen_residuals=residuals,
        converged=converged,
        n_iter=n_iter,
        config=config,
        template_members=template_members,
    )


def _reported(members: Iterator[tuple[SimilarityOperator, np.ndarray]] | None,
              config: ModelConfig, stage: Callable[[str, int, int], None]
              ) -> Iterator[tuple[SimilarityOperator, np.ndarray]] | None:
    """``members`` with ``stage("template cut", r, R)`` before member r is cut."""
    stage("template cut", 0, config.consensus_members)
    if members is None:
        return None

    def counted() -> Iterator[tuple[SimilarityOperator, np.ndarray]]:
        for r, member in enumerate(members):
            if r:
                stage("template cut", r, config.consensus_members)
            yield member

    return counted()


def consensus_members(W_T: SimilarityOperator, config: ModelConfig
                      ) -> Iterator[tuple[SimilarityOperator, np.ndarray]] | None:
    """W_T and its degrees at each context weight of the consensus members
    (:func:`aesi_lib.model.consensus.member_context_weights`), one at a time, sharing the
    terms of the run's ``W_T`` (:func:`aesi_lib.model.similarity.with_context_weight`); None
    without consensus (``consensus_members`` 1)."""
    if config.consensus_members == 1:
        return None
    weights = member_context_weights(config.similarity.context_weight, config.consensus_spread,
                                     config.consensus_members)

    def members() -> Iterator[tuple[SimilarityOperator, np.ndarray]]:
        for weight in weights:
            W = with_context_weight(W_T, config.similarity, float(weight))
            yield W, W.degrees()

    return members()


def _check_previous(previous: PreviousLabels, n: int, config: ModelConfig) -> None:
    if previous.template.shape != (n,) or previous.slot.shape != (n,):
        raise ValueError(f"previous labels must have one entry per mention ({n})")
    if not within_configuration(previous.template, previous.slot, config):
        raise ValueError("previous labels lie outside |T| or |S| of this configuration: "
                         "a solution of another configuration cannot be carried forward")
