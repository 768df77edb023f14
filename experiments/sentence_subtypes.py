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
from collections.abc import Callable
from typing import Any

import pandas as pd

from aesi_lib.evaluate.incident_map import INCIDENT_TRIGGERS, SENTENCE_TRIGGERS, TemplateMap
from experiments.event_levers import configuration_records, write_records
from experiments.muc4_inputs import sweep_scoring, sweep_scoring_parser

#: Each configuration's ``sub_types`` argument.
CONFIGURATIONS = {"no sub-types": None,
                  "sub-types of the incidents' triggers": INCIDENT_TRIGGERS,
                  "sub-types of the sentences' triggers": SENTENCE_TRIGGERS}


def print_sub_types(seed: int, name: str, tmap: TemplateMap) -> None:
    """One line of the sub-types ``tmap`` learned."""
    learned = ", ".join(f"{t}/{p} {typ}" for (t, p), typ in
                        sorted(tmap.trigger_types.items())) or "none"
    print(f"seed {seed}  {name}: {learned}", flush=True)


def main(argv: list[str] | None = None) -> int:
    args = sweep_scoring_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    scoring = sweep_scoring("sentence_subtypes", args)

    def configurations(export: pd.DataFrame, events: Callable[..., pd.DataFrame]
                       ) -> dict[str, tuple[pd.DataFrame, dict[str, Any]]]:
        rows = events()
        return {name: (rows, {"sub_types": sub_types})
                for name, sub_types in CONFIGURATIONS.items()}

    records = configuration_records(scoring, configurations, on_map=print_sub_types)
    write_records(records, args.rows, args.table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
