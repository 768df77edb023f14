"""What other slots could reach on an annotated corpus, with a run's templates kept (issue 67:
are the templates or the slots what keeps aesi near the (predicate, position) baseline?).

Each reading gives every mention of a run's export another slot and leaves its template as
the run made it; each is scored by the rules of ``aesi evaluate --annotations``
(:mod:`aesi_lib.evaluate.annotations`: cross-fitted halves, single- and multi-slot mappings,
the macro-F1 over the roles with at least ``--least-gold`` gold entities):

* ``run``: the run's own slots (position x class, the subject classes merged);
* ``gold roles``: a bound, not a method: a mention that matches a gold argument takes its
  role (the first in name order when it matches several) as its slot; the others keep
  theirs. What the best slots within the run's templates could score;
* ``gold roles, one template``: the same with every mention in one template, what the best
  slots could score with no templates at all;
* ``position``: the argument position alone (subject, object, locative, other);
* ``objects merged``: the object classes of each template merged by their predicate profiles,
  as the default merges the subject classes (:func:`experiments.class_merges.merged_slots`,
  θ :data:`OBJECT_MERGE_COSINE`);
* ``patterns k``: within each template and argument position, the (predicate, position)
  patterns cut into k groups by the mean GloVe vector of their head words (k-means weighted
  by the patterns' mention counts): slots that follow the predicates and group those whose
  arguments are alike, as Chambers and Jurafsky (ACL 2011) group patterns.

Usage::

    .venv/bin/aesi run --docs ../shared/data/casie/casie-dev.jsonl --seed N --out runs/out-N
    .venv/bin/python -m experiments.slot_bounds --exports runs/out-*/assignments.parquet \\
        [--annotations ../shared/data/casie/casie-dev.jsonl] [--rows rows.csv]

Prints one row per export and reading, then the mean ± standard deviation over the exports;
``--rows`` keeps the rows as CSV (``docs/experiments/slot-bounds-rows.csv``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans

from aesi_lib.entities.positions import ARGUMENT_POSITIONS, argument_positions
from aesi_lib.evaluate.annotations import (
    GoldArgument,
    cross_fitted,
    match_index,
    read_annotations,
    summary,
)
from aesi_lib.model.subject_merge import SUBJECT_MERGE_COSINE
from aesi_lib.run.presets import preset
from experiments.class_merges import merged_slots
from experiments.reach_rules import SHARED

#: θ of the object merge: the subject merge's.
OBJECT_MERGE_COSINE = SUBJECT_MERGE_COSINE
#: k of the pattern readings, per template and argument position.
PATTERN_GROUPS = (3, 5, 9)
#: The slots of the default preset (``model.n_slots``): 4 positions x 9 classes.
N_SLOTS: int = preset("default")["model"]["n_slots"]
SYSTEMS = (("aesi", "aesi"), ("predicate+position", "predicate"))


def matched_roles(assignments: pd.DataFrame, gold: Sequence[GoldArgument]) -> np.ndarray:
    """Each mention's gold role by the evaluation's match rule (the first role in name order
    when it matches several), or None.

    Parameters
    ----------
    assignments : DataFrame of shape (E, ...)
        An export's rows (``doc_id``, ``start_char``, ``end_char``, ``head``, ``mention``,
        ``phrase``, and what :func:`~aesi_lib.evaluate.annotations.match_index` reads).
    gold : sequence of GoldArgument

    Returns
    -------
    ndarray of shape (E,), object
    """
    index = match_index(assignments, gold)
    out = []
    for doc_id, start, end in zip(assignments["doc_id"].astype(str),
                                  assignments["start_char"], assignments["end_char"],
                                  strict=True):
        roles = sorted(index.matches.get((doc_id, int(start), int(end)), {}))
        out.append(roles[0] if roles else None)
    return np.asarray(out, dtype=object)


def gold_role_slots(slots: np.ndarray, roles: np.ndarray) -> np.ndarray:
    """The bound's slots: a mention with a gold role takes a code of its own per role (above
    every slot of the run); the others keep their slot.

    Parameters
    ----------
    slots : ndarray of shape (E,), int
    roles : ndarray of shape (E,), object
        :func:`matched_roles`.

    Returns
    -------
    ndarray of shape (E,), int
    """
    slots = np.asarray(slots, dtype=np.int64)
    names = sorted({role for role in roles if role is not None})
    offset = int(slots.max(initial=0)) + 1
    codes = {role: offset + i for i, role in enumerate(names)}
    return np.array([codes[role] if role is not None else slot
                     for slot, role in zip(slots, roles, strict=True)], dtype=np.int64)


def pattern_slots(templates: np.ndarray, positions: np.ndarray, predicates: np.ndarray,
                  head_vectors: np.ndarray, groups: int, seed: int = 0) -> np.ndarray:
    """Slots that group the (predicate, position) patterns of each template and position by
    the mean vector of their head words.

    Parameters
    ----------
    templates, positions : ndarray of shape (E,), int
    predicates : ndarray of shape (E,)
    head_vectors : ndarray of shape (E, d)
        Each mention's head-word vector (zeros where the word has none).
    groups : int
        k, the groups per template and position (fewer where there are fewer patterns).
    seed : int
        k-means' seed.

    Returns
    -------
    ndarray of shape (E,), int
        Distinct codes across templates and positions.

    References
    ----------
    N. Chambers and D. Jurafsky, "Template-based information extraction without the
    templates", ACL 2011: slots as clusters of syntactic patterns.
    """
    templates = np.asarray(templates, dtype=np.int64)
    positions = np.asarray(positions, dtype=np.int64)
    predicates = np.asarray(predicates).astype(str)
    out = np.full(templates.shape[0], -1, dtype=np.int64)
    frame = pd.DataFrame({"template": templates, "position": positions})
    next_code = 0
    for _, rows in sorted(frame.groupby(["template", "position"]).indices.items()):
        names, members = np.unique(predicates[rows], return_inverse=True)
        sums = np.zeros((names.shape[0], head_vectors.shape[1]))
        np.add.at(sums, members, head_vectors[rows])
        unit = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        k = min(groups, names.shape[0])
        if k < 2:
            labels = np.zeros(names.shape[0], dtype=np.int64)
        else:
            weights = np.bincount(members, minlength=names.shape[0])
            labels = KMeans(k, n_init=4, random_state=seed).fit(
                unit, sample_weight=weights).labels_
        out[rows] = next_code + labels[members]
        next_code += k
    return out


def head_vectors(heads: Sequence[str]) -> np.ndarray:
    """The default GloVe vector of each head word, lowercased (zeros for a word it lacks)."""
    from aesi_lib.lexicon.vectors import load_vectors

    vectors = load_vectors()
    zero = np.zeros(vectors.vector_size, dtype=np.float32)
    return np.array([vectors[w] if w in vectors else zero
                     for w in (h.lower() for h in heads)])


def readings(assignments: pd.DataFrame, gold: Sequence[GoldArgument]
             ) -> dict[str, Callable[[], pd.DataFrame]]:
    """Each reading of the module docstring: its name and how to make its export."""
    templates = assignments["template"].to_numpy(dtype=np.int64)
    slots = assignments["slot"].to_numpy(dtype=np.int64)
    predicates = assignments["predicate"].astype(str).to_numpy()
    positions = np.asarray(argument_positions(assignments["dep"].astype(str).tolist()))
    n_classes = N_SLOTS // len(ARGUMENT_POSITIONS)
    object_position = ARGUMENT_POSITIONS.index("object")

    def with_slots(new: np.ndarray, one_template: bool = False) -> pd.DataFrame:
        frame = assignments.assign(slot=new)
        return frame.assign(template=0) if one_template else frame

    @cache
    def roles() -> np.ndarray:
        return matched_roles(assignments, gold)

    @cache
    def vectors() -> np.ndarray:
        return head_vectors(assignments["head"].astype(str).tolist())

    def gold_roles(one_template: bool) -> pd.DataFrame:
        own = slots + templates * N_SLOTS if one_template else slots
        return with_slots(gold_role_slots(own, roles()), one_template)

    out: dict[str, Callable[[], pd.DataFrame]] = {
        "run": lambda: assignments,
        "gold roles": lambda: gold_roles(False),
        "gold roles, one template": lambda: gold_roles(True),
        "position": lambda: with_slots(positions),
        "objects merged": lambda: with_slots(merged_slots(
            templates, slots, predicates, n_classes, (object_position,),
            OBJECT_MERGE_COSINE)),
    }
    for k in PATTERN_GROUPS:
        out[f"patterns {k}"] = lambda k=k: with_slots(
            pattern_slots(templates, positions, predicates, vectors(), k))
    return out


def macros(assignments: pd.DataFrame, gold: Sequence[GoldArgument], least_gold: int,
           systems: Sequence[tuple[str, str]] = SYSTEMS) -> dict[str, float]:
    """The cross-fitted macro-F1s of an export, single- and multi-slot, for each of
    ``systems`` (``aesi_single_macro``, ...)."""
    index = match_index(assignments, gold)
    return {f"{name}_{'multi' if multi else 'single'}_macro":
            summary(cross_fitted(index, system, multi), least_gold)["macro_f1"]
            for system, name in systems for multi in (False, True)}


def export_rows(path: Path, gold: Sequence[GoldArgument], least_gold: int
                ) -> list[dict[str, Any]]:
    """One row per reading of one export, the baseline's macros on the first."""
    assignments = pd.read_parquet(path)
    annotated = {argument.doc_id for argument in gold}
    assignments = assignments[assignments["doc_id"].astype(str).isin(annotated)]
    assignments = assignments.reset_index(drop=True)
    rows = []
    for name, make in readings(assignments, gold).items():
        systems = SYSTEMS if name == "run" else SYSTEMS[:1]
        row = {"export": str(path), "reading": name,
               **macros(make(), gold, least_gold, systems)}
        print(", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                        for k, v in row.items()), flush=True)
        rows.append(row)
    return rows


def table(rows: pd.DataFrame) -> str:
    """The mean ± standard deviation over the exports per reading, as Markdown."""
    baseline = rows.loc[rows["reading"] == "run",
                        ["predicate_single_macro", "predicate_multi_macro"]].mean()
    lines = ["| reading | exports | aesi single | aesi multi | single / baseline "
             "| multi / baseline |", "|---|---|---|---|---|---|"]
    for name, group in rows.groupby("reading", sort=False):
        single, multi = group["aesi_single_macro"], group["aesi_multi_macro"]
        lines.append(
            f"| {name} | {len(group)} | {single.mean():.3f} ± {single.std(ddof=1):.3f} "
            f"| {multi.mean():.3f} ± {multi.std(ddof=1):.3f} "
            f"| {single.mean() / baseline['predicate_single_macro']:.2f} "
            f"| {multi.mean() / baseline['predicate_multi_macro']:.2f} |")
    lines.append(f"\nThe (predicate, position) baseline: single "
                 f"{baseline['predicate_single_macro']:.3f}, multi "
                 f"{baseline['predicate_multi_macro']:.3f}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exports", type=Path, nargs="+", required=True,
                    help="assignments.parquet of runs of the annotated corpus")
    ap.add_argument("--annotations", type=Path,
                    default=SHARED / "casie" / "casie-dev.jsonl")
    ap.add_argument("--least-gold", type=int, default=100)
    ap.add_argument("--rows", type=Path, help="write the rows as CSV here")
    args = ap.parse_args(argv)
    for path in (args.annotations, *args.exports):
        if not path.is_file():
            ap.error(f"{path}: no such file")
    gold = read_annotations(args.annotations)
    rows = pd.DataFrame([row for path in args.exports
                         for row in export_rows(path, gold, args.least_gold)])
    if args.rows:
        rows.to_csv(args.rows, index=False, float_format="%.4f")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
