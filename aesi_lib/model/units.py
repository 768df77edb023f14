"""Units: which mentions share a label because they share a predicate, a pattern or a head.

The rule is one and lives here. :func:`label_units` gives the integer unit codes the solvers tie
(``aesi_lib.model.tying``); :func:`unit_names` names the same units by their words, so that a
new mention of a unit a finished run has seen (``aesi_lib.model.extract``) takes that unit's
label. Not in the paper: options of the quality track (``ModelConfig.template_unit``,
``slot_unit``, ``slot_model``).

* template units (``template_unit="predicate"``): the predicate lemma;
* slot units of cut slots (``slot_unit="pattern"``): the (dependency label, semantic-type set)
  pair;
* class units of factored slots (``slot_model="factored"``): the head lemma, whose mentions
  share one semantic class (``aesi_lib.model.factored_slots``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from aesi_lib.model.config import ModelConfig
from aesi_lib.model.features import EntityFeatures, FeatureVocabulary
from aesi_lib.model.tying import unit_majority
from aesi_lib.model.type_sets import type_set_groups


def label_units(features: EntityFeatures, config: ModelConfig
                ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Unit codes that tie template and slot labels (None: one unit per mention).

    Template units are predicate lemmas (``features.predicate_ids``); slot units are the
    distinct (dependency label, semantic-type set) pairs. Factored slots are not a cut of W_S,
    so they have no slot units (their classes are tied by head word in
    :func:`aesi_lib.model.factored_slots.semantic_classes`).

    Returns
    -------
    units_t, units_s : ndarray of shape (E,), int, or None
    """
    units_t = units_s = None
    if config.template_unit == "predicate":
        if features.predicate_ids is None:
            raise ValueError("template_unit='predicate' needs features.predicate_ids")
        units_t = np.unique(features.predicate_ids, return_inverse=True)[1].astype(np.int64)
    if config.slot_unit == "pattern" and config.slot_model == "cut":
        type_groups, _ = type_set_groups(features.types)
        pairs = np.stack([np.asarray(features.dep_ids), np.asarray(type_groups)], axis=1)
        units_s = np.unique(pairs, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
    return units_t, units_s


@dataclass(frozen=True)
class UnitNames:
    """The units of :func:`label_units` (and the factored slots' class units) by name, one
    entry per mention; None where a label is given per mention."""

    template: np.ndarray | None
    slot: np.ndarray | None
    head_class: np.ndarray | None


def _type_set_names(types: sp.spmatrix, names: tuple[str, ...]) -> list[str]:
    T = sp.csr_matrix(types)
    return [",".join(sorted(names[c] for c in T.indices[T.indptr[i]:T.indptr[i + 1]]))
            for i in range(T.shape[0])]


def unit_names(features: EntityFeatures, vocab: FeatureVocabulary, config: ModelConfig
               ) -> UnitNames:
    """Name of each mention's unit: the predicate lemma, ``"<dep>|<type,...>"`` or the head
    lemma, as the configuration ties them (the partition of :func:`label_units`)."""
    template = slot = head_class = None
    if config.template_unit == "predicate":
        if features.predicate_ids is None:
            raise ValueError("template_unit='predicate' needs features.predicate_ids")
        template = np.asarray(vocab.predicates, dtype=object)[features.predicate_ids]
    if config.slot_model == "factored":
        head_class = np.asarray(vocab.heads, dtype=object)[features.head_ids]
    elif config.slot_unit == "pattern":
        deps = np.asarray(vocab.deps, dtype=object)[features.dep_ids]
        sets = _type_set_names(features.types, vocab.types)
        slot = np.asarray([f"{d}|{t}" for d, t in zip(deps, sets, strict=True)], dtype=object)
    return UnitNames(template, slot, head_class)


def unit_labels(names: np.ndarray, labels: np.ndarray) -> dict[str, int]:
    """The label of each named unit: the most frequent label of its mentions (all of them
    share it when the units were tied in the solve)."""
    keys, inverse = np.unique(names.astype(str), return_inverse=True)
    majority = unit_majority(inverse.reshape(-1), labels, len(keys))
    return {str(key): int(label) for key, label in zip(keys, majority, strict=True)}
