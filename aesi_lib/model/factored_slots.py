"""Factored slots: a slot is an argument position crossed with a semantic class of the head.

Not in the paper; an option of the quality track (``ModelConfig.slot_model = "factored"``).
The paper's slot graph W_S (Eq. 2) adds a dependency clique, a predicate-vector cosine and a
type clique. Cut into slots, the dependency clique wins: on MUC-4 one slot held every ``nsubj``
and another every ``dobj``, so a bomb that was placed and a building that was destroyed shared
a slot and Instrument F1 was 0. A factored slot keeps the two signals apart:

* the **argument position** of the dependency label, a fixed linguistic grouping
  (:data:`aesi_lib.entities.positions.ARGUMENT_POSITIONS`): subject, object, locative
  oblique, other;
* the **semantic class** of the head word, induced by a normalized cut (Eqs. 3-6) of
  W_H = δ(shared type) + cos(head vectors)
  (:func:`aesi_lib.model.similarity.head_class_similarity`), with the labels of all mentions of
  one head word tied (:func:`aesi_lib.model.tying.unit_indicator`).

The slot of a mention is ``position · n_classes + class``, so |S| = 4 · n_classes.

The classes are cut once over the whole corpus (``ModelConfig.class_scope = "corpus"``), or
within each template over the head words of its mentions (``"template"``,
:func:`semantic_classes_by_template`): the evaluation maps each gold slot to one slot of one
template, and a template's classes are then cut among the words it holds instead of a
corpus-wide partition that spends classes on words it never sees. The default preset cuts
them within each template (docs/experiments/class-scope.md).

Where labels become roles (the export, ``aesi extract``), the subject slots of a template that
are subjects of the same predicates are merged into one role
(:mod:`aesi_lib.model.subject_merge`); the labels this module returns are the cut's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.ncut import normalized_cut
from aesi_lib.model.similarity import (
    SimilarityOptions,
    TermsOf,
    head_class_similarity,
    head_class_terms,
)
from aesi_lib.model.tying import tied_operator, unit_indicator, unit_majority


def factored_slot(positions: np.ndarray, classes: np.ndarray, n_classes: int) -> np.ndarray:
    """The slot code ``position · n_classes + class`` of each mention (-1 where the class is
    -1, no label)."""
    positions = np.asarray(positions, dtype=np.int64)
    classes = np.asarray(classes, dtype=np.int64)
    return np.where(classes >= 0, positions * n_classes + classes, -1)


def slot_class(slots: np.ndarray, n_classes: int) -> np.ndarray:
    """The semantic class of each factored slot code (-1 stays -1): the inverse of
    :func:`factored_slot` for the class."""
    slots = np.asarray(slots, dtype=np.int64)
    return np.where(slots >= 0, slots % n_classes, -1)


def semantic_classes(
    features: EntityFeatures,
    n_classes: int,
    seed: int = 0,
    *,
    options: SimilarityOptions | None = None,
    ncut_options: dict[str, Any] | None = None,
    init_classes: np.ndarray | None = None,
    class_terms: TermsOf = head_class_terms,
) -> np.ndarray:
    """Semantic class of every mention: the normalized cut of W_H tied by head word.

    Parameters
    ----------
    features : EntityFeatures
        |E| mentions; uses ``head_ids``, ``head_vectors`` and ``types``.
    n_classes : int
        Number of classes.
    seed : int
    options : SimilarityOptions, optional
        Weights of W_H (``type_weight``, ``cos_h_weight``) and its conventions.
    ncut_options : dict, optional
        Passed to :func:`aesi_lib.model.ncut.normalized_cut` (``n_init``, ...).
    init_classes : ndarray of shape (E,), int, optional
        Warm start from previous classes (-1 where none): a head starts from its mentions'
        most frequent previous class.
    class_terms : callable
        The terms of W_H (:func:`aesi_lib.model.similarity.head_class_terms`, or an
        experiment's own: ``aesi_lib.model.parts``).

    Returns
    -------
    ndarray of shape (E,), int
        Class in ``0 .. n_classes - 1``; mentions with the same head word share it.
    """
    heads = np.unique(np.asarray(features.head_ids), return_inverse=True)[1].astype(np.int64)
    W = head_class_similarity(features, options, terms=class_terms)
    G = unit_indicator(heads)
    degrees = np.asarray(G.T @ W.degrees())
    if np.any(degrees <= 0):
        # Only the type term can leave a head isolated: one whose head has no type at all.
        raise ValueError(
            f"{int(np.sum(degrees <= 0))} head words have no similarity to any other (no "
            "semantic type and cos_h_weight = 0); keep the head-vector cosine in W_H"
        )
    head_init = None
    if init_classes is not None:
        head_init = unit_majority(heads, init_classes, G.shape[1])
    head_labels = normalized_cut(
        tied_operator(W, G), n_classes, seed, degrees=degrees, init_labels=head_init,
        **(ncut_options or {}),
    )
    return np.asarray(head_labels, dtype=np.int64)[heads]


def semantic_classes_by_template(
    features: EntityFeatures,
    templates: np.ndarray,
    n_classes: int,
    seed: int = 0,
    *,
    options: SimilarityOptions | None = None,
    ncut_options: dict[str, Any] | None = None,
    init_classes: np.ndarray | None = None,
    class_terms: TermsOf = head_class_terms,
) -> np.ndarray:
    """Semantic class of every mention, cut within its template: for each template, the
    normalized cut of W_H over that template's mentions, tied by head word
    (:func:`semantic_classes` on the template's rows).

    Parameters
    ----------
    features : EntityFeatures
        |E| mentions.
    templates : ndarray of shape (E,), int
        The template of each mention.
    n_classes : int
        Classes per template; a template with fewer distinct head words gets one class per
        head word.
    seed, options, ncut_options, init_classes, class_terms
        As in :func:`semantic_classes` (``init_classes`` over all |E| mentions).

    Returns
    -------
    ndarray of shape (E,), int
        Class in ``0 .. n_classes - 1``; mentions with the same head word *and template*
        share it.
    """
    templates = np.asarray(templates, dtype=np.int64)
    classes = np.zeros(templates.shape[0], dtype=np.int64)
    for template in np.unique(templates):
        rows = np.flatnonzero(templates == template)
        part = features.subset(rows)
        k = min(n_classes, np.unique(part.head_ids).shape[0])
        if k > 1:
            classes[rows] = semantic_classes(
                part, k, seed, options=options, ncut_options=ncut_options,
                init_classes=_usable_start(init_classes, rows, k), class_terms=class_terms)
    return classes


def _usable_start(init_classes: np.ndarray | None, rows: np.ndarray, k: int
                  ) -> np.ndarray | None:
    """The previous classes of ``rows`` as a warm start of a cut into ``k`` classes.

    Only the partition matters (the numbers are matched to the previous ones afterwards,
    ``aesi_lib.model.carry``), so the previous classes are renumbered 0, 1, ... by size, and
    beyond the k largest count as none (the template now has fewer head words, or its class
    numbers run past k). A template whose mentions had no class at all (every one new) is cut
    from its seed (None)."""
    if init_classes is None:
        return None
    start = np.asarray(init_classes, dtype=np.int64)[rows]
    labelled = start >= 0
    if not labelled.any():
        return None
    classes, counts = np.unique(start[labelled], return_counts=True)
    # Largest first; ties to the lower class number, so the start does not depend on order.
    order = classes[np.lexsort((classes, -counts))][:k]
    renumber = {int(c): i for i, c in enumerate(order)}
    return np.asarray([renumber.get(int(c), -1) for c in start], dtype=np.int64)


def factored_slot_labels(
    features: EntityFeatures,
    n_slots: int,
    seed: int = 0,
    *,
    options: SimilarityOptions | None = None,
    ncut_options: dict[str, Any] | None = None,
    init_slots: np.ndarray | None = None,
    templates: np.ndarray | None = None,
    class_terms: TermsOf = head_class_terms,
    classes_by_template: Callable[..., np.ndarray] | None = None,
) -> np.ndarray:
    """Slot of every mention: ``position · (n_slots / 4) + semantic class``.

    Parameters
    ----------
    features : EntityFeatures
        Must carry ``argument_positions`` (:func:`aesi_lib.model.features.build_features`
        fills them).
    n_slots : int
        |S|, a multiple of ``len(ARGUMENT_POSITIONS)`` (4).
    seed, options, ncut_options
        As in :func:`semantic_classes`.
    init_slots : ndarray of shape (E,), int, optional
        Warm start from previous slots (-1 where none); their classes start the class cut.
    templates : ndarray of shape (E,), int, optional
        Cut the classes within each of these templates
        (:func:`semantic_classes_by_template`, ``class_scope="template"``); None: once over
        the corpus.
    class_terms : callable
        The terms of W_H, as in :func:`semantic_classes`.
    classes_by_template : callable, optional
        What cuts the classes within the templates, with the arguments of
        :func:`semantic_classes_by_template` (None: that function; an experiment's own:
        ``aesi_lib.model.parts``).

    Returns
    -------
    ndarray of shape (E,), int
    """
    n_positions = len(ARGUMENT_POSITIONS)
    if n_slots < n_positions or n_slots % n_positions:
        raise ValueError(
            f"factored slots need n_slots to be a multiple of {n_positions} (one block of "
            f"semantic classes per argument position), got {n_slots}"
        )
    if features.argument_positions is None:
        raise ValueError("factored slots need features.argument_positions; rebuild the features")
    n_classes = n_slots // n_positions
    init_classes = None if init_slots is None else slot_class(init_slots, n_classes)
    if templates is None:
        classes = semantic_classes(features, n_classes, seed, options=options,
                                   ncut_options=ncut_options, init_classes=init_classes,
                                   class_terms=class_terms)
    else:
        by_template = classes_by_template or semantic_classes_by_template
        classes = by_template(features, templates, n_classes, seed, options=options,
                              ncut_options=ncut_options, init_classes=init_classes,
                              class_terms=class_terms)
    return factored_slot(features.argument_positions, classes, n_classes)
