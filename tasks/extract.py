"""Slot filling of new documents with an existing schema (``aesi_lib.model.extract``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from aesi_lib.model.feature_files import load_features
from aesi_lib.model.solution_files import load_labels
from aesi_lib.run import pipeline
from aesi_lib.run.config import RunConfig


@task(name="fill-slots", cache_policy=NO_CACHE)
def fill_slots_task(entities: pd.DataFrame, artifacts: dict[str, str],
                    config: RunConfig, out_dir: str, sentences: pd.DataFrame | None = None
                    ) -> dict[str, str]:
    """Assign the new mentions to the run's templates and slots (``aesi_lib.model.extract``) and
    write ``assignments.csv`` / ``.parquet`` for them, with the similarity score of each label
    and the rule that chose it (``unit``: a unit the run has seen; ``similarity``), and their
    filled events (``events.jsonl`` / ``.parquet``) with the run's roles and template names.

    With ``features.context``, the new mentions' context vectors come from the function the
    run's ``context-vectors`` step used, over ``sentences`` (the new documents' rows,
    ``aesi_lib.store.database.parse_frames``), through the project's vector cache."""
    from aesi_lib.model.extract import fill_slots
    from aesi_lib.model.features import build_features

    log = get_run_logger()
    if entities.empty:
        raise ValueError("the new documents hold no entity mentions: nothing to fill")
    train, train_vocab = load_features(artifacts["features"])
    labels = load_labels(artifacts["labels"])
    templates, slots = labels.template, labels.slot
    vectors, wordnet = pipeline.load_lexicon(config)
    empty_pmi = pd.DataFrame({"word1": [], "word2": [], "pmi": []})
    new, new_vocab = build_features(entities, empty_pmi, vectors, wordnet, config.features)
    if config.features.context:
        from aesi_lib.lexicon.encoder import run_encoder
        from aesi_lib.lexicon.mention_context import mention_context_vectors

        if sentences is None:
            raise ValueError("the run uses context vectors: the new documents' sentences are "
                             "needed")
        context = mention_context_vectors(
            entities, sentences, run_encoder(config.features, config.vectors_path),
            Path(artifacts["project_dir"]) / "context-vectors")
        new = dataclasses.replace(new, **context.feature_arrays())
    fill = fill_slots(train, train_vocab, templates, slots, new, new_vocab, config.model)
    rows = np.arange(len(entities))
    frame = entities.assign(template=fill.template, slot=fill.slot)[pipeline.EXPORT_COLUMNS]
    frame = frame.assign(
        template_score=fill.template_scores[rows, fill.template],
        slot_score=fill.slot_scores[rows, fill.slot],
        template_rule=np.where(fill.template_known, "unit", "similarity"),
        slot_rule=np.where(fill.slot_known, "unit", "similarity"))
    log.info("filled %d mentions of %d documents: template by a known unit for %d, slot for %d; "
             "the others by similarity", len(frame), frame["doc_id"].nunique(),
             int(fill.template_known.sum()), int(fill.slot_known.sum()))
    paths = pipeline.write_export(frame, out_dir)
    roles, names = pipeline.run_schema(pd.read_parquet(artifacts["assignments_parquet"]))
    events = pipeline.write_events(frame, out_dir, roles, names)
    return {**paths, "events": events["jsonl"], "events_parquet": events["parquet"]}
