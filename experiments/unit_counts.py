"""|T| and |S| on both corpora of selection (issue 67, item 3: defaults that hold on two
corpora), for each (|T|, |S|) of :data:`UNIT_COUNTS` and each seed:

* **CASIE-dev**: one ``aesi run``, all in one project (the counts change the solve only, so
  the parse, the entity rows and the features are made once), scored by ``aesi evaluate
  --annotations`` as ``experiments/reach_rules.py`` scores it: the macro-F1 over the roles with
  at least 100 gold entities, single- and multi-slot, for aesi and for the (predicate,
  position) baseline;
* **MUC-4**: an ``aesi sweep`` of the same counts (its file written to ``OUT/sweep-muc4.json``
  from :data:`UNIT_COUNTS`, its results in ``OUT/sweep-muc4/``).

Usage::

    .venv/bin/python -m experiments.unit_counts --out unit-counts [--seeds 0 1 2 3 4] \
        [--corpora casie-dev muc4] [--casie ../shared/data/casie/casie-dev.jsonl] \
        [--muc4-dir ../shared/data/muc4] [--muc4-project-dir .aesi]

Writes ``OUT/rows.csv`` (CASIE-dev: one row per counts and seed) and prints the mean ± standard
deviation over the seeds as Markdown; ``--table`` writes that table as CSV too (the record of
``docs/experiments/unit-counts.md``, with ``OUT/rows.csv`` beside it). MUC-4's table is the
sweep's ``results.md``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pandas as pd

from aesi_lib.run.presets import preset
from experiments.reach_rules import SHARED, aesi, annotation_macros

#: (|T|, |S|) of each configuration, the default first.
UNIT_COUNTS = ((20, 36), (10, 36), (15, 36), (30, 36), (20, 24), (20, 48))
COLUMNS = ("aesi_single_macro", "aesi_multi_macro", "predicate_single_macro",
           "predicate_multi_macro")


def configuration_name(templates: int, slots: int) -> str:
    """``"|T| 20, |S| 36"``."""
    return f"|T| {templates}, |S| {slots}"


def sweep_spec() -> dict[str, Any]:
    """The ``aesi sweep`` file of :data:`UNIT_COUNTS` over the default preset: each
    configuration's counts where they are not the preset's."""
    default = preset("default")["model"]
    configurations = {}
    for templates, slots in UNIT_COUNTS:
        model = {key: value for key, value in (("n_templates", templates), ("n_slots", slots))
                 if default[key] != value}
        configurations[configuration_name(templates, slots)] = {"model": model} if model else {}
    return {"base": "default", "configurations": configurations}


def casie_row(work: Path, casie: Path, templates: int, slots: int, seed: int
              ) -> dict[str, Any]:
    """Run and score CASIE-dev with ``templates`` and ``slots``, in the one project of
    ``work``: each run solved from its seed (``--fresh``), never placed into the schema of
    the run before it."""
    out = work / f"out-{templates}-{slots}-{seed}"
    aesi(["run", "--docs", str(casie), "--project-dir", str(work / "project"), "--out",
          str(out), "--seed", str(seed), "--templates", str(templates), "--slots", str(slots),
          "--fresh"],
         work / f"run-{templates}-{slots}-{seed}.log")
    aesi(["evaluate", "--assignments", str(out / "assignments.parquet"), "--annotations",
          str(casie), "--json", str(out / "annotations.json")],
         work / f"evaluate-{templates}-{slots}-{seed}.log")
    scores = json.loads((out / "annotations.json").read_text())
    return {"configuration": configuration_name(templates, slots), "templates": templates,
            "slots": slots, "seed": seed, **annotation_macros(scores)}


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean ± standard deviation (sample) over the seeds of each configuration, in the order
    of :data:`UNIT_COUNTS`, with aesi's multi-slot F1 over the baseline's."""
    out = []
    for name, group in rows.groupby("configuration", sort=False):
        ratio = group["aesi_multi_macro"] / group["predicate_multi_macro"]
        out.append({"configuration": name, "seeds": len(group),
                    **{c: f"{group[c].mean():.3f} ± {group[c].std(ddof=1):.3f}"
                       for c in COLUMNS},
                    "multi / baseline": f"{ratio.mean():.2f}"})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="work folder (project, rows)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--corpora", nargs="+", default=["casie-dev", "muc4"],
                    choices=["casie-dev", "muc4"])
    ap.add_argument("--casie", type=Path, default=SHARED / "casie" / "casie-dev.jsonl")
    ap.add_argument("--muc4-dir", type=Path, default=SHARED / "muc4")
    ap.add_argument("--muc4-project-dir", type=Path, default=Path(".aesi"),
                    help="the project of the MUC-4 sweep (default: .aesi, where "
                         "./scripts/run.sh has parsed MUC-4)")
    ap.add_argument("--table", type=Path, help="write the printed table here as CSV")
    args = ap.parse_args(argv)
    for corpus, path in (("casie-dev", args.casie), ("muc4", args.muc4_dir)):
        if corpus in args.corpora and not path.exists():
            ap.error(f"{path}: not found")
    args.out.mkdir(parents=True, exist_ok=True)
    if "muc4" in args.corpora:
        spec = args.out / "sweep-muc4.json"
        spec.write_text(json.dumps(sweep_spec(), indent=1) + "\n")
        aesi(["sweep", "--configs", str(spec), "--muc4-dir", str(args.muc4_dir),
              "--project-dir", str(args.muc4_project_dir), "--out",
              str(args.out / "sweep-muc4"), "--seeds", *map(str, args.seeds)],
             args.out / "sweep-muc4.log")
        print((args.out / "sweep-muc4" / "results.md").read_text())
    if "casie-dev" not in args.corpora:
        return 0
    rows = []
    for templates, slots in UNIT_COUNTS:
        for seed in args.seeds:
            rows.append(casie_row(args.out, args.casie, templates, slots, seed))
            print(f"{configuration_name(templates, slots)} seed {seed} done", flush=True)
            pd.DataFrame(rows).to_csv(args.out / "rows.csv", index=False)
    from aesi_lib.markdown import markdown_table

    table = summary(pd.DataFrame(rows))
    print(markdown_table(list(table.columns), table.itertuples(index=False)))
    if args.table:
        table.to_csv(args.table, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
