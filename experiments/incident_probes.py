"""Issue 66's levers that the events' rule does not take, each on top of the present rule,
scored by the template-filling metric of GTT and IterX on TST1+TST2 and DEV (map learned on
DEV): the record of ``docs/experiments/incident-probes.md``.

For each export of a sweep (``DIR/runs/CONFIGURATION/seed-N/assignments.parquet``), the events
of the product's rule (``default``) and of each probe, made here from its rows or passed to the
library as an entity rule:

* ``split where sentences are G apart``: an incident is split where two of its consecutive
  evidence sentences are at least G sentences apart (two incidents of one template told far
  apart in one document);
* ``documents with the least event share dropped (q)``: a document whose share of mentions
  in its reported incidents is in the corpus's lowest q of documents with incidents reports
  nothing (relevance by document, where the rule's least confidence is by incident);
* ``names inside a filler``: a name inside a filler's mention (one of the document's names,
  or the words in brackets: *members of the FMLN*, *ELN [National Liberation Army]*) also
  fills the role, as an entity of kind ``inner name``, which the map may give a role of its
  own (the keys write organisations apart from the individuals who act for them);
* ``numbers kept in a description's text``: *three subversives*, not *subversives*.

The record's last probe, ``pronouns without an antecedent left out``, is the rule since
commit ea59b6c (``aesi_lib.events.incidents``), so this module no longer makes it; its rows
were measured at b09b9d2.

Prints mean ± std over the seeds; ``--rows`` writes one row per seed, configuration and
split, ``--table`` the printed table, as CSV.

    .venv/bin/python -m experiments.incident_probes --runs sweep-default/runs/default \\
        --rows docs/experiments/incident-probes-rows.csv \\
        --table docs/experiments/incident-probes.csv
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from aesi_lib.evaluate.template_filling import normalize_mention
from aesi_lib.events.entities import DESCRIPTION, Entity, around_phrase, document_entities
from experiments.event_levers import configuration_records, write_records
from experiments.muc4_inputs import sweep_scoring, sweep_scoring_parser

#: The sentence distances of the split probes.
SPLIT_GAPS = (3, 6)
#: The shares of documents with incidents the relevance probes leave without any.
DROPPED_SHARES = (0.1, 0.2)
#: The entity kind of a name found inside a filler's mention.
INNER_NAME = "inner name"
NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred hundreds thousand thousands dozen dozens".split())
_BRACKETED = re.compile(r"[\[(]([^\])\[(]+)")


def split_by_gap(rows: pd.DataFrame, gap: int) -> pd.DataFrame:
    """The rows with each incident split where two consecutive evidence sentences are at least
    ``gap`` apart; the parts numbered ``incident * 1000 + part``."""
    rows = rows.sort_values(["doc_id", "incident", "sent_id", "start_char"],
                            kind="stable").reset_index(drop=True)
    same = ((rows["doc_id"] == rows["doc_id"].shift())
            & (rows["incident"] == rows["incident"].shift()))
    starts = ~same | (rows["sent_id"] - rows["sent_id"].shift() >= gap)
    part = starts.astype(int).groupby([rows["doc_id"], rows["incident"]]).cumsum() - 1
    return rows.assign(incident=rows["incident"] * 1000 + part)


def drop_least_eventful(rows: pd.DataFrame, export: pd.DataFrame, share: float
                        ) -> pd.DataFrame:
    """The rows without the documents whose share of mentions in reported incidents is in the
    lowest ``share`` of the documents with any."""
    evidence = rows.groupby("doc_id")["entity_id"].nunique()
    eventful = evidence / export.groupby("doc_id").size().reindex(evidence.index)
    kept = eventful.index[eventful >= eventful.quantile(share)]
    return rows[rows["doc_id"].isin(kept)].reset_index(drop=True)


def with_inner_names(rows: pd.DataFrame, export: pd.DataFrame) -> pd.DataFrame:
    """The rows and, for each, a copy per name inside its mention other than its own text: a
    name of the document (a proper mention's phrase) or the words of a bracket, the longest
    only, as an entity of kind :data:`INNER_NAME` numbered after the document's entities."""
    proper = export[export["proper"].astype(bool)]
    names = {doc: {n for n in map(normalize_mention, group["phrase"].astype(str)) if n}
             for doc, group in proper.groupby("doc_id")}
    extra: list[dict[str, Any]] = []
    for row in rows.itertuples(index=False):
        inside = f" {normalize_mention(row.mention)} "
        found = {n for n in names.get(row.doc_id, ()) if f" {n} " in inside}
        found |= {normalize_mention(b) for b in _BRACKETED.findall(row.mention)}
        found.discard(normalize_mention(row.entity_text))
        found.discard("")
        for name in sorted(n for n in found
                           if not any(n != o and f" {n} " in f" {o} " for o in found)):
            extra.append({**row._asdict(), "entity_text": name, "entity_kind": INNER_NAME})
    if not extra:
        return rows
    added = pd.DataFrame(extra)
    first = rows.groupby("doc_id")["entity"].max() + 1
    added["entity"] = (added.groupby("doc_id")["entity_text"].transform(
        lambda texts: pd.factorize(texts)[0]) + added["doc_id"].map(first)).astype("int64")
    return pd.concat([rows, added], ignore_index=True)[list(rows.columns)]


def numbered_descriptions(heads: Sequence[str], phrases: Sequence[str],
                          proper: Sequence[bool], is_title: Callable[[str], bool] | None,
                          mentions: Sequence[str] | None = None) -> list[Entity]:
    """The product's entities, a description's text preceded by the number just before its
    phrase in its first mention (*three subversives*)."""
    entities = document_entities(heads, phrases, proper, is_title, mentions)
    if mentions is None:
        return entities
    out = []
    for entity in entities:
        first = entity.mentions[0]
        around = around_phrase(str(phrases[first]), str(mentions[first]))
        before = around[0].split() if around else []
        if entity.kind == DESCRIPTION and before and (
                before[-1].lower() in NUMBER_WORDS or before[-1].isdigit()):
            entity = Entity(f"{before[-1]} {entity.text}", entity.kind, entity.mentions)
        out.append(entity)
    return out


def probe_rows(export: pd.DataFrame, default: pd.DataFrame,
               events: Callable[..., pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Each configuration's event rows: the default's and each probe's."""
    probes = {"default": default}
    for gap in SPLIT_GAPS:
        probes[f"split where sentences are {gap} apart"] = split_by_gap(default, gap)
    for share in DROPPED_SHARES:
        probes[f"documents with the least event share dropped ({share:g})"] = (
            drop_least_eventful(default, export, share))
    probes["names inside a filler"] = with_inner_names(default, export)
    probes["numbers kept in a description's text"] = events(
        entity_rule=numbered_descriptions)
    return probes


def main(argv: list[str] | None = None) -> int:
    args = sweep_scoring_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    scoring = sweep_scoring("incident_probes", args)
    records = configuration_records(scoring, lambda export, events: probe_rows(
        export, events(), events))
    write_records(records, args.rows, args.table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
