"""Scoring steps: the score grid of a run's export, and a sweep's score row; cached on the
export's bytes and the keys."""

from __future__ import annotations

from typing import Any

import pandas as pd

from aesi_lib.corpus.sources import Corpus
from aesi_lib.fingerprint import file_sha256
from aesi_lib.run import pipeline
from aesi_lib.steps.declaration import step
from aesi_lib.steps.keys import content_key, source_hash
from aesi_lib.steps.logs import step_logger


def _keys_digest(corpus: Corpus) -> str:
    return content_key("keys", corpus.name, repr(corpus.eval_keys), repr(corpus.map_keys))


def _scoring_key(step: str, step_fn: Any, parameters: dict[str, Any]) -> str:
    """Key of a step that scores an export: its source, the export's bytes, the keys."""
    return content_key(step, source_hash(step_fn), file_sha256(parameters["assignments_path"]),
                       _keys_digest(parameters["corpus"]))


@step("evaluate", key=lambda p: _scoring_key("evaluate", evaluate_step.fn, p))
def evaluate_step(assignments_path: str, corpus: Corpus) -> dict[str, Any]:
    """MUC-4 scores (test-/dev-mapped × lenient/strict) of an export; {} without keys."""
    if not corpus.eval_keys:
        step_logger().info("no answer keys for this corpus: evaluation skipped")
        return {}
    assignments = pd.read_parquet(assignments_path)
    scores = pipeline.evaluate_assignments(assignments, corpus.eval_keys, corpus.map_keys)
    main = scores["test-mapped/lenient"]
    step_logger().info("%s test-mapped lenient: P %.3f R %.3f F1 %.3f", corpus.eval_label,
                       main["precision"], main["recall"], main["f1"])
    return scores


@step("score-row", key=lambda p: _scoring_key("score-row", score_row_step.fn, p))
def score_row_step(assignments_path: str, corpus: Corpus) -> dict[str, float]:
    """The sweep's score columns of one run (``aesi_lib.run.experiments.score_row``)."""
    from aesi_lib.run.experiments import score_row

    return score_row(pd.read_parquet(assignments_path), corpus.eval_keys or [],
                     corpus.map_keys)


def _events_key(step: str, step_fn: Any, parameters: dict[str, Any]) -> str:
    """Key of a step that scores a run's events: the scoring key and the events' bytes."""
    return content_key(step, _scoring_key(step, step_fn, parameters),
                       file_sha256(parameters["events_path"]))


@step("template-filling",
      key=lambda p: _events_key("template-filling", template_filling_step.fn, p))
def template_filling_step(assignments_path: str, events_path: str, corpus: Corpus
                          ) -> dict[str, Any]:
    """The template-filling metric of GTT and IterX of a run's events on the scored split,
    its map learned on the DEV keys (``aesi_lib.evaluate.incident_map``); {} without
    both keys."""
    from aesi_lib.evaluate.incident_map import template_filling

    if not corpus.eval_keys or not corpus.map_keys:
        return {}
    texts = {d.doc_id: d.text for d in corpus.documents}
    result = template_filling(pd.read_parquet(events_path), pd.read_parquet(assignments_path),
                              corpus.eval_keys, corpus.map_keys, texts)
    micro = result["micro"]
    step_logger().info("%s template filling (DEV-mapped): P %.3f R %.3f F1 %.3f",
                       corpus.eval_label, micro["p"], micro["r"], micro["f1"])
    return result
