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

from aesi_lib.events.entities import OF_COMPLEMENT_WORDS, document_entities
from aesi_lib.events.incidents import EntityRule
from experiments.event_levers import configuration_records, write_records
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
    records = configuration_records(scoring, lambda export, events: {
        name: events(entity_rule=rule) for name, rule in entity_rules().items()})
    write_records(records, args.rows, args.table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
