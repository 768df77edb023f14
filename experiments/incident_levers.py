"""Issue 48's levers measured on the default: incident templates after the cut, and document
relevance from the mapped templates.

For each seed the default is solved as ``aesi run`` solves it; then each lever changes the
labels and the run is scored as the sweep scores it (``aesi_lib.run.experiments.score_row``):

* **incident step** (lever a, "a second assignment step over incidents, fed by the cut's
  scores"). The cut's score of mention i for template t is its lift
  ``(W_T Y)_it / d_i / (vol_t / vol)``: its similarity to t's mentions against what t's share
  of the graph's volume predicts. Each mention may take a template of another mention of its
  sentence when ``lift_i(t) + λ · (mean lift of the sentence's other mentions for t)`` beats
  its own template's by the factor κ; optionally subjects only (the perpetrators the issue
  finds under claim, report and arrest predicates). The classes are then cut within each
  template as the default cuts them. *Sentence majority* gives every mention its sentence's
  most frequent template (the sentence constraint of Eqs. 6-8 taken as a hard rule).
* **document relevance** (lever b): the mentions of a document whose share in the templates
  the DEV mapping uses is below τ (or whose count there is below k) predict nothing.

The per-seed rows go to ``--rows`` (the columns of a sweep's ``results.csv``, with
``changed``: the share of mentions whose template moved, or of documents dropped), the record
of docs/experiments/incident-levers.md:

    .venv/bin/python -m experiments.incident_levers --project-dir .aesi \
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/incident-levers.csv

The project must hold a MUC-4 run of the default (``./scripts/run.sh``): the parse and the
context vectors come from its caches.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import scipy.sparse as sp

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.evaluate.split import SplitIndex
from aesi_lib.model.factored_slots import factored_slot, factored_slot_labels, slot_class
from aesi_lib.model.similarity import head_class_similarity, template_similarity
from aesi_lib.run.pipeline import assignments_frame
from experiments.muc4_inputs import post_solve_inputs, report_rows, row_recorder, solved_seeds

#: The incident step's variants: (λ, κ, subjects only, candidates, classes). Candidates are
#: the templates of the mention's sentence ("sentence") or every template ("all"); the
#: classes are cut again within each template ("recut") or a moved mention takes the nearest
#: class of its new template and the others keep theirs ("nearest").
INCIDENT_STEPS = (
    (0.0, 1.0, False, "sentence", "recut"),
    (0.0, 1.1, False, "sentence", "recut"),
    (0.0, 1.0, False, "sentence", "nearest"),
    (0.0, 1.1, False, "sentence", "nearest"),
    (0.0, 1.15, False, "sentence", "nearest"),
    (0.0, 1.2, False, "sentence", "nearest"),
    (0.0, 1.25, False, "sentence", "nearest"),
    (0.0, 1.3, False, "sentence", "nearest"),
    (0.5, 1.2, False, "sentence", "nearest"),
    (0.0, 1.2, True, "sentence", "nearest"),
    (0.0, 1.2, False, "all", "nearest"),
)


def step_name(weight: float, factor: float, subjects_only: bool, candidates: str,
              classes: str) -> str:
    """The configuration name of an incident step's rows."""
    who = "subjects, " if subjects_only else ""
    where = "" if candidates == "sentence" else "any template, "
    return f"incident step, {who}{where}λ {weight:g}, κ {factor:g}, {classes} classes"
#: Least share of a document's mentions in the DEV-mapped templates, and least count.
RELEVANCE_SHARES = (0.05, 0.1)
RELEVANCE_COUNTS = (2,)


def sentence_index(assignments: pd.DataFrame) -> np.ndarray:
    """The sentence of each mention as an index 0 .. n_sentences - 1."""
    key = assignments["doc_id"].astype(str) + "#" + assignments["sent_id"].astype(str)
    return np.unique(key.to_numpy(), return_inverse=True)[1]


def template_lift(W_T, templates: np.ndarray) -> np.ndarray:
    """``lift[i, t] = (W_T Y)_it / d_i / (vol_t / vol)``, shape (E, T)."""
    n = templates.shape[0]
    Y = np.zeros((n, int(templates.max()) + 1))
    Y[np.arange(n), templates] = 1.0
    affinity = np.asarray(W_T @ Y)
    degrees = affinity.sum(axis=1)
    volume = Y.T @ degrees
    return (affinity / degrees[:, None]) / (volume / volume.sum())[None, :]


def incident_templates(lift: np.ndarray, templates: np.ndarray, sentences: np.ndarray,
                       weight: float, factor: float, movable: np.ndarray,
                       candidates: str = "sentence") -> np.ndarray:
    """The incident step: each movable mention takes the best-scoring template among its own
    and those of its sentence (``candidates="all"``: any template), when that beats its own
    by ``factor``."""
    n = templates.shape[0]
    S = sp.csr_matrix((np.ones(n), (np.arange(n), sentences)))
    Y = sp.csr_matrix((np.ones(n), (np.arange(n), templates)), shape=lift.shape)
    if candidates == "all":
        present = np.ones(lift.shape, dtype=bool)
    else:
        present = (S.T @ Y).toarray()[sentences] > 0
    present[np.arange(n), templates] = True
    sizes = np.asarray(S.sum(axis=0)).ravel()[sentences]
    others = (np.asarray(S.T @ lift)[sentences] - lift) / np.maximum(sizes - 1, 1)[:, None]
    score = np.where(present, lift + weight * others, -np.inf)
    best = score.argmax(axis=1)
    own = score[np.arange(n), templates]
    return np.where(movable & (score[np.arange(n), best] > factor * own), best, templates)


def nearest_classes(W_H, templates: np.ndarray, classes: np.ndarray, n_classes: int
                    ) -> np.ndarray:
    """``near[i, t]``: the class of template t whose mentions are on average most similar to
    mention i under W_H (the head-class graph), shape (E, T)."""
    n = templates.shape[0]
    n_templates = int(templates.max()) + 1
    groups = templates * n_classes + classes
    Z = sp.csr_matrix((np.ones(n), (np.arange(n), groups)), shape=(n, n_templates * n_classes))
    sizes = np.asarray(Z.sum(axis=0)).ravel()
    mean = np.asarray(W_H @ Z.toarray()) / np.maximum(sizes, 1)[None, :]
    mean[:, sizes == 0] = -np.inf
    return mean.reshape(n, n_templates, n_classes).argmax(axis=2)


def sentence_majority(templates: np.ndarray, sentences: np.ndarray) -> np.ndarray:
    """Every mention takes its sentence's most frequent template; a mention whose own template
    ties for the most keeps it (other ties: the smallest id)."""
    counts = sp.csr_matrix((np.ones(templates.shape[0]), (sentences, templates))).toarray()
    own = counts[sentences, templates]
    top = counts.max(axis=1)[sentences]
    return np.where(own == top, templates, counts.argmax(axis=1)[sentences])


def main(argv: list[str] | None = None) -> int:
    args, corpus, config, table, features = post_solve_inputs(
        "incident_levers", __doc__.split("\n\n")[0], argv)
    model = config.model
    W_T = template_similarity(features, model.similarity)
    W_H = head_class_similarity(features, model.similarity)
    positions = np.asarray(features.argument_positions)
    subjects = positions == 0
    everyone = np.ones(features.n_entities, dtype=bool)
    rows: list[dict] = []
    record = row_recorder(corpus, rows)

    for seed, result in solved_seeds(args.seeds, features, model):
        # The cut's own slots, as at the rows' commit, before the subject merge of the export.
        base = assignments_frame(table, result).assign(slot=result.slot_labels)
        record("default", seed, base, 0.0)
        templates = base["template"].to_numpy()
        sentences = sentence_index(base)

        lift = template_lift(W_T, templates)
        n_classes = model.n_slots // len(ARGUMENT_POSITIONS)
        classes = slot_class(base["slot"].to_numpy(), n_classes)
        near = nearest_classes(W_H, templates, classes, n_classes)

        def recut(new: np.ndarray, seed: int = seed) -> np.ndarray:
            return factored_slot_labels(features, model.n_slots, seed, options=model.similarity,
                                        ncut_options={"n_init": model.n_init}, templates=new)

        new = sentence_majority(templates, sentences)
        record("sentence majority", seed, base.assign(template=new, slot=recut(new)),
               float(np.mean(new != templates)))
        for weight, factor, subjects_only, candidates, kind in INCIDENT_STEPS:
            movable = subjects if subjects_only else everyone
            new = incident_templates(lift, templates, sentences, weight, factor, movable,
                                     candidates)
            moved = new != templates
            if kind == "recut":
                slots = recut(new)
            else:
                kept = np.where(moved, near[np.arange(len(new)), new], classes)
                slots = factored_slot(positions, kept, n_classes)
            record(step_name(weight, factor, subjects_only, candidates, kind), seed,
                   base.assign(template=new, slot=slots), float(np.mean(moved)))

        dev_templates = sorted({c.template for c in SplitIndex(base, corpus.map_keys, "lenient")
                                .type_choices().values()})
        in_mapped = base["template"].isin(dev_templates)
        share = in_mapped.groupby(base["doc_id"]).mean()
        count = in_mapped.groupby(base["doc_id"]).sum()
        for tau in RELEVANCE_SHARES:
            kept = base["doc_id"].map(share >= tau)
            record(f"relevance, share in DEV-mapped templates ≥ {tau:g}", seed,
                   base[kept].reset_index(drop=True), float(np.mean(share < tau)))
        for k in RELEVANCE_COUNTS:
            kept = base["doc_id"].map(count >= k)
            record(f"relevance, mentions in DEV-mapped templates ≥ {k}", seed,
                   base[kept].reset_index(drop=True), float(np.mean(count < k)))

    report_rows(rows, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
