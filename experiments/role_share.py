"""The share of a template's mentions that makes a slot a role, measured on DEV.

For each export of a sweep (``DIR/runs/CONFIGURATION/seed-N/assignments.parquet``), learns
the role-to-slot mapping on the DEV messages and their keys (evaluation.md, steps 1-4,
lenient) and prints the share of its template's mentions that each mapped (template, slot)
holds, then, for each candidate share, how many of the mapped slots fall below it and how
many roles the templates have on average. The rows go to ``--rows`` as CSV (one row per seed
and mapped slot) and the table to ``--table``: the record of docs/experiments/role-share.md.

    .venv/bin/python -m experiments.role_share --runs sweep-default/runs/default \
        --rows docs/experiments/role-share-rows.csv --table docs/experiments/role-share.csv
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from aesi_lib.evaluate import learn_mapping
from aesi_lib.markdown import markdown_table
from aesi_lib.run.experiments import seed_exports
from experiments.muc4_inputs import muc4_corpus

CANDIDATE_SHARES = (0.005, 0.01, 0.02, 0.03, 0.04, 0.05)


def mapped_shares(assignments: pd.DataFrame, dev_keys) -> pd.DataFrame:
    """Each slot of the DEV-learned mapping with its share of its template's mentions."""
    sizes = assignments.groupby("template").size()
    cells = assignments.groupby(["template", "slot"]).size()
    rows = [{"template": t, "slot": s, "gold_slot": g, "share": cells[(t, s)] / sizes[t]}
            for t, s, g in learn_mapping(assignments, dev_keys)]
    return pd.DataFrame(rows, columns=["template", "slot", "gold_slot", "share"])


def roles_per_template(assignments: pd.DataFrame, share: float) -> float:
    """The mean number of slots per template that hold at least ``share`` of its mentions."""
    cells = assignments.groupby(["template", "slot"]).size()
    fractions = cells / cells.groupby(level="template").transform("sum")
    return float((fractions >= share).groupby(level="template").sum().mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", required=True,
                        help="folder of seed-N/assignments.parquet exports of one configuration")
    parser.add_argument("--muc4-dir", help="the MUC-4 folder (default: as aesi run finds it)")
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    parser.add_argument("--table", help="write the printed table here as CSV")
    args = parser.parse_args(argv)

    corpus = muc4_corpus("role_share", args.muc4_dir, eval_keys=False)
    exports = seed_exports(args.runs)
    if not exports:
        print(f"role_share: no seed-*/assignments.parquet under {args.runs}", file=sys.stderr)
        return 2
    frames, counts = [], {}
    for seed, path in exports:
        assignments = pd.read_parquet(path)
        frames.append(mapped_shares(assignments, corpus.map_keys).assign(seed=seed))
        counts[seed] = {s: roles_per_template(assignments, s) for s in CANDIDATE_SHARES}
    rows = pd.concat(frames, ignore_index=True)
    rows = rows[["seed", "template", "slot", "gold_slot", "share"]]
    if args.rows:
        rows.round(6).to_csv(args.rows, index=False)
    table = []
    for share in CANDIDATE_SHARES:
        below = rows[rows["share"] < share]
        table.append([f"{share:.1%}", f"{len(below)} of {len(rows)}",
                      f"{below['seed'].nunique()} of {len(exports)}",
                      f"{sum(c[share] for c in counts.values()) / len(counts):.1f}"])
    header = ("least share of a role", "mapped slots below it", "seeds with one below it",
              "roles per template (mean)")
    print(markdown_table(header, table))
    if args.table:
        pd.DataFrame(table, columns=list(header)).to_csv(args.table, index=False)
    print(f"smallest share of a mapped slot: {rows['share'].min():.4f} "
          f"(seed {int(rows.loc[rows['share'].idxmin(), 'seed'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
