"""The settings of one induction: sizes, solver mode, units, slot model and similarity."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, Literal, get_args, get_origin, get_type_hints

import numpy as np

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.errors import ConfigError
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.similarity import SimilarityOptions

ModelMode = Literal["sc", "literal", "scaled"]


@dataclass(frozen=True)
class ModelConfig:
    """Settings of one induction run.

    Parameters
    ----------
    n_templates, n_slots : int
        |T| and |S| (the paper: 6 and 4 on MUC-4).
    mode : {"sc", "literal", "scaled"}
        "sc": independent template and slot cuts (the paper's "-SC"); "literal": the appendix's
        AMP exactly; "scaled": AMP with the normalised constraint of weight
        ``constraint_weight`` (see ``aesi_lib.model.amp``).
    constraint_weight : float
        λ of the scaled mode: at λ = 1 the same-sentence term carries as much total edge weight
        as the similarity graph. 0.1-1 helped on planted corpora, 3 hurt the slots; choose it on
        DEV.
    init : {"random", "sc"}
        AMP initial partitions: random (the paper) or the -SC solution.
    max_iter : int
        AMP iteration cap (the AMP stops earlier once an iteration moves the partitions by
        less than ``aesi_lib.model.amp.AMP_TOL``).
    seed : int
        Seeds initialisation, eigensolver start vectors and discretisation.
    similarity : SimilarityOptions
        Weights and conventions of W_T and W_S.
    n_init : int
        Yu-Shi discretisations per cut (seeds ``seed..seed+n_init-1``); the best normalized
        association wins.
    template_unit : {"mention", "predicate"}
        What a template label is given to: each entity mention (the paper), or each predicate
        lemma, all of whose mentions then share a template (the cut of ``Gᵀ W_T G``; see
        ``aesi_lib.model.tying.unit_indicator``). Not in the paper: an option of the quality
        track.
    slot_unit : {"mention", "pattern"}
        What a slot label is given to: each entity mention (the paper), or each pattern
        (dependency label, set of semantic types) shared by several mentions.
    slot_model : {"cut", "factored"}
        "cut": slots are the normalized cut of W_S (Eqs. 2 and 5, the paper); "factored": a slot
        is an argument position crossed with an induced semantic class of the head
        (``aesi_lib.model.factored_slots``; needs ``mode="sc"`` and ``n_slots`` a multiple of 4;
        ``slot_unit`` does not apply). Not in the paper: an option of the quality track.
    consensus_members : int
        1: the templates are the cut of W_T. More: they are the consensus of that many cuts of
        W_T at context weights spread evenly over ``similarity.context_weight ±
        consensus_spread`` (``aesi_lib.model.consensus``; needs ``mode="sc"``). Not in the
        paper: an option of the quality track.
    consensus_spread : float
        Half the width of the consensus members' interval of context weights, at most
        ``similarity.context_weight``; unused with one member.
    class_scope : {"corpus", "template"}
        Where the semantic classes of factored slots are cut: once over the head words of the
        whole corpus, or within each template over the head words of its mentions, so that a
        template spends its classes on the words it has (a head word may then have another
        class in another template). Needs ``slot_model="factored"``. Not in the paper: an
        option of the quality track.
    """

    n_templates: int = 6
    n_slots: int = 4
    mode: ModelMode = "scaled"
    constraint_weight: float = 0.3
    init: Literal["random", "sc"] = "sc"
    max_iter: int = 10
    seed: int = 0
    similarity: SimilarityOptions = field(default_factory=SimilarityOptions)
    n_init: int = 1
    template_unit: Literal["mention", "predicate"] = "mention"
    slot_unit: Literal["mention", "pattern"] = "mention"
    slot_model: Literal["cut", "factored"] = "cut"
    consensus_members: int = 1
    consensus_spread: float = 0.0
    class_scope: Literal["corpus", "template"] = "corpus"

    def __post_init__(self) -> None:
        problems = literal_problems(self)
        for name in ("n_templates", "n_slots"):
            if getattr(self, name) < 1:
                problems.append((name, f"must be >= 1, got {getattr(self, name)}"))
        if self.slot_model == "factored" and not problems:
            if self.mode != "sc":
                problems.append(("slot_model", "slot_model='factored' fixes the slots, so it "
                                 "needs mode='sc' (for AMP, cut the slots: slot_model='cut')"))
            if self.n_slots % len(ARGUMENT_POSITIONS):
                problems.append(("n_slots", f"slot_model='factored' needs n_slots to be a "
                                 f"multiple of {len(ARGUMENT_POSITIONS)}, got {self.n_slots}"))
        if self.class_scope == "template" and self.slot_model != "factored":
            problems.append(("class_scope", "'template' cuts the semantic classes of factored "
                             "slots within each template: it needs slot_model='factored' (with "
                             "slot_model='cut', set class_scope='corpus')"))
        problems += _consensus_problems(self)
        if problems:
            raise ConfigError(problems)


def _consensus_problems(config: ModelConfig) -> list[tuple[str, str]]:
    if config.consensus_members < 1:
        return [("consensus_members", f"must be >= 1, got {config.consensus_members}")]
    if config.consensus_members == 1:
        return []
    problems = []
    if config.mode != "sc":
        problems.append(("consensus_members", "consensus templates replace the template cut "
                         "of mode='sc'; AMP alternates its cuts (use mode='sc')"))
    weight = config.similarity.context_weight
    if weight == 0:
        problems.append(("consensus_members", "the consensus members spread the context "
                         "weight, which is 0: set model.consensus_members=1 too"))
    elif not 0.0 < config.consensus_spread <= weight:
        problems.append(("consensus_spread", f"must lie in (0, similarity.context_weight = "
                         f"{weight}] with consensus_members > 1, got {config.consensus_spread}"))
    return problems


@cache
def _literal_choices(cls: type) -> dict[str, tuple[Any, ...]]:
    hints = get_type_hints(cls)
    return {f.name: get_args(hints[f.name]) for f in fields(cls)
            if get_origin(hints[f.name]) is Literal}


def literal_problems(config: Any) -> list[tuple[str, str]]:
    """``(field, message)`` for every field of the dataclass ``config`` whose value is not one
    of the choices of its ``Literal`` annotation.

    The annotation is the one list of a field's choices: these checks, the command line and the
    configuration's JSON schema (``aesi_lib.run.config``) all read it.
    """
    return [(name, f"must be {_one_of(choices)}, got {getattr(config, name)!r}")
            for name, choices in _literal_choices(type(config)).items()
            if getattr(config, name) not in choices]


def _one_of(choices: tuple[Any, ...]) -> str:
    quoted = [repr(c) for c in choices]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def check_unit_counts(config: ModelConfig, features: EntityFeatures,
                      units_t: np.ndarray | None = None, units_s: np.ndarray | None = None
                      ) -> None:
    """Fail, naming the option, when the corpus has fewer units than the cuts need clusters.

    A cut into k clusters needs at least k units, and how many units there are is known only
    once the entity table is: the checks of the configuration alone cannot see it. Without
    this check the eigensolver fails deep in the solve with a bare ``ValueError``.

    Parameters
    ----------
    config : ModelConfig
    features : EntityFeatures
        The mentions to cut (their head words are the units of the factored slots' classes).
    units_t, units_s : ndarray of shape (E,), optional
        Unit codes of the template and slot cuts
        (:func:`aesi_lib.model.units.label_units`); None: one unit per mention.

    Raises
    ------
    ConfigError
        With one problem per size that does not fit, keyed as in a run's configuration, e.g.
        ``("model.n_templates", "500 templates, but the corpus has only 137 entity mentions
        to cut: use at most 137")``.
    """
    def count(units: np.ndarray | None) -> int:
        return features.n_entities if units is None else len(np.unique(units))

    problems = []
    template_units = count(units_t)
    what_t = ({"predicate": "predicate lemmas"}.get(config.template_unit,
                                                   f"{config.template_unit} units")
              if units_t is not None else "entity mentions")
    if config.n_templates > template_units:
        problems.append(("model.n_templates", f"{config.n_templates} templates, but the corpus has "
                         f"only {template_units} {what_t} to cut: use at most {template_units}"))
    if config.slot_model == "factored":
        positions = len(ARGUMENT_POSITIONS)
        classes = config.n_slots // positions
        heads = len(np.unique(np.asarray(features.head_ids)))
        if classes > heads:
            problems.append(("model.n_slots", f"{config.n_slots} factored slots need {classes} "
                             f"semantic classes, but the corpus has only {heads} head words: "
                             f"use at most {heads * positions}"))
    elif config.n_slots > count(units_s):
        what_s = "patterns" if units_s is not None else "entity mentions"
        problems.append(("model.n_slots", f"{config.n_slots} slots, but the corpus has only "
                         f"{count(units_s)} {what_s} to cut: use at most {count(units_s)}"))
    if problems:
        raise ConfigError(problems)
