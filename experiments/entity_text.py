"""How a description is written, measured by the template-filling metric of GTT and IterX on
TST1+TST2 and DEV (map learned on DEV): its first mention's phrase followed by that mention's
*of* complement of at most N words (``aesi_lib.events.entities.of_complement``), for N in
:data:`COMPLEMENT_WORDS` (0: the phrase alone, the rule before the complement).

For each export of a sweep (``DIR/runs/CONFIGURATION/seed-N/assignments.parquet``), the events
of the product's rule with each N passed to ``document_entities`` as a parameter. Prints
mean ± std over the seeds; ``--rows`` writes one row per seed, configuration and split,
``--table`` the printed table, as CSV: the record of ``docs/experiments/entity-text.md``.

    .venv/bin/python -m experiments.entity_text --runs sweep-default/runs/default \\
        --rows docs/experiments/entity-text-rows.csv --table docs/experiments/entity-text.csv
"""

from __future__ import annotations

import functools
import sys
import time

import pandas as pd

from aesi_lib.evaluate.incident_map import learn_template_map
from aesi_lib.events.entities import OF_COMPLEMENT_WORDS, document_entities
from aesi_lib.events.incidents import EntityRule, event_rows
from aesi_lib.events.schema import event_schema
from aesi_lib.lexicon.wordnet import load_wordnet
from aesi_lib.markdown import markdown_table
from aesi_lib.run.pipeline import run_schema
from experiments.event_levers import score_rows, summary_table
from experiments.muc4_inputs import sweep_scoring, sweep_scoring_parser

#: The most words of the *of* complement each configuration keeps.
COMPLEMENT_WORDS = (0, 3, 5, 9, 15)


def configuration_name(words: int) -> str:
    """``"of complement: N words"``, ``(default)`` added for the product's N."""
    name = "phrase alone" if words == 0 else f"of complement: {words} words"
    return name + (" (default)" if words == OF_COMPLEMENT_WORDS else "")


def entity_rules() -> dict[str, EntityRule]:
    """Each configuration's entity rule: the product's, its complement cut at N words."""
    return {configuration_name(words): functools.partial(document_entities,
                                                         of_complement_words=words)
            for words in COMPLEMENT_WORDS}


def main(argv: list[str] | None = None) -> int:
    args = sweep_scoring_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    scoring = sweep_scoring("entity_text", args)
    wordnet = load_wordnet(None)
    records: list[dict] = []
    for seed, path in scoring.exports:
        started = time.perf_counter()
        export = pd.read_parquet(path)
        schema = event_schema(export, wordnet)
        roles, names = run_schema(export)
        n_docs = export["doc_id"].nunique()
        for name, rule in entity_rules().items():
            rows = event_rows(export, schema, roles, names, entity_rule=rule)
            tmap = learn_template_map(rows, export, scoring.corpus.map_keys, scoring.texts)
            records += score_rows(name, seed, rows, tmap, scoring.golds, n_docs,
                                  float("nan"))
        print(f"seed {seed}: {time.perf_counter() - started:.0f} s", flush=True)
    frame = pd.DataFrame(records)
    if args.rows:
        frame.round(6).to_csv(args.rows, index=False)
    table = summary_table(frame)
    print(markdown_table(list(table.columns), table.itertuples(index=False)))
    if args.table:
        table.to_csv(args.table, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
