"""Fill the slots of new documents with an induced schema, without solving again.

A new mention follows the run's own rule first (``aesi_lib.model.units``): a mention of a unit
the run has seen takes that unit's label: its predicate's template when templates are tied by
predicate, its head word's semantic class (and its own argument position) under factored
slots (the head word's class within the mention's template when the classes are cut within
each template, ``class_scope="template"``), its (dependency, type set) pattern's slot when
slots are tied by pattern. Only a mention of a unit the run has not seen, or every mention of
a model that labels mentions one by one, is placed by similarity: the template (slot, class)
whose members it is most similar to on average,

    score_T(i, t) = (1/|t|) Σ_{j ∈ t} W_T(i, j),   score_S(i, s) = (1/|s|) Σ_{j ∈ s} W_S(i, j),

with W_T and W_S the run's own graphs (Eqs. 1-2, ``aesi_lib.model.similarity``): the rows of
the rectangular block between the new mentions and the training mentions, same terms, weights
and conventions, so ``score = (W_new,train @ X) / |cluster|`` with X the one-hot labels. For
factored slots the class score uses W_H the same way. No |E|×|E| matrix is built: the block is
applied to the |E|×k indicator. A unit the run has not seen is placed once, as the training
tie would: the new mentions of one unseen predicate (head word, pattern) sum their scores and
all take the best label of the sum.

With context vectors (``features.context``), the new mentions carry the vectors of the same
encoder pass as the training mentions
(``aesi_lib.lexicon.mention_context.mention_context_vectors``), so the context terms score them
like any other term.

Consensus templates (``model.consensus_members``, ``aesi_lib.model.consensus``) need no rule of
their own: W_T at the run's context weight is the mean of the members' graphs, so an unseen
predicate is scored against the graph the members share on average.

The new mentions' words are looked up in the training vocabulary (:func:`align_features`): a
head word the training corpus never had has no PMI with anything (0), an unseen dependency label
matches no member, and semantic types unknown to the training corpus are ignored. The sentence
constraint is not applied. Pure: no I/O, no Prefect.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model.config import ModelConfig
from aesi_lib.model.factored_slots import factored_slot, slot_class
from aesi_lib.model.features import EntityFeatures, FeatureVocabulary
from aesi_lib.model.ncut import indicator_matrix
from aesi_lib.model.parts import DEFAULT_PARTS, ModelParts
from aesi_lib.model.similarity import (
    SimilarityOptions,
    TermsOf,
    head_class_terms,
    similarity_operator,
    slot_terms,
    template_terms,
)
from aesi_lib.model.units import unit_labels


@dataclass(frozen=True)
class SlotFill:
    """Templates and slots of new entity mentions.

    Attributes
    ----------
    template, slot : ndarray of shape (N,), int
        The template and slot of each new mention.
    template_scores : ndarray of shape (N, |T|)
        Mean W_T similarity to the members of each template (-inf for an empty template).
    slot_scores : ndarray of shape (N, |S|)
        Mean W_S similarity to the members of each slot (factored slots: mean W_H similarity
        to each class of the mention's own position block, -inf elsewhere; -inf for an empty
        slot).
    template_known, slot_known : ndarray of shape (N,), bool
        The label came from a unit the run has seen (True) or from the similarity (False).
    """

    template: np.ndarray
    slot: np.ndarray
    template_scores: np.ndarray
    slot_scores: np.ndarray
    template_known: np.ndarray
    slot_known: np.ndarray


def _index_map(names: Sequence[str], known: Sequence[str]) -> np.ndarray:
    """Position of each name in ``known`` (-1 when absent)."""
    lookup = {name: i for i, name in enumerate(known)}
    return np.asarray([lookup.get(name, -1) for name in names], dtype=np.int64)


def align_features(new: EntityFeatures, new_vocab: FeatureVocabulary,
                   train: EntityFeatures, train_vocab: FeatureVocabulary) -> EntityFeatures:
    """The new mentions' features in the id spaces of the training features.

    Head ids index the training PMI (-1 for a head it lacks), dependency ids the training
    labels (-1), predicate ids the training predicates (-1; their salience), and the type
    indicator is over the training type columns (types unknown to the training corpus
    dropped); vectors are the new mentions' own. The result is the ``rows`` argument of the
    similarity graphs (``aesi_lib.model.similarity``).
    """
    heads = _index_map([new_vocab.heads[h] for h in new.head_ids], train_vocab.heads)
    deps = _index_map([new_vocab.deps[d] for d in new.dep_ids], train_vocab.deps)
    predicates = new.predicate_ids
    if predicates is not None:
        # Without the new mentions' predicate names, none can be matched.
        predicates = (_index_map([new_vocab.predicates[p] for p in predicates],
                                 train_vocab.predicates) if new_vocab.predicates
                      else np.full(new.n_entities, -1, dtype=np.int64))
    column = _index_map(list(new_vocab.types), train_vocab.types)
    coo = sp.csr_matrix(new.types, dtype=np.float64).tocoo()
    keep = column[coo.col] >= 0
    types = sp.csr_matrix((np.ones(int(keep.sum())), (coo.row[keep], column[coo.col[keep]])),
                          shape=(new.n_entities, train.types.shape[1]))
    return dataclasses.replace(new, head_ids=heads, dep_ids=deps, predicate_ids=predicates,
                               types=types, pmi=train.pmi)


def mean_similarity(terms_of: TermsOf, train: EntityFeatures, labels: np.ndarray, k: int,
                    rows: EntityFeatures, options: SimilarityOptions | None = None
                    ) -> np.ndarray:
    """``(W[rows, train] @ X) / |cluster|`` for the graph of ``terms_of``: the mean similarity
    of each row mention to the members of each of the ``k`` clusters of ``labels``.

    Returns
    -------
    ndarray of shape (N, k); -inf where a cluster has no member.
    """
    X = indicator_matrix(labels, k)
    sizes = X.sum(axis=0)
    W = similarity_operator(terms_of, train, options, rows)
    scores = np.asarray(W @ X) / np.where(sizes > 0, sizes, 1.0)
    scores[:, sizes == 0] = -np.inf
    return scores


def template_scores(train: EntityFeatures, train_vocab: FeatureVocabulary,
                    template_labels: np.ndarray, new: EntityFeatures,
                    new_vocab: FeatureVocabulary, options: SimilarityOptions | None = None,
                    n_templates: int | None = None, terms: TermsOf = template_terms
                    ) -> np.ndarray:
    """Mean W_T similarity (Eq. 1) of each new mention to the members of each template;
    ``terms``: the terms of W_T (an experiment's own, ``aesi_lib.model.parts``).

    Returns
    -------
    ndarray of shape (N, |T|); -inf where a template has no member.
    """
    k = int(n_templates if n_templates is not None else np.max(template_labels) + 1)
    rows = align_features(new, new_vocab, train, train_vocab)
    return mean_similarity(terms, train, template_labels, k, rows, options)


def slot_scores(train: EntityFeatures, train_vocab: FeatureVocabulary, slot_labels: np.ndarray,
                new: EntityFeatures, new_vocab: FeatureVocabulary,
                options: SimilarityOptions | None = None, n_slots: int | None = None
                ) -> np.ndarray:
    """Mean W_S similarity (Eq. 2) of each new mention to the members of each slot.

    Returns
    -------
    ndarray of shape (N, |S|); -inf where a slot has no member.
    """
    k = int(n_slots if n_slots is not None else np.max(slot_labels) + 1)
    rows = align_features(new, new_vocab, train, train_vocab)
    return mean_similarity(slot_terms, train, slot_labels, k, rows, options)


def factored_slot_scores(train: EntityFeatures, train_vocab: FeatureVocabulary,
                         slot_labels: np.ndarray, new: EntityFeatures,
                         new_vocab: FeatureVocabulary, n_slots: int,
                         options: SimilarityOptions | None = None,
                         templates: tuple[np.ndarray, np.ndarray] | None = None,
                         class_terms: TermsOf = head_class_terms) -> np.ndarray:
    """Slot scores under factored slots (``aesi_lib.model.factored_slots``), W_H's terms
    listed by ``class_terms`` (an experiment's own, ``aesi_lib.model.parts``).

    A new mention keeps its own argument position; within that position's block of slots it
    scores each semantic class by its mean W_H similarity to the class's training mentions.
    With ``templates`` (the training mentions' and the new mentions' templates; classes cut
    within each template, ``class_scope="template"``), only the class's members in the new
    mention's own template count.

    Returns
    -------
    ndarray of shape (N, n_slots); -inf outside the mention's position block and where a
    class has no member.
    """
    if new.argument_positions is None:
        raise ValueError("factored slots need the new mentions' argument_positions")
    n_classes = n_slots // len(ARGUMENT_POSITIONS)
    classes = slot_class(slot_labels, n_classes)
    rows = align_features(new, new_vocab, train, train_vocab)
    if templates is None:
        class_scores = mean_similarity(class_terms, train, classes, n_classes, rows,
                                       options)
    else:
        trained_t, new_t = (np.asarray(t, dtype=np.int64) for t in templates)
        n_templates = int(max(trained_t.max(initial=0), new_t.max(initial=0))) + 1
        # One cluster per (template, class); each new mention reads its template's block.
        per_template = mean_similarity(class_terms, train,
                                       trained_t * n_classes + classes,
                                       n_templates * n_classes, rows, options)
        class_scores = per_template.reshape(new.n_entities, n_templates, n_classes)[
            np.arange(new.n_entities), new_t]
    scores = np.full((new.n_entities, n_slots), -np.inf)
    positions = np.asarray(new.argument_positions, dtype=np.int64)
    for position in range(len(ARGUMENT_POSITIONS)):
        members = positions == position
        block = slice(position * n_classes, (position + 1) * n_classes)
        scores[members, block] = class_scores[members]
    return scores


def _by_unit(names: np.ndarray | None, new_names: np.ndarray | None, labels: np.ndarray,
             n: int) -> tuple[np.ndarray, np.ndarray]:
    """The label of each of the ``n`` new mentions' unit where the run has seen it; a mask of
    those (all False when the configuration labels mentions one by one)."""
    if names is None or new_names is None:
        return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
    table = unit_labels(names, labels)
    found = np.asarray([table.get(str(name), -1) for name in new_names], dtype=np.int64)
    return np.maximum(found, 0), found >= 0


def _within_template(templates: np.ndarray, names: np.ndarray) -> np.ndarray:
    """``"<template>\t<name>"`` per mention: a unit name that holds within one template."""
    return np.asarray([f"{t}\t{name}" for t, name in zip(templates, names, strict=True)],
                      dtype=object)


def _argmax(scores: np.ndarray) -> np.ndarray:
    return np.argmax(scores, axis=1).astype(np.int64) if len(scores) else np.zeros(0, np.int64)


def _unit_argmax(scores: np.ndarray, names: np.ndarray | None) -> np.ndarray:
    """The best column of each row, decided once per unit: the rows that share a name (the
    new mentions of one unseen unit) take the column of their summed scores, as the training
    tie gives all mentions of a unit one label (``names`` None: row by row). -inf entries
    (empty clusters, other position blocks) stay -inf in the sum."""
    if names is None or not len(scores):
        return _argmax(scores)
    _, inverse = np.unique(np.asarray(names).astype(str), return_inverse=True)
    inverse = inverse.reshape(-1)
    summed = np.zeros((int(inverse.max()) + 1, scores.shape[1]))
    np.add.at(summed, inverse, scores)
    return _argmax(summed)[inverse]


def fill_slots(train: EntityFeatures, train_vocab: FeatureVocabulary,
               template_labels: np.ndarray, slot_labels: np.ndarray,
               new: EntityFeatures, new_vocab: FeatureVocabulary,
               config: ModelConfig | None = None, parts: ModelParts = DEFAULT_PARTS
               ) -> SlotFill:
    """Label each new mention by the run's unit rule, and by similarity where it has none.

    Parameters
    ----------
    train, train_vocab : the features the schema was induced on (``aesi_lib.model.features``).
    template_labels, slot_labels : ndarray of shape (|E|,), the induced labels.
    new, new_vocab : features of the new mentions (``build_features`` on their entity table;
        their PMI is not used: the training PMI is looked up by head word).
    config : the run's ModelConfig (units, slot model, |T|, |S| and the similarity options);
        None: mention-level cut slots with |T| and |S| read off the labels.
    parts : the parts the schema was solved with (``aesi_lib.model.parts``; the library's own
        unless an experiment passes its variant).

    Returns
    -------
    SlotFill
    """
    if config is None:
        config = ModelConfig(n_templates=int(np.max(template_labels)) + 1,
                             n_slots=int(np.max(slot_labels)) + 1, mode="sc")
    options = config.similarity
    ts = template_scores(train, train_vocab, template_labels, new, new_vocab, options,
                         config.n_templates, terms=parts.template_terms)
    trained = parts.unit_names(train, train_vocab, config)
    fresh = parts.unit_names(new, new_vocab, config)
    unit_t, known_t = _by_unit(trained.template, fresh.template, template_labels,
                              new.n_entities)
    template = np.where(known_t, unit_t, _unit_argmax(ts, fresh.template))
    if config.slot_model == "factored":
        by_template = config.class_scope == "template"
        ss = factored_slot_scores(train, train_vocab, slot_labels, new, new_vocab,
                                  config.n_slots, options,
                                  (template_labels, template) if by_template else None,
                                  class_terms=parts.class_terms)
        n_classes = config.n_slots // len(ARGUMENT_POSITIONS)
        # The class unit is the head word, or the head word within the template when the
        # classes are cut within each template (the rule of factored_slots).
        trained_c, fresh_c = trained.head_class, fresh.head_class
        if by_template:
            trained_c = _within_template(template_labels, trained_c)
            fresh_c = _within_template(template, fresh_c)
        unit_c, known_s = _by_unit(trained_c, fresh_c, slot_class(slot_labels, n_classes),
                                   new.n_entities)
        # The class is the unit's, the position each mention's own.
        class_scores = ss.reshape(len(ss), len(ARGUMENT_POSITIONS), n_classes).max(axis=1)
        slot = factored_slot(new.argument_positions, np.where(
            known_s, unit_c, _unit_argmax(class_scores, fresh_c)), n_classes)
    else:
        ss = slot_scores(train, train_vocab, slot_labels, new, new_vocab, options,
                         config.n_slots)
        unit_s, known_s = _by_unit(trained.slot, fresh.slot, slot_labels, new.n_entities)
        slot = np.where(known_s, unit_s, _unit_argmax(ss, fresh.slot))
    return SlotFill(template=template.astype(np.int64), slot=slot.astype(np.int64),
                    template_scores=ts, slot_scores=ss, template_known=known_t,
                    slot_known=known_s)
