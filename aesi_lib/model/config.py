"""The settings of one induction: sizes, solver mode, units, slot model and similarity."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
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
        AMP iteration cap.
    tol : float
        AMP stopping threshold on ``‖R_TᵀR_T - I‖ + ‖R_SᵀR_S - I‖``.
    seed : int
        Seeds initialisation, eigensolver start vectors and discretisation.
    similarity : SimilarityOptions
        Weights and conventions of W_T and W_S.
    solver : {"eigsh", "lobpcg"}
        Eigensolver for the relaxed cuts.
    eig_tol : float
        Eigensolver tolerance.
    deflate : bool
        Deflate the trivial eigenpair in the unconstrained cuts.
    n_init : int
        Yu-Shi discretisations per cut (seeds ``seed..seed+n_init-1``); the best normalized
        association wins.
    template_unit : {"mention", "predicate"}
        What a template label is given to: each entity mention (the paper), or each predicate
        lemma, all of whose mentions then share a template (the cut of ``Gᵀ W_T G``; see
        ``aesi_lib.model.tying.unit_indicator``). Not in the paper: an option of the quality track.
    slot_unit : {"mention", "pattern"}
        What a slot label is given to: each entity mention (the paper), or each pattern
        (dependency label, set of semantic types) shared by several mentions.
    slot_model : {"cut", "factored"}
        "cut": slots are the normalized cut of W_S (Eqs. 2 and 5, the paper); "factored": a slot
        is an argument position crossed with an induced semantic class of the head
        (``aesi_lib.model.factored_slots``; needs ``mode="sc"`` and ``n_slots`` a multiple of 4;
        ``slot_unit`` does not apply). Not in the paper: an option of the quality track.
    """

    n_templates: int = 6
    n_slots: int = 4
    mode: ModelMode = "scaled"
    constraint_weight: float = 0.3
    init: Literal["random", "sc"] = "sc"
    max_iter: int = 10
    tol: float = 1e-6
    seed: int = 0
    similarity: SimilarityOptions = field(default_factory=SimilarityOptions)
    solver: Literal["eigsh", "lobpcg"] = "eigsh"
    eig_tol: float = 1e-8
    deflate: bool = False
    n_init: int = 1
    template_unit: Literal["mention", "predicate"] = "mention"
    slot_unit: Literal["mention", "pattern"] = "mention"
    slot_model: Literal["cut", "factored"] = "cut"

    def __post_init__(self) -> None:
        if self.template_unit not in ("mention", "predicate"):
            raise ValueError(f"template_unit must be 'mention' or 'predicate', "
                             f"got {self.template_unit!r}")
        if self.slot_unit not in ("mention", "pattern"):
            raise ValueError(f"slot_unit must be 'mention' or 'pattern', got {self.slot_unit!r}")
        if self.mode not in ("sc", "literal", "scaled"):
            raise ValueError(f"mode must be 'sc', 'literal' or 'scaled', got {self.mode!r}")
        if self.n_templates < 1 or self.n_slots < 1:
            raise ValueError("n_templates and n_slots must be >= 1")
        if self.slot_model not in ("cut", "factored"):
            raise ValueError(f"slot_model must be 'cut' or 'factored', got {self.slot_model!r}")
        if self.slot_model == "factored":
            if self.mode != "sc":
                raise ValueError("slot_model='factored' fixes the slots, so it needs mode='sc' "
                                 "(for AMP, cut the slots: slot_model='cut')")
            if self.n_slots % len(ARGUMENT_POSITIONS):
                raise ValueError(f"slot_model='factored' needs n_slots to be a multiple of "
                                 f"{len(ARGUMENT_POSITIONS)}, got {self.n_slots}")
