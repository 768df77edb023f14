"""Issue 48's lever (a) measured again on the default with the subject merge: the incident
step of ``incident_levers.py`` (a mention takes a template of its sentence when its lift there
beats its own template's by the factor κ, and keeps its position with the nearest class of the
new template), followed by the merge of the subject slots that the default's export applies
(``aesi_lib.model.subject_merge``).

Before the merge the step gained at most 0.003 dev-mapped (docs/experiments/incident-levers.md):
the claimants it moved into the attack template fell into several subject classes of which the
mapping used one or two. With the merge they meet one agent role.

For each seed the default is solved as ``aesi run`` solves it, and scored with its own export
(the merge applied); then each step is applied to the cut's labels, the merge table is made
from the moved labels, and the run is scored as the sweep scores it. The per-seed rows go to
``--rows``, the record of docs/experiments/incident-after-merge.md:

    .venv/bin/python -m experiments.incident_after_merge --project-dir .aesi \
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/incident-after-merge.csv

The project must hold a MUC-4 run of the default (``./scripts/run.sh``).
"""

from __future__ import annotations

import sys

import numpy as np

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model.factored_slots import factored_slot, slot_class
from aesi_lib.model.similarity import head_class_similarity, template_similarity
from aesi_lib.run.pipeline import labelled_export
from experiments.incident_levers import (
    incident_templates,
    nearest_classes,
    sentence_index,
    template_lift,
)
from experiments.muc4_inputs import post_solve_inputs, report_rows, row_recorder, solved_seeds

#: The steps: (κ, subjects only).
STEPS: tuple[tuple[float, bool], ...] = (
    (1.1, True), (1.15, True), (1.2, True), (1.25, True), (1.3, True), (1.2, False),
)


def step_name(factor: float, subjects_only: bool) -> str:
    """The configuration name of a step's rows."""
    who = "subjects" if subjects_only else "every mention"
    return f"incident step ({who}, κ {factor:g}, nearest classes), then the subject merge"


def main(argv: list[str] | None = None) -> int:
    args, corpus, config, table, features = post_solve_inputs(
        "incident_after_merge", __doc__.split("\n\n")[0], argv)
    model = config.model
    n_classes = model.n_slots // len(ARGUMENT_POSITIONS)
    W_T = template_similarity(features, model.similarity)
    W_H = head_class_similarity(features, model.similarity)
    positions = np.asarray(features.argument_positions)
    rows: list[dict] = []
    record = row_recorder(corpus, rows)

    for seed, result in solved_seeds(args.seeds, features, model):
        templates, slots = result.template_labels, result.slot_labels
        base = labelled_export(table, templates, slots, model)
        record("default", seed, base, 0.0)
        sentences = sentence_index(base)
        lift = template_lift(W_T, templates)
        classes = slot_class(slots, n_classes)
        near = nearest_classes(W_H, templates, classes, n_classes)
        for factor, subjects_only in STEPS:
            movable = positions == 0 if subjects_only else np.ones(len(templates), dtype=bool)
            new = incident_templates(lift, templates, sentences, 0.0, factor, movable,
                                     "sentence")
            moved = new != templates
            kept = np.where(moved, near[np.arange(len(new)), new], classes)
            record(step_name(factor, subjects_only), seed,
                   labelled_export(table, new, factored_slot(positions, kept, n_classes),
                                   model), float(np.mean(moved)))

    report_rows(rows, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
