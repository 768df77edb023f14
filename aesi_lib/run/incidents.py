"""Filled events: what each document reports, who did it, to whom, with what.

The rule that groups mentions into incidents, in one place for ``aesi run``, ``aesi update``,
``aesi extract`` and the Python API:

    **An incident is a template within a document**: the mentions of one document that carry
    one template, in the sentences they span, with their fillers grouped by role (slot).

The model assigns templates mention by mention, and a document's sentences about one event
share a template by design (templates are tied by predicate and the sentence constraint asks
the mentions of a sentence to share one), so the template is the unit of an event in a
document. Two incidents of the same kind in one document (two bombings) fall into one
incident: no split by sentence distance was measured to be better (a splitting rule needs a
per-incident key to be chosen on, which DEV's per-document templates would give).

Each filler keeps the mention's id, its text, its head and its character span in the text as
the user gave it, so ``text[start_char:end_char]`` is the filler.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.files import writing
from aesi_lib.run.roles import Role

#: The columns of ``events.parquet``: one row per filler.
EVENT_COLUMNS = ("doc_id", "incident", "template", "template_name", "slot", "role", "minor",
                 "sent_id", "entity_id", "mention", "head", "start_char", "end_char")


def event_rows(assignments: pd.DataFrame, roles: Iterable[Role],
               template_names: dict[int, str]) -> pd.DataFrame:
    """One row per filler of every incident (:data:`EVENT_COLUMNS`).

    Parameters
    ----------
    assignments : DataFrame
        An export: ``doc_id``, ``sent_id``, ``entity_id``, ``head``, ``mention``,
        ``template``, ``slot``, ``start_char``, ``end_char``.
    roles : iterable of Role
        The schema's roles (:func:`aesi_lib.run.roles.template_roles` of the run).
    template_names : dict of int to str
        Each template's name.

    Returns
    -------
    DataFrame
        Documents in order of their ids; within a document its incidents numbered from 0 in
        order of their first sentence (ties: the smaller template); within an incident its
        fillers in text order. A mention of a (template, slot) the roles do not know (a new
        document's label outside the schema) keeps an empty role.
    """
    described = {(r.template, r.slot): r for r in roles}
    frame = assignments.sort_values(["doc_id", "sent_id", "start_char", "entity_id"],
                                    kind="stable")
    first = frame.groupby(["doc_id", "template"], sort=False)["sent_id"].transform("min")
    frame = frame.assign(_first=first).sort_values(
        ["doc_id", "_first", "template", "sent_id", "start_char", "entity_id"], kind="stable")
    # Numbered in order of appearance over the sorted rows, then from 0 within each document.
    number = frame.groupby(["doc_id", "_first", "template"], sort=False).ngroup()
    incident = number - number.groupby(frame["doc_id"]).transform("min")
    role = [described.get((int(t), int(s))) for t, s in zip(frame["template"], frame["slot"],
                                                                strict=True)]
    out = pd.DataFrame({
        "doc_id": frame["doc_id"].astype(str),
        "incident": incident.astype("int64"),
        "template": frame["template"].astype("int64"),
        "template_name": [template_names.get(int(t), "") for t in frame["template"]],
        "slot": frame["slot"].astype("int64"),
        "role": [r.description if r else "" for r in role],
        "minor": [bool(r.minor) if r else False for r in role],
        "sent_id": frame["sent_id"].astype("int64"),
        "entity_id": frame["entity_id"].astype("int64"),
        "mention": frame["mention"].astype(str),
        "head": frame["head"].astype(str),
        "start_char": frame["start_char"].astype("int64"),
        "end_char": frame["end_char"].astype("int64"),
    })
    return out.reset_index(drop=True)[list(EVENT_COLUMNS)]


def document_events(rows: pd.DataFrame, chunk_rows: int = 20_000
                    ) -> Iterator[dict[str, Any]]:
    """The rows of :func:`event_rows` as one record per document (``events.jsonl``'s lines),
    yielded in the rows' order: ``{"doc_id", "incidents": [{"incident", "template",
    "template_name", "sentences", "mentions", "roles": [{"slot", "role", "minor",
    "fillers": [...]}]}]}``, a role's fillers each ``{"entity_id", "mention", "head",
    "start_char", "end_char", "sent_id"}``, roles in the order of their first filler.

    One pass over the rows, which hold each document's rows together (as :func:`event_rows`
    orders them), taking about ``chunk_rows`` rows' values at a time (whole documents), so a
    corpus of 10^5 mentions takes a fraction of a second and the memory of one chunk, not of
    the whole corpus's records."""
    for chunk in _document_chunks(rows, chunk_rows):
        columns = [chunk[c].tolist() for c in EVENT_COLUMNS]
        current: str | None = None
        incidents: dict[int, dict[str, Any]] = {}
        for (doc_id, incident, template, template_name, slot, role, minor, sent_id,
             entity_id, mention, head, start, end) in zip(*columns, strict=True):
            if doc_id != current:
                if current is not None:
                    yield _document_record(current, incidents)
                current, incidents = doc_id, {}
            entry = incidents.get(incident)
            if entry is None:
                entry = incidents[incident] = {
                    "incident": int(incident), "template": int(template),
                    "template_name": str(template_name), "sentences": set(), "mentions": 0,
                    "roles": {}}
            entry["sentences"].add(int(sent_id))
            entry["mentions"] += 1
            filled = entry["roles"].get(slot)
            if filled is None:
                filled = entry["roles"][slot] = {"slot": int(slot), "role": str(role),
                                                  "minor": bool(minor), "fillers": []}
            filled["fillers"].append({"entity_id": int(entity_id), "mention": str(mention),
                                      "head": str(head), "start_char": int(start),
                                      "end_char": int(end), "sent_id": int(sent_id)})
        if current is not None:
            yield _document_record(current, incidents)


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


def _document_record(doc_id: str, incidents: dict[int, dict[str, Any]]) -> dict[str, Any]:
    return {"doc_id": str(doc_id),
            "incidents": [{**entry, "sentences": sorted(entry["sentences"]),
                           "roles": list(entry["roles"].values())}
                          for _, entry in sorted(incidents.items())]}


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
