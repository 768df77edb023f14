"""The events of a run (``aesi_lib.events``): cached on the export's bytes and the WordNet it
reads, so that a run whose labels did not change does not read WordNet again."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from aesi_lib.fingerprint import file_sha256
from aesi_lib.run import pipeline
from aesi_lib.steps.declaration import step
from aesi_lib.steps.keys import (
    content_key,
    resolved,
    source_hash,
    wordnet_key,
)
from aesi_lib.steps.logs import step_logger


def events_files(assignments_path: str, wordnet_path: str | None, work_dir: str
                 ) -> dict[str, str]:
    """Where :func:`events_step` keeps the events of the export ``assignments_path``: a
    ``.parquet`` of rows and a ``.json`` of the run's reading (``aesi_lib.run.reading``:
    template kinds, predicate weights, roles, template names) under ``<work_dir>/events``,
    named after their content key."""
    key = content_key("events", source_hash(events_step.fn), resolved(work_dir),
                      file_sha256(assignments_path), wordnet_key(wordnet_path))
    folder = Path(work_dir) / "events"
    return {"rows": str(folder / f"{key}.parquet"), "reading": str(folder / f"{key}.json")}


@step("events", files="files")
def events_step(assignments_path: str, wordnet_path: str | None, files: dict[str, str]
                ) -> dict[str, str]:
    """The incidents of every document of a run's export (``pipeline.document_event_rows``,
    with its reading: template kinds, predicate weights, titles, roles, template names) and
    the reading, kept as ``files`` (:func:`events_files`)."""
    export = pd.read_parquet(assignments_path)
    reading = pipeline.run_reading(export, wordnet_path)
    rows = pipeline.document_event_rows(export, reading)
    pipeline.save_events(rows, reading, files)
    kinds = reading.events.kinds
    events = sorted(t for t, k in kinds.items() if k.is_event)
    incidents = rows[["doc_id", "incident"]].drop_duplicates()
    step_logger().info(
        "events: %d of %d templates are event templates (%s); %d incidents in %d of %d "
        "documents", len(events), len(kinds), ", ".join(map(str, events)),
        len(incidents), incidents["doc_id"].nunique(), export["doc_id"].nunique())
    return files


@step("readable")
def readable_step(assignments_path: str, events: dict[str, str], out_dir: str
                  ) -> dict[str, str]:
    """What a person reads beside the export (``pipeline.write_readable``): ``schema.json``
    and ``schema.md`` (templates with their kinds and roles) and ``events.jsonl`` /
    ``.parquet`` (each document's incidents with their entities)."""
    rows, reading = pipeline.load_events(events)
    return pipeline.write_readable(pd.read_parquet(assignments_path), rows, reading, out_dir)
