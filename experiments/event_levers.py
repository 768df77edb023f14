"""Issue 66's levers of the events, each taken away from the rule (or set otherwise), scored by
the template-filling metric of GTT and IterX on TST1+TST2 and DEV, map learned on DEV.

For each export of a sweep (``DIR/runs/CONFIGURATION/seed-N/assignments.parquet``), the
events of the product's rule (``aesi_lib.events``) and of each variant below, each passed to
the library as a parameter (an entity rule, a map option, a confidence):

* ``default``: the rule as it is (its least confidence
  :data:`aesi_lib.events.incidents.MIN_CONFIDENCE`), and each other variant on top of it;
* ``no sub-types``: every incident takes its template's type;
* ``one cell a role``: the map gives each role one (template, slot, kind) cell;
* ``mentions as entities``: every mention its own entity, its text the mention's;
* ``entity text: head`` / ``entity text: mention``: the entities merged, their text the
  head word of their first mention, or the first mention's whole text;
* ``every template an event``: no template kinds;
* ``least confidence T``: incidents below T are not reported (relevance; 0: none), the map
  learned on what is reported;
* ``no split by sentence type``: every incident one predicted template of its type, where
  the rule makes one per type its sentences' own triggers stand for under the map (a murder
  and a kidnapping in one incident: ``aesi_lib.evaluate.incident_map.predicted_templates``);
* ``all levers off``: every template an event, mentions as entities, no sub-types, one
  cell a role, least confidence 0 (and so no split: without sub-types every sentence stands
  for its template's type).

Prints mean ± std over the seeds; ``--rows`` writes one row per seed, configuration and
split, ``--table`` the printed table, as CSV: the record of
``docs/experiments/event-levers.md``.

    .venv/bin/python -m experiments.event_levers --runs sweep-default/runs/default \\
        --rows docs/experiments/event-levers-rows.csv \\
        --table docs/experiments/event-levers.csv
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from aesi_lib.evaluate.incident_map import (
    TemplateMap,
    learn_template_map,
    predicted_templates,
)
from aesi_lib.evaluate.template_filling import ROLES, TYPE_ROLE, score_templates
from aesi_lib.events.entities import Entity, document_entities
from aesi_lib.events.incidents import event_rows
from aesi_lib.events.kinds import EVENT
from aesi_lib.events.schema import EventSchema, event_schema
from aesi_lib.lexicon.wordnet import load_wordnet
from aesi_lib.markdown import markdown_table
from aesi_lib.run.pipeline import run_schema
from experiments.muc4_inputs import mean_std, sweep_scoring, sweep_scoring_parser

CONFIDENCES = (0.0, 0.02, 0.03, 0.04, 0.05, 0.07, 0.08, 0.1)


def mentions_as_entities(heads: Sequence[str], phrases: Sequence[str],
                         proper: Sequence[bool], is_title: Any,
                         mentions: Sequence[str] | None = None) -> list[Entity]:
    """Every mention its own entity, its text the phrase given (the mention's text here)."""
    return [Entity(str(p), "name" if n else "description", (i,))
            for i, (p, n) in enumerate(zip(phrases, proper, strict=True))]


def head_texts(heads: Sequence[str], phrases: Sequence[str], proper: Sequence[bool],
               is_title: Any, mentions: Sequence[str] | None = None) -> list[Entity]:
    """The rule's entities, each written as the head word of its first mention."""
    return [dataclasses.replace(e, text=str(heads[e.mentions[0]]))
            for e in document_entities(heads, phrases, proper, is_title, mentions)]


def score_rows(name: str, seed: int, rows: pd.DataFrame, tmap: TemplateMap,
               golds: dict[str, Any], n_docs: int, mapped_events: float,
               **reading: Any) -> list[dict]:
    """The rows of one configuration: its events read by ``predicted_templates(rows, tmap,
    **reading)``, scored on each split of ``golds``."""
    predicted = predicted_templates(rows, tmap, **reading)
    incidents = rows[["doc_id", "incident"]].drop_duplicates()
    out = []
    for evaluated, gold in golds.items():
        result = score_templates(predicted, gold)
        micro = result.micro
        out.append({"seed": seed, "configuration": name, "split": evaluated,
                    "p": micro.precision, "r": micro.recall, "f1": micro.f1,
                    "templates_predicted": result.roles[TYPE_ROLE].p_den,
                    "templates_gold": result.roles[TYPE_ROLE].r_den,
                    **{f"{role}_f1": result.roles[role].f1 for role in (TYPE_ROLE, *ROLES)},
                    "incidents_per_document": len(incidents) / n_docs,
                    "mapped_templates_events": mapped_events})
    return out


def main(argv: list[str] | None = None) -> int:
    args = sweep_scoring_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    scoring = sweep_scoring("event_levers", args)
    corpus, texts, golds = scoring.corpus, scoring.texts, scoring.golds
    wordnet = load_wordnet(None)
    records: list[dict] = []
    for seed, path in scoring.exports:
        started = time.perf_counter()
        records += seed_records(seed, pd.read_parquet(path), corpus.map_keys, texts, golds,
                                wordnet)
        print(f"seed {seed}: {time.perf_counter() - started:.0f} s", flush=True)
    write_records(records, args.rows, args.table)
    return 0


def configuration_records(scoring: Any, configurations: Callable[
        [pd.DataFrame, Callable[..., pd.DataFrame]],
        dict[str, pd.DataFrame | tuple[pd.DataFrame, dict[str, Any]]]],
        on_map: Callable[[int, str, TemplateMap], None] | None = None) -> list[dict]:
    """The rows of each configuration of each seed's export, for experiments whose
    configurations are event rows, or event rows and options of the map:
    ``configurations(export, events)`` gives them by name, ``events(**kwargs)`` being the
    product's rule on the export (``event_rows`` with ``kwargs``: an entity rule, a least
    confidence), each either rows or ``(rows, options)`` (``learn_template_map``'s keyword
    arguments). Each configuration's map is learned on its own rows; ``on_map(seed, name,
    map)`` is told each map."""
    wordnet = load_wordnet(None)
    records: list[dict] = []
    for seed, path in scoring.exports:
        started = time.perf_counter()
        export = pd.read_parquet(path)
        events = product_events(export, wordnet)
        for name, configured in configurations(export, events).items():
            rows, options = configured if isinstance(configured, tuple) else (configured, {})
            tmap = learn_template_map(rows, export, scoring.corpus.map_keys, scoring.texts,
                                      **options)
            if on_map is not None:
                on_map(seed, name, tmap)
            records += score_rows(name, seed, rows, tmap, scoring.golds,
                                  export["doc_id"].nunique(), float("nan"))
        print(f"seed {seed}: {time.perf_counter() - started:.0f} s", flush=True)
    return records


def product_events(export: pd.DataFrame, wordnet: Any) -> Callable[..., pd.DataFrame]:
    """The product's rule on ``export``: ``event_rows`` with the export's template kinds,
    roles and names, the rest (an entity rule, a least confidence) given as keyword
    arguments."""
    roles, names = run_schema(export)
    return functools.partial(event_rows, export, event_schema(export, wordnet), roles, names)


def write_records(records: list[dict], rows_path: str | None, table_path: str | None
                  ) -> None:
    """Print the mean ± std table of ``records``; write the rows and the table as CSV where
    asked."""
    frame = pd.DataFrame(records)
    if rows_path:
        frame.round(6).to_csv(rows_path, index=False)
    table = summary_table(frame)
    print(markdown_table(list(table.columns), table.itertuples(index=False)))
    if table_path:
        table.to_csv(table_path, index=False)


def seed_records(seed: int, export: pd.DataFrame, map_keys: Any, texts: dict[str, str],
                 golds: dict[str, Any], wordnet: Any) -> list[dict]:
    """The rows of every configuration of one seed's export."""
    n_docs = export["doc_id"].nunique()
    schema = event_schema(export, wordnet)
    roles, names = run_schema(export)
    every_event = dataclasses.replace(schema, kinds={
        t: dataclasses.replace(k, kind=EVENT) for t, k in schema.kinds.items()})
    with_mentions = export.assign(phrase=export["mention"])

    def events(of: EventSchema = schema, frame: pd.DataFrame = export,
               **kwargs: Any) -> pd.DataFrame:
        return event_rows(frame, of, roles, names, **kwargs)

    def learn(rows: pd.DataFrame, **kwargs: Any) -> TemplateMap:
        return learn_template_map(rows, export, map_keys, texts, **kwargs)

    unfiltered = events(min_confidence=0.0)
    default = events()
    default_map = learn(default)
    mapped_events = sum(schema.kinds[t].is_event for t in default_map.types) / max(
        len(default_map.types), 1)
    variants: list[tuple[str, Callable[[], tuple[pd.DataFrame, TemplateMap]]]] = [
        ("default", lambda: (default, default_map)),
        ("no sub-types", lambda: (default, learn(default, sub_types=None))),
        ("one cell a role", lambda: (default, learn(default, cells_per_role=1))),
        ("mentions as entities", lambda: _learned(
            events(frame=with_mentions, entity_rule=mentions_as_entities), learn)),
        ("entity text: head", lambda: _learned(events(entity_rule=head_texts), learn)),
        ("entity text: mention", lambda: _learned(events(frame=with_mentions), learn)),
        ("every template an event", lambda: _learned(events(of=every_event), learn)),
        *((f"least confidence {c:g}", lambda c=c: _learned(
            unfiltered[unfiltered["confidence"] >= c].reset_index(drop=True), learn))
          for c in CONFIDENCES),
        ("no split by sentence type", lambda: (default, default_map)),
        ("all levers off", lambda: _learned(
            events(of=every_event, frame=with_mentions, entity_rule=mentions_as_entities,
                   min_confidence=0.0),
            lambda rows: learn(rows, sub_types=None, cells_per_role=1))),
    ]
    records: list[dict] = []
    for name, make in variants:
        rows, tmap = make()
        records += score_rows(name, seed, rows, tmap, golds, n_docs, mapped_events,
                              split=name != "no split by sentence type")
        tst, dev = records[-2], records[-1]
        print(f"seed {seed}  {name}: TST1+TST2 {tst['f1']:.3f}, DEV {dev['f1']:.3f}, "
              f"{tst['incidents_per_document']:.2f} incidents a document", flush=True)
    return records


def _learned(rows: pd.DataFrame, learn: Callable[[pd.DataFrame], TemplateMap]
             ) -> tuple[pd.DataFrame, TemplateMap]:
    return rows, learn(rows)


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean ± sample std over seeds of each configuration: TST1+TST2 and DEV micro-F1, the
    TST1+TST2 P / R, type and role F1s and templates, and the incidents a document."""
    rows = []
    for name, group in frame.groupby("configuration", sort=False):
        tst = group[group["split"] == "TST1+TST2"]
        dev = group[group["split"] == "DEV"]
        rows.append({
            "configuration": name, "seeds": len(tst),
            "TST1+TST2 micro F1": mean_std(tst["f1"]),
            "P / R": f"{tst['p'].mean():.2f} / {tst['r'].mean():.2f}",
            "DEV micro F1": mean_std(dev["f1"]),
            **{f"{role} F1": f"{tst[f'{role}_f1'].mean():.2f}"
               for role in (TYPE_ROLE, *ROLES)},
            "templates predicted / gold": f"{tst['templates_predicted'].mean():.0f} / "
                                          f"{tst['templates_gold'].mean():.0f}",
            "incidents a document": f"{tst['incidents_per_document'].mean():.2f}"})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    sys.exit(main())
