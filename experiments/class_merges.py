"""Issue 48's lever (c), slot confusions inside the mapped templates: the semantic classes of
one argument position of a template merged into one slot when their mentions are arguments of
the same predicates in the same proportions.

Under factored slots a slot is (argument position, semantic class), and the classes are cut
within each template by the head words' similarity (W_H). On MUC-4 the attack template's
perpetrators fall into four or five subject classes (persons such as *terrorists*, group
nouns such as *army*, unknown names such as *FMLN*, ...), while the mapping of the evaluation
gives each gold slot one learned slot per incident type. The classes of one position play one
role when their predicate profiles agree: each class of a (template, position) pair has the
vector of its mentions' predicate counts, and classes are joined by complete linkage while
every pair of the two groups has a cosine of at least θ. A subject class of instruments
(*the bomb exploded*) or of victims (*the people died*) has other predicates and stays apart.

For each seed the default is solved as ``aesi run`` solves it, and its cut's slots are taken
without the merge it led to (``aesi_lib.model.subject_merge``, whose
:func:`~aesi_lib.model.subject_merge.complete_linkage` this script uses); then each setting
merges the classes of the positions it names, and the run is scored as the sweep scores it
(``aesi_lib.run.experiments.score_row``). The per-seed rows go to ``--rows`` (a sweep's
``results.csv`` columns, with ``changed``: the share of mentions whose slot moved), the record
of docs/experiments/class-merges.md:

    .venv/bin/python -m experiments.class_merges --project-dir .aesi \
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/class-merges.csv

The project must hold a MUC-4 run of the default (``./scripts/run.sh``): the parse and the
context vectors come from its caches.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model.subject_merge import complete_linkage
from aesi_lib.run.pipeline import assignments_frame
from experiments.muc4_inputs import post_solve_inputs, report_rows, row_recorder, solved_seeds

#: The settings: (positions whose classes may merge, least cosine θ).
SETTINGS: tuple[tuple[tuple[int, ...], float], ...] = (
    ((0,), 0.8),
    ((0,), 0.85),
    ((0,), 0.9),
    ((0,), 0.95),
    ((0,), 0.97),
    ((0,), 0.99),
    ((0, 1, 2, 3), 0.95),
    ((0, 1, 2, 3), 0.97),
)


def setting_name(positions: tuple[int, ...], threshold: float) -> str:
    """The configuration name of a setting's rows."""
    where = ("subject classes" if positions == (0,)
             else "classes of every position" if len(positions) == len(ARGUMENT_POSITIONS)
             else "classes of " + ", ".join(ARGUMENT_POSITIONS[p] for p in positions))
    return f"{where} merged by predicate profile, θ {threshold:g}"


def merged_slots(templates: np.ndarray, slots: np.ndarray, predicates: np.ndarray,
                 n_classes: int, positions: tuple[int, ...], threshold: float) -> np.ndarray:
    """Each mention's slot after the classes of ``positions`` are merged within each template
    (the module docstring); a merged group takes its lowest slot code."""
    slots = np.asarray(slots, dtype=np.int64)
    predicate_ids = np.unique(np.asarray(predicates), return_inverse=True)[1]
    block = slots // n_classes
    out = slots.copy()
    frame = pd.DataFrame({"template": templates, "block": block})
    for (_, position), rows in frame.groupby(["template", "block"]).indices.items():
        if position not in positions:
            continue
        codes, members = np.unique(slots[rows], return_inverse=True)
        if codes.shape[0] < 2:
            continue
        counts = np.zeros((codes.shape[0], predicate_ids.max() + 1))
        np.add.at(counts, (members, predicate_ids[rows]), 1.0)
        unit = counts / np.linalg.norm(counts, axis=1, keepdims=True)
        root = codes.copy()
        for group in complete_linkage(unit @ unit.T, threshold):
            root[group] = codes[group].min()
        out[rows] = root[members]
    return out


def main(argv: list[str] | None = None) -> int:
    args, corpus, config, table, features = post_solve_inputs(
        "class_merges", __doc__.split("\n\n")[0], argv)
    model = config.model
    n_classes = model.n_slots // len(ARGUMENT_POSITIONS)
    rows: list[dict] = []
    record = row_recorder(corpus, rows)

    for seed, result in solved_seeds(args.seeds, features, model):
        # The cut's own slots: the default of the rows' time, before the merge was adopted.
        base = assignments_frame(table, result).assign(slot=result.slot_labels)
        record("default", seed, base, 0.0)
        slots = base["slot"].to_numpy()
        for positions, threshold in SETTINGS:
            new = merged_slots(base["template"].to_numpy(), slots, base["predicate"].to_numpy(),
                               n_classes, positions, threshold)
            record(setting_name(positions, threshold), seed, base.assign(slot=new),
                   float(np.mean(new != slots)))

    report_rows(rows, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
