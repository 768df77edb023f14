"""Issue 48's lever (c), slot confusions inside the mapped templates: within a template, the
argument positions of one semantic class made one role when the class is an argument of
different predicates in those positions.

Under factored slots a slot is (argument position, semantic class), so one kind of thing in
two positions is two slots: *the bomb exploded* (subject) and *placed a bomb* (object), or
*destroyed the offices* (object) and *exploded at the offices* (locative). The evaluation
maps each gold slot to one slot of a template per incident type, so the second of them is
lost. A class in two positions of the *same* predicates is two roles (*the guerrillas killed*
and *killed the guerrillas*); in positions of *different* predicates it is more likely one
role seen through two verbs. So within each template, every (position, class) pair with at
least n mentions has the vector of its mentions' predicate counts, and two positions of one
class are joined when the cosine of their vectors is below θ; the groups are the connected
components of those joins, and a group takes the role of its first position. Settings
restrict which positions may join (no subjects, or the subject and the object only), and one
joins the object, locative and other positions of every class with no condition.

For each seed the default is solved as ``aesi run`` solves it and exported with its subject
merge (``aesi_lib.run.pipeline.labelled_export``); the merge here is applied to that export's
roles, and the run is scored as the sweep scores it. The per-seed rows go to ``--rows``:

    .venv/bin/python -m experiments.position_merges --project-dir .aesi \
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/position-merges.csv

The project must hold a MUC-4 run of the default (``./scripts/run.sh``).
"""

from __future__ import annotations

import itertools
import sys

import numpy as np

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from experiments.muc4_inputs import default_exports, post_solve_inputs, report_rows, row_recorder

SUBJECT, OBJECT = 0, 1
#: Least mentions of a (position, class) pair of a template that takes part.
LEAST_MENTIONS = 20

#: The settings: (pairs of positions that may join, cosine below which they join; None: always).
SETTINGS: tuple[tuple[str, float | None], ...] = (
    ("every pair", 0.25),
    ("every pair", 0.3),
    ("every pair", 0.35),
    ("no subject", 0.3),
    ("subject and object", 0.3),
    ("no subject", None),
)


def may_join(scope: str, first: int, second: int) -> bool:
    """Whether positions ``first`` < ``second`` may join under a setting's scope."""
    if scope == "every pair":
        return True
    if scope == "no subject":
        return SUBJECT not in (first, second)
    if scope == "subject and object":
        return (first, second) == (SUBJECT, OBJECT)
    raise ValueError(f"unknown scope {scope!r}")


def setting_name(scope: str, threshold: float | None) -> str:
    """The configuration name of a setting's rows."""
    if threshold is None:
        return "object, locative and other positions of a class joined, always"
    where = {"every pair": "positions of a class", "no subject": "non-subject positions of a class",
             "subject and object": "subject and object of a class"}[scope]
    return f"{where} joined below predicate cosine {threshold:g}"


def position_merge(templates: np.ndarray, cut_slots: np.ndarray, roles: np.ndarray,
                   predicates: np.ndarray, n_classes: int, scope: str,
                   threshold: float | None, least: int = LEAST_MENTIONS) -> np.ndarray:
    """Each mention's role slot after the positions of a class are joined (the module
    docstring).

    Parameters
    ----------
    templates : ndarray of shape (E,), int
    cut_slots : ndarray of shape (E,), int
        The cut's factored slots, ``position · n_classes + class`` (-1 where none).
    roles : ndarray of shape (E,), int
        The role slots of the export (the subject merge applied).
    predicates : ndarray of shape (E,)
        Each mention's predicate lemma.
    n_classes : int
    scope, threshold :
        A setting of :data:`SETTINGS`.
    least : int
        n, the least mentions of a (position, class) pair that takes part.

    Returns
    -------
    ndarray of shape (E,), int
    """
    templates = np.asarray(templates, dtype=np.int64)
    cut_slots = np.asarray(cut_slots, dtype=np.int64)
    out = np.asarray(roles, dtype=np.int64).copy()
    predicate_ids = np.unique(np.asarray(predicates).astype(str), return_inverse=True)[1]
    n_predicates = int(predicate_ids.max()) + 1 if predicate_ids.size else 0
    labelled = (templates >= 0) & (cut_slots >= 0)
    for template in np.unique(templates[labelled]):
        in_template = labelled & (templates == template)
        for klass in range(n_classes):
            rows = {p: np.flatnonzero(in_template & (cut_slots == p * n_classes + klass))
                    for p in range(len(ARGUMENT_POSITIONS))}
            present = [p for p, r in rows.items() if r.size >= least]
            unit = {}
            for p in present:
                counts = np.bincount(predicate_ids[rows[p]], minlength=n_predicates)
                unit[p] = counts / np.linalg.norm(counts)
            root = {p: p for p in present}
            for first, second in itertools.combinations(present, 2):
                if not may_join(scope, first, second):
                    continue
                if threshold is not None and float(unit[first] @ unit[second]) >= threshold:
                    continue
                a, b = _group(root, first), _group(root, second)
                root[max(a, b)] = min(a, b)
            for p in present:
                head = _group(root, p)
                if head != p:
                    out[rows[p]] = out[rows[head][0]]
    return out


def _group(root: dict[int, int], position: int) -> int:
    """The first position of ``position``'s group in a union-find forest."""
    while root[position] != position:
        position = root[position]
    return position


def main(argv: list[str] | None = None) -> int:
    args, corpus, config, table, features = post_solve_inputs(
        "position_merges", __doc__.split("\n\n")[0], argv)
    model = config.model
    n_classes = model.n_slots // len(ARGUMENT_POSITIONS)
    rows: list[dict] = []
    record = row_recorder(corpus, rows)

    for seed, result, base in default_exports(args.seeds, table, features, model, record):
        roles = base["slot"].to_numpy()
        for scope, threshold in SETTINGS:
            new = position_merge(base["template"].to_numpy(), result.slot_labels, roles,
                                 base["predicate"].to_numpy(), n_classes, scope, threshold)
            record(setting_name(scope, threshold), seed, base.assign(slot=new),
                   float(np.mean(new != roles)))

    report_rows(rows, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
