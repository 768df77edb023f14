"""Semantic classes cut within each template *and argument position*, measured.

Issue 48's lever (c) is the slot confusions inside the mapped templates. A factored slot is an
argument position crossed with a semantic class of the head, and the default cuts a
template's classes once over all its mentions (``class_scope="template"``, 9 classes), so
the subject slots of a template share their classes with its objects and locatives. On the
default's seed 0 the attack template's perpetrators are split across four subject slots by
what their heads denote (docs/experiments/head-roles.md). This benchmark cuts the classes
within each (template, position) pair instead, with its own number of classes for the
subject position, and solves the default with them on the default's own features:

* ``--subject-classes K ...``: the subject position's classes per template, the other
  positions keeping 9 (:func:`classes_within_positions`); 9 measures the change of scope
  alone.

The slot of a mention stays ``position · 9 + class``, so |S| = 36 and the mapping, the
schema and the export see the same slot numbers as before. The default runs first as the
reference, on the same features. The per-seed rows go to ``--rows`` (the columns of a sweep's
``results.csv``), the record of docs/experiments/position-classes.md::

    .venv/bin/python -m experiments.position_classes --project-dir .aesi \\
        --subject-classes 9 5 3 2 --seeds 0 1 2 3 4 5 6 7 8 9 \\
        --rows docs/experiments/position-classes.csv
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model import factored_slots
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.parts import ModelParts
from aesi_lib.model.similarity import SimilarityOptions, TermsOf, head_class_terms
from experiments.encoder_variants import default_inputs
from experiments.muc4_inputs import seeded_run_parser
from experiments.solve_variants import score_settings

SUBJECT = ARGUMENT_POSITIONS.index("subject")


def classes_within_positions(features: EntityFeatures, templates: np.ndarray,
                             classes_per_position: list[int], seed: int = 0, *,
                             options: SimilarityOptions | None = None,
                             ncut_options: dict[str, Any] | None = None,
                             init_classes: np.ndarray | None = None,
                             class_terms: TermsOf = head_class_terms) -> np.ndarray:
    """The semantic class of every mention, cut within its template and argument position.

    Parameters
    ----------
    features : EntityFeatures
        |E| mentions, with ``argument_positions``.
    templates : ndarray of shape (E,), int
        The template of each mention.
    classes_per_position : list of int
        The classes of each argument position (in the order of ``ARGUMENT_POSITIONS``); a
        part with fewer distinct head words gets one class per head word.
    seed, options, ncut_options, init_classes, class_terms
        As in :func:`aesi_lib.model.factored_slots.semantic_classes`.

    Returns
    -------
    ndarray of shape (E,), int
        Class in ``0 .. classes_per_position[p] - 1``; mentions with the same head word,
        template and position share it.
    """
    templates = np.asarray(templates, dtype=np.int64)
    positions = np.asarray(features.argument_positions, dtype=np.int64)
    classes = np.zeros(templates.shape[0], dtype=np.int64)
    for template in np.unique(templates):
        for position, wanted in enumerate(classes_per_position):
            rows = np.flatnonzero((templates == template) & (positions == position))
            if rows.size == 0:
                continue
            part = features.subset(rows)
            k = min(wanted, np.unique(part.head_ids).shape[0])
            if k > 1:
                start = factored_slots._usable_start(init_classes, rows, k)
                classes[rows] = factored_slots.semantic_classes(
                    part, k, seed, options=options, ncut_options=ncut_options,
                    init_classes=start, class_terms=class_terms)
    return classes


def subject_classes(k: int, others: int = 9) -> ModelParts:
    """The model's parts with every template's classes cut within each position: ``k`` for
    the subject position, ``others`` for the rest."""
    per_position = [others] * len(ARGUMENT_POSITIONS)
    per_position[SUBJECT] = k

    def within_positions(features: EntityFeatures, templates: np.ndarray, n_classes: int,
                         seed: int = 0, **kwargs: Any) -> np.ndarray:
        if max(per_position) > n_classes:
            raise ValueError(f"{max(per_position)} classes do not fit a block of {n_classes}")
        return classes_within_positions(features, templates, per_position, seed, **kwargs)

    return ModelParts(classes_by_template=within_positions)


def main(argv: list[str] | None = None) -> int:
    parser = seeded_run_parser(__doc__.splitlines()[0])
    parser.add_argument("--subject-classes", type=int, nargs="+", default=[9, 3])
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    args = parser.parse_args(argv)
    if any(not 1 <= k <= 9 for k in args.subject_classes):
        parser.error("--subject-classes must lie in 1..9 (a block of the default's 9)")
    inputs = default_inputs("position_classes.py", args)
    score_settings(inputs, [(f"classes within positions, {k} subject classes",
                             functools.partial(subject_classes, k))
                            for k in args.subject_classes], args.seeds, args.rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
