"""Filled events: what each document reports, who did it, to whom, with what.

The rule that turns a run's labelled mentions into incidents, in one place for ``aesi run``,
``aesi update``, ``aesi extract``, the Python API, the report and the template-filling
metric:

1. **Only event templates yield incidents** (:mod:`aesi_lib.events.kinds`); the mentions of
   background and discourse templates stay in ``assignments``.
2. **An incident is an event template within a document**: the document's mentions that
   carry it, in the sentences they span.
3. Its **trigger** (its sub-type) is the predicate that carries most of its event weight
   (the predicates' unscaled salience, :func:`aesi_lib.events.kinds.predicate_weights`; ties
   go to the more frequent, then the alphabetically first predicate): *kidnap* and *murder*
   are two sub-types of *attack/kill/murder*. Its **trigger sentences** are those where the
   trigger occurs.
4. Its **confidence** is its share of the event weight of every mention of the document
   (of the mentions, where no predicate has a weight): a document about a bombing gives its
   bombing most of its salient verbs; a speech that mentions an attack in passing does not.
   An incident below :data:`MIN_CONFIDENCE` is not reported, so a document that reports no
   event has no incident.
5. Its **roles** are its template's slots, each filled with **entities**, not mentions
   (:mod:`aesi_lib.events.entities`): an entity fills a slot when one of its mentions in the
   incident carries that slot, with its text as a person writes it and every such mention as
   evidence, each with its span in the text as the user gave it. An entity written as a bare
   personal pronoun (*they*: a pronoun whose antecedent R18 did not find) says nobody a
   reader can name and fills no role; its mentions stay in ``assignments``
   (docs/experiments/incident-probes.md).

Two incidents of one template in one document (a murder and a kidnapping told together) are
one incident here (each evidence row keeps its own ``predicate``); the
template-filling metric reads it as two where the map learned on DEV gives the sentences'
triggers two types, or where a sentence names only victims or targets the template read so
far does not hold (``aesi_lib.evaluate.incident_map.predicted_templates``;
docs/experiments/event-levers.md, docs/experiments/template-splits.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.entities.pronouns import PERSONAL_PRONOUNS
from aesi_lib.events.entities import DESCRIPTION, Entity, document_entities
from aesi_lib.events.schema import EventSchema, completed_export
from aesi_lib.files import writing
from aesi_lib.run.roles import Role

#: The least confidence of a reported incident, chosen on DEV (the template-filling metric,
#: default preset, seeds 0-9): 0.04-0.06 are one plateau (0.3113-0.3116, within the seeds'
#: spread) above 0 (0.293), 0.02 (0.302) and 0.1 (0.301), and of those the largest, which
#: leaves a reader the fewest incidents (docs/experiments/event-levers.md).
MIN_CONFIDENCE = 0.06

#: The columns of ``events.parquet``: one row per evidence mention of a role's entity.
EVENT_COLUMNS = ("doc_id", "incident", "template", "template_name", "trigger", "confidence",
                 "slot", "role", "minor", "entity", "entity_text", "entity_kind", "sent_id",
                 "entity_id", "mention", "head", "predicate", "start_char", "end_char")


#: How a document's mentions become entities: heads, phrases, proper flags, a title test and
#: the mentions' texts -> entities (:func:`aesi_lib.events.entities.document_entities`).
EntityRule = Callable[[Sequence[str], Sequence[str], Sequence[bool],
                       Callable[[str], bool] | None, Sequence[str]], list[Entity]]


def event_rows(assignments: pd.DataFrame, schema: EventSchema, roles: Iterable[Role],
               template_names: Mapping[int, str],
               min_confidence: float = MIN_CONFIDENCE,
               entity_rule: EntityRule = document_entities) -> pd.DataFrame:
    """One row per evidence mention of every incident (:data:`EVENT_COLUMNS`).

    Parameters
    ----------
    assignments : DataFrame
        An export: ``doc_id``, ``sent_id``, ``entity_id``, ``head``, ``mention``,
        ``predicate``, ``template``, ``slot``, ``start_char``, ``end_char``, ``phrase``,
        ``proper`` (the columns a bare scoring file lacks as
        :func:`aesi_lib.events.schema.completed_export` fills them).
    schema : EventSchema
        The run's template kinds (a template without one is not an event template), predicate
        weights (a predicate without one weighs 0) and title test
        (:func:`aesi_lib.events.schema.event_schema` of the run's export).
    roles : iterable of Role
        The schema's roles (:func:`aesi_lib.run.roles.template_roles` of the run).
    template_names : mapping of int to str
    min_confidence : float
        :data:`MIN_CONFIDENCE`.
    entity_rule : callable
        How a document's mentions become entities (:data:`EntityRule`); the rule of
        :mod:`aesi_lib.events.entities` unless an experiment passes another.

    Returns
    -------
    DataFrame
        Documents in order of their ids; within a document its incidents numbered from 0 in
        order of their first sentence (ties: the smaller template); within an incident its
        rows in text order. ``entity`` numbers the document's entities from 0 in order of
        their first mention.
    """
    described = {(r.template, r.slot): r for r in roles}
    events = {t for t, k in schema.kinds.items() if k.is_event}
    weights, is_title = schema.weights, schema.is_title
    frame = completed_export(assignments).sort_values(
        ["doc_id", "sent_id", "start_char", "entity_id"], kind="stable").reset_index(drop=True)
    heads = frame["head"].astype(str).to_numpy()
    phrases = frame["phrase"].astype(str).to_numpy()
    mentions = frame["mention"].astype(str).to_numpy()
    proper = frame["proper"].astype(bool).to_numpy()
    predicates = frame["predicate"].astype(str).to_numpy()
    weight = np.array([weights.get(p, 0.0) for p in predicates])
    templates = frame["template"].to_numpy(dtype=np.int64)
    sent_ids = frame["sent_id"].to_numpy(dtype=np.int64)
    event_templates = np.isin(templates, list(events))
    picked: list[np.ndarray] = []
    columns: dict[str, list[Any]] = {c: [] for c in ("doc_id", "incident", "template",
                                                     "trigger", "confidence", "entity",
                                                     "entity_text", "entity_kind")}
    for doc_id, rows in frame.groupby("doc_id", sort=True).indices.items():
        in_events = rows[event_templates[rows]]
        if not in_events.size:
            continue
        found = entity_rule(heads[rows], phrases[rows], proper[rows], is_title,
                            mentions[rows])
        entity = np.empty(len(rows), dtype=np.int64)
        for number, e in enumerate(found):
            entity[list(e.mentions)] = number
        anonymous = [e.kind == DESCRIPTION and e.text.lower() in PERSONAL_PRONOUNS
                     for e in found]
        position = {row: i for i, row in enumerate(rows)}
        total = weight[rows].sum()
        incidents = []
        for template in np.unique(templates[in_events]):
            members = in_events[templates[in_events] == template]
            confidence = (weight[members].sum() / total if total > 0
                          else len(members) / len(rows))
            named = members[[not anonymous[entity[position[row]]] for row in members]]
            if confidence < min_confidence or not named.size:
                continue
            incidents.append((int(sent_ids[named].min()), int(template), named,
                              _trigger(predicates[members], weight[members]),
                              float(confidence)))
        for number, (_, template, members, trigger, confidence) in enumerate(sorted(
                incidents, key=lambda item: item[:2])):
            numbers = entity[[position[row] for row in members]]
            picked.append(members)
            n = len(members)
            columns["doc_id"] += [str(doc_id)] * n
            columns["incident"] += [number] * n
            columns["template"] += [template] * n
            columns["trigger"] += [trigger] * n
            columns["confidence"] += [confidence] * n
            columns["entity"] += numbers.tolist()
            columns["entity_text"] += [found[e].text for e in numbers]
            columns["entity_kind"] += [found[e].kind for e in numbers]
    if not picked:
        return pd.DataFrame({c: pd.Series(dtype=_DTYPES.get(c, object))
                             for c in EVENT_COLUMNS})
    source = frame.iloc[np.concatenate(picked)].reset_index(drop=True)
    role = [described.get((int(t), int(s))) for t, s in zip(source["template"],
                                                                source["slot"], strict=True)]
    out = pd.DataFrame(columns).assign(
        template_name=[template_names.get(int(t), "") for t in columns["template"]],
        slot=source["slot"].astype("int64"),
        role=[r.description if r else "" for r in role],
        minor=[bool(r.minor) if r else False for r in role],
        sent_id=source["sent_id"].astype("int64"),
        entity_id=source["entity_id"].astype("int64"),
        mention=source["mention"].astype(str), head=source["head"].astype(str),
        predicate=source["predicate"].astype(str),
        start_char=source["start_char"].astype("int64"),
        end_char=source["end_char"].astype("int64"))
    return out[list(EVENT_COLUMNS)].astype({c: t for c, t in _DTYPES.items()})


_DTYPES = {"incident": "int64", "template": "int64", "confidence": "float64", "slot": "int64",
           "minor": "bool", "entity": "int64", "sent_id": "int64", "entity_id": "int64",
           "start_char": "int64", "end_char": "int64"}


def _trigger(predicates: np.ndarray, weight: np.ndarray) -> str:
    """The predicate with the largest summed weight; ties: the more frequent, then the
    alphabetically first."""
    mass: dict[str, list[float]] = {}
    for p, w in zip(predicates, weight, strict=True):
        entry = mass.setdefault(str(p), [0.0, 0])
        entry[0] += float(w)
        entry[1] += 1
    return min(mass, key=lambda p: (-round(mass[p][0], 9), -mass[p][1], p))


def document_events(rows: pd.DataFrame, chunk_rows: int = 20_000
                    ) -> Iterator[dict[str, Any]]:
    """The rows of :func:`event_rows` as one record per document (``events.jsonl``'s lines),
    yielded in the rows' order::

        {"doc_id", "incidents": [{"incident", "template", "template_name", "trigger",
          "confidence", "sentences", "trigger_sentences", "roles": [{"slot", "role",
          "minor", "entities": [{"entity", "text", "kind", "mentions": [{"entity_id",
          "mention", "head", "predicate", "start_char", "end_char", "sent_id"}]}]}]}]}

    roles in the order of their first mention, a role's entities in the order of their first
    mention there. One pass over the rows, which hold each document's rows together (as
    :func:`event_rows` orders them), about ``chunk_rows`` at a time (whole documents), so
    the memory is that of one chunk, not of the whole corpus's records."""
    for chunk in _document_chunks(rows, chunk_rows):
        columns = [chunk[c].tolist() for c in EVENT_COLUMNS]
        current: str | None = None
        incidents: dict[int, dict[str, Any]] = {}
        for (doc_id, incident, template, template_name, trigger, confidence, slot, role,
             minor, entity, entity_text, entity_kind, sent_id, entity_id, mention, head,
             predicate, start, end) in zip(*columns, strict=True):
            if doc_id != current:
                if current is not None:
                    yield _document_record(current, incidents)
                current, incidents = doc_id, {}
            entry = incidents.get(incident)
            if entry is None:
                entry = incidents[incident] = {
                    "incident": int(incident), "template": int(template),
                    "template_name": str(template_name), "trigger": str(trigger),
                    "confidence": round(float(confidence), 4), "sentences": set(),
                    "trigger_sentences": set(), "roles": {}}
            entry["sentences"].add(int(sent_id))
            if predicate == trigger:
                entry["trigger_sentences"].add(int(sent_id))
            filled = entry["roles"].get(slot)
            if filled is None:
                filled = entry["roles"][slot] = {"slot": int(slot), "role": str(role),
                                                  "minor": bool(minor), "entities": {}}
            member = filled["entities"].get(entity)
            if member is None:
                member = filled["entities"][entity] = {
                    "entity": int(entity), "text": str(entity_text), "kind": str(entity_kind),
                    "mentions": []}
            member["mentions"].append({
                "entity_id": int(entity_id), "mention": str(mention), "head": str(head),
                "predicate": str(predicate), "start_char": int(start), "end_char": int(end),
                "sent_id": int(sent_id)})
        if current is not None:
            yield _document_record(current, incidents)


def _document_record(doc_id: str, incidents: dict[int, dict[str, Any]]) -> dict[str, Any]:
    return {"doc_id": str(doc_id),
            "incidents": [{**entry, "sentences": sorted(entry["sentences"]),
                           "trigger_sentences": sorted(entry["trigger_sentences"]),
                           "roles": [{**role, "entities": list(role["entities"].values())}
                                     for role in entry["roles"].values()]}
                          for _, entry in sorted(incidents.items())]}


def _document_chunks(rows: pd.DataFrame, size: int) -> Iterator[pd.DataFrame]:
    """``rows`` in slices of about ``size`` rows that end where a document ends."""
    doc_ids = rows["doc_id"].to_numpy()
    # The first row of each document after the first.
    starts = np.flatnonzero(doc_ids[1:] != doc_ids[:-1]) + 1
    begin = 0
    while begin < len(rows):
        later = starts[starts >= begin + max(size, 1)]
        stop = int(later[0]) if later.size else len(rows)
        yield rows.iloc[begin:stop]
        begin = stop


def write_events(rows: pd.DataFrame, out_dir: str | Path, name: str = "events"
                 ) -> dict[str, str]:
    """``<name>.jsonl`` (one document a line, :func:`document_events`) and
    ``<name>.parquet`` (the rows) in ``out_dir``; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jsonl, parquet = out / f"{name}.jsonl", out / f"{name}.parquet"
    with writing(jsonl), open(jsonl, "w", encoding="utf-8") as fh:
        for record in document_events(rows):
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    with writing(parquet):
        rows.to_parquet(parquet, index=False)
    return {"jsonl": str(jsonl), "parquet": str(parquet)}
