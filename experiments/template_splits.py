"""Which roles tell two templates of one type in one incident apart, when the template-filling
map reads a run's events; scored by the template-filling metric of GTT and IterX on TST1+TST2
and DEV (map learned on DEV): the record of ``docs/experiments/template-splits.md``.

For each export of a sweep (``DIR/runs/CONFIGURATION/seed-N/assignments.parquet``), the
product's events and the map learned on them, read by
``aesi_lib.evaluate.incident_map.predicted_templates`` with each ``split_roles`` below: within
an incident and a type, a sentence whose entities in those roles' cells are all new to the
template read so far starts another template. The events, the map and the mention labels are
the same in every configuration; only the reading differs.

Prints mean ± std over the seeds; ``--rows`` writes one row per seed, configuration and split,
``--table`` the printed table, as CSV.

    .venv/bin/python -m experiments.template_splits --runs sweep-default/runs/default \\
        --rows docs/experiments/template-splits-rows.csv \\
        --table docs/experiments/template-splits.csv
"""

from __future__ import annotations

import sys
import time

import pandas as pd

from aesi_lib.evaluate.incident_map import SPLIT_ROLES, learn_template_map
from aesi_lib.evaluate.template_filling import ROLES
from aesi_lib.lexicon.wordnet import load_wordnet
from experiments.event_levers import product_events, score_rows, write_records
from experiments.muc4_inputs import sweep_scoring, sweep_scoring_parser

#: Each configuration's ``split_roles``.
CONFIGURATIONS: dict[str, tuple[str, ...]] = {
    "no split by role": (),
    "Victim": ("Victim",),
    "Target": ("Target",),
    "Victim and Target": SPLIT_ROLES,
    "Victim, Target and Weapon": ("Target", "Victim", "Weapon"),
    "Victim, Target and PerpInd": ("PerpInd", "Target", "Victim"),
    "every role": ROLES,
}


def main(argv: list[str] | None = None) -> int:
    args = sweep_scoring_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    scoring = sweep_scoring("template_splits", args)
    wordnet = load_wordnet(None)
    records: list[dict] = []
    for seed, path in scoring.exports:
        started = time.perf_counter()
        export = pd.read_parquet(path)
        rows = product_events(export, wordnet)()
        tmap = learn_template_map(rows, export, scoring.corpus.map_keys, scoring.texts)
        for name, split_roles in CONFIGURATIONS.items():
            records += score_rows(name, seed, rows, tmap, scoring.golds,
                                  export["doc_id"].nunique(), float("nan"),
                                  split_roles=split_roles)
        print(f"seed {seed}: {time.perf_counter() - started:.0f} s", flush=True)
    write_records(records, args.rows, args.table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
