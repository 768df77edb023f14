"""Where the template-filling map learns its sub-types from: the incidents' triggers, or the
sentences' own triggers that it types an incident by; scored by the template-filling metric of
GTT and IterX on TST1+TST2 and DEV (map learned on DEV): the record of
``docs/experiments/sentence-subtypes.md``.

For each export of a sweep (``DIR/runs/CONFIGURATION/seed-N/assignments.parquet``), the
product's events, and three maps learned on them
(``aesi_lib.evaluate.incident_map.learn_template_map(sub_types=)``):

* ``no sub-types``: every incident takes its template's type;
* ``sub-types of the incidents' triggers``: a (template, trigger) pair is counted once per
  DEV incident whose trigger it is (the rule until this experiment);
* ``sub-types of the sentences' triggers``: once per DEV incident in which it is some
  sentence's own trigger (the rule since).

Each map reads the incidents sentence by sentence as the product does
(``predicted_templates``). Prints mean ± std over the seeds and the sub-types learned on each
seed; ``--rows`` writes one row per seed, configuration and split, ``--table`` the printed
table, as CSV.

    .venv/bin/python -m experiments.sentence_subtypes --runs sweep-default/runs/default \\
        --rows docs/experiments/sentence-subtypes-rows.csv \\
        --table docs/experiments/sentence-subtypes.csv
"""

from __future__ import annotations

import sys
import time

import pandas as pd

from aesi_lib.evaluate.incident_map import (
    INCIDENT_TRIGGERS,
    SENTENCE_TRIGGERS,
    learn_template_map,
)
from aesi_lib.events.incidents import event_rows
from aesi_lib.events.schema import event_schema
from aesi_lib.lexicon.wordnet import load_wordnet
from aesi_lib.run.pipeline import run_schema
from experiments.event_levers import score_rows, write_records
from experiments.muc4_inputs import sweep_scoring, sweep_scoring_parser

#: Each configuration's ``sub_types`` argument.
CONFIGURATIONS = {"no sub-types": None,
                  "sub-types of the incidents' triggers": INCIDENT_TRIGGERS,
                  "sub-types of the sentences' triggers": SENTENCE_TRIGGERS}


def main(argv: list[str] | None = None) -> int:
    args = sweep_scoring_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    scoring = sweep_scoring("sentence_subtypes", args)
    wordnet = load_wordnet(None)
    records: list[dict] = []
    for seed, path in scoring.exports:
        started = time.perf_counter()
        export = pd.read_parquet(path)
        roles, names = run_schema(export)
        rows = event_rows(export, event_schema(export, wordnet), roles, names)
        for name, sub_types in CONFIGURATIONS.items():
            tmap = learn_template_map(rows, export, scoring.corpus.map_keys, scoring.texts,
                                      sub_types=sub_types)
            records += score_rows(name, seed, rows, tmap, scoring.golds,
                                  export["doc_id"].nunique(), float("nan"))
            learned = ", ".join(f"{t}/{p} {typ}" for (t, p), typ in
                                sorted(tmap.trigger_types.items())) or "none"
            print(f"seed {seed}  {name}: {learned}", flush=True)
        print(f"seed {seed}: {time.perf_counter() - started:.0f} s", flush=True)
    write_records(records, args.rows, args.table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
