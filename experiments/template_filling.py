"""The template-filling metric of GTT and IterX over the seeds of a sweep, on TST1+TST2 and DEV.

For each export of a sweep (``DIR/runs/CONFIGURATION/seed-N/assignments.parquet``, with the
run's ``events.parquet`` beside it), learns the map of its incidents' templates, sub-types
and slots to incident types and the five roles on DEV
(``aesi_lib.evaluate.incident_map``) and scores TST1+TST2 and DEV itself with it. Prints
mean ± std over the seeds; ``--rows`` writes one row per seed and split, ``--table`` the
printed table, as CSV: the record of the results page.

    .venv/bin/python -m experiments.template_filling --runs sweep-default/runs/default \\
        --rows docs/template-filling-rows.csv --table docs/template-filling.csv
"""

from __future__ import annotations

import sys

import pandas as pd

from aesi_lib.evaluate.incident_map import learn_template_map, predicted_templates
from aesi_lib.evaluate.template_filling import ROLES, score_templates
from aesi_lib.markdown import markdown_table
from experiments.muc4_inputs import mean_std, sweep_scoring, sweep_scoring_parser


def main(argv: list[str] | None = None) -> int:
    args = sweep_scoring_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    scoring = sweep_scoring("template_filling", args)
    corpus, texts, golds = scoring.corpus, scoring.texts, scoring.golds
    exports = scoring.exports
    rows = []
    for seed, path in exports:
        assignments = pd.read_parquet(path)
        events_path = path.parent / "events.parquet"
        if not events_path.is_file():
            print(f"template_filling: {events_path}: no events beside the export; run the "
                  "sweep again", file=sys.stderr)
            return 2
        events = pd.read_parquet(events_path)
        predicted = predicted_templates(
            events, learn_template_map(events, assignments, corpus.map_keys, texts))
        for split, gold in golds.items():
            result = score_templates(predicted, gold)
            micro = result.micro
            rows.append({"seed": seed, "split": split,
                         "p": micro.precision, "r": micro.recall, "f1": micro.f1,
                         "templates_predicted": result.roles["incident_type"].p_den,
                         "templates_gold": result.roles["incident_type"].r_den,
                         **{f"{role}_f1": result.roles[role].f1 for role in ROLES}})
    frame = pd.DataFrame(rows)
    if args.rows:
        frame.round(6).to_csv(args.rows, index=False)
    table = []
    for split, group in frame.groupby("split", sort=False):
        table.append([f"{split} (mapped on DEV)", len(group), mean_std(group["f1"]),
                      f"{group['p'].mean():.2f} / {group['r'].mean():.2f}",
                      *(f"{group[f'{role}_f1'].mean():.2f}" for role in ROLES),
                      f"{group['templates_predicted'].mean():.0f} / "
                      f"{group['templates_gold'].mean():.0f}"])
    header = ("split", "seeds", "micro F1", "P / R", *(f"{r} F1" for r in ROLES),
              "templates predicted / gold")
    print(markdown_table(header, table))
    if args.table:
        pd.DataFrame(table, columns=list(header)).to_csv(args.table, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
