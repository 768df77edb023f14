"""Slot filling of new documents with an existing schema (``aesi_lib.model.extract``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from aesi_lib.model.feature_files import load_features
from aesi_lib.model.solution_files import load_labels
from aesi_lib.run import pipeline
from aesi_lib.run.config import RunConfig
from aesi_lib.steps.declaration import step
from aesi_lib.steps.logs import step_logger


@step("fill-slots")
def fill_slots_step(entities: pd.DataFrame, artifacts: dict[str, str],
                    config: RunConfig, out_dir: str, sentences: pd.DataFrame | None = None
                    ) -> dict[str, str]:
    """Assign the new mentions to the run's templates and slots (``pipeline.fill_documents``)
    and write ``assignments.csv`` / ``.parquet`` for them, with the similarity score of each
    label and the rule that chose it (``unit``: a unit the run has seen; ``similarity``), and
    their filled events (``events.jsonl`` / ``.parquet``) with the run's roles and template
    names.

    With ``features.context``, the new mentions' context vectors come from the function the
    run's ``context-vectors`` step used, over ``sentences`` (the new documents' rows,
    ``aesi_lib.store.database.parse_frames``), through the project's vector cache."""
    train, train_vocab = load_features(artifacts["features"])
    frame = pipeline.fill_documents(
        entities, train, train_vocab, load_labels(artifacts["labels"]), config,
        sentences=sentences, context_cache=Path(artifacts["project_dir"]) / "context-vectors")
    step_logger().info(
        "filled %d mentions of %d documents: template by a known unit for %d, slot for %d; "
        "the others by similarity", len(frame), frame["doc_id"].nunique(),
        int((frame["template_rule"] == "unit").sum()), int((frame["slot_rule"] == "unit").sum()))
    paths = pipeline.write_export(frame, out_dir)
    reading = pipeline.kept_run_reading(artifacts.get("event_reading"),
                                        artifacts["assignments_parquet"], config.wordnet_path)
    rows = pipeline.document_event_rows(frame, reading)
    events = pipeline.write_events(rows, out_dir)
    return {**paths, "events": events["jsonl"], "events_parquet": events["parquet"]}
