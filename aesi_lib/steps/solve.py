"""The solve (cuts or AMP), cached on the features file and the model options; the step that
carries a previous solution's ids; and the steps that write the labels out: the export, the run
record, a subset export.

The caller names the files a cached step writes (:func:`solve_files`, :func:`renumbered_file`)
and passes them in; the cache key is their name (``aesi_lib.steps.declaration.Step.cache_key``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd

from aesi_lib.fingerprint import file_sha256
from aesi_lib.model.carry import (
    PreviousLabels,
    carry_ids,
    previous_labels,
    within_configuration,
)
from aesi_lib.model.config import ModelConfig
from aesi_lib.model.feature_files import load_features
from aesi_lib.model.solution_files import (
    SolutionLabels,
    load_labels,
    save_labels,
    save_placement_summary,
    save_summary,
)
from aesi_lib.run import pipeline
from aesi_lib.run.config import RunConfig
from aesi_lib.steps.declaration import step
from aesi_lib.steps.keys import content_key, resolved, source_hash
from aesi_lib.steps.logs import step_logger
from aesi_lib.steps.retry import RETRY
from aesi_lib.store import Store
from aesi_lib.store.database import DEFAULT_KEEP_RUNS


def _previous_key(previous: dict[str, str] | None, entities_path: str | None) -> Any:
    """What carrying a previous solution depends on: its files and the current table."""
    if not previous:
        return None
    return [file_sha256(previous["entities"]), file_sha256(previous["labels"]),
            file_sha256(entities_path) if entities_path else None]


def solve_files(features_path: str, model: ModelConfig, work_dir: str,
                previous: dict[str, str] | None = None, entities_path: str | None = None
                ) -> dict[str, str]:
    """Where :func:`solve_step` writes the solve of these inputs: ``{"labels": npz, "info":
    json}`` under ``<work_dir>/solutions``, named after their content key (the features' bytes,
    ``model``, the warm start's files, the step's source, the library)."""
    key = content_key("solve", source_hash(solve_step.fn), resolved(work_dir),
                      file_sha256(features_path), model, _previous_key(previous, entities_path))
    base = Path(work_dir) / "solutions" / key
    return {"labels": f"{base}.npz", "info": f"{base}.json"}


def _load_previous(previous: dict[str, str], table: pd.DataFrame, model: ModelConfig
                   ) -> PreviousLabels | None:
    """The previous labels of the current mentions (``table``, the current entity table), or
    None when the previous solution has another |T| or |S| (another configuration: nothing
    to carry)."""
    labels = load_labels(previous["labels"])
    if not within_configuration(labels.template, labels.slot, model):
        return None
    return previous_labels(table, pd.read_parquet(previous["entities"]),
                           labels.template, labels.slot, labels.template_members)


def _format_iteration(iteration: int, terms: dict[str, Any], model: ModelConfig) -> str:
    if model.mode == "sc":
        parts = ["solve (-SC: independent cuts)"]
    else:
        parts = [f"AMP iteration {iteration}/{model.max_iter}"]
    if "objective" in terms:
        parts.append(f"objective {terms['objective']:.6g}")
    inner = [f"{name} {terms[name]:.4g}" for name in ("eps1", "eps2", "eps3")
             if isinstance(terms.get(name), int | float)]
    if inner:
        parts.append("(" + ", ".join(inner) + ")")
    if isinstance(terms.get("delta"), int | float):
        parts.append(f"change {terms['delta']:.3g}")
    if isinstance(terms.get("seconds"), int | float):
        parts.append(f"{terms['seconds']:.1f} s")
    return ": ".join(parts[:2]) + (" " + " ".join(parts[2:]) if len(parts) > 2 else "")


@step("solve", files="files")
def solve_step(features_path: str, model: ModelConfig, files: dict[str, str],
               entities_path: str | None = None, previous: dict[str, str] | None = None
               ) -> dict[str, str]:
    """The cuts / AMP solve of ``model`` (a ``ModelConfig``); labels (``.npz``) and the history
    (JSON) saved as ``files`` (:func:`solve_files` of the same inputs) and returned. Logs every
    AMP iteration with its objective.

    ``previous`` (``{"entities": parquet, "labels": npz}`` of an earlier solution, with
    ``entities_path`` the current entity table) warm-starts the -SC cuts from its labels
    (``aesi_lib.model.induction.induce``); its ids are carried afterwards by
    :func:`renumber_step`."""
    log = step_logger()
    features, _ = load_features(features_path)
    log.info("solve: |E| = %d, |T| = %d, |S| = %d, mode %s, seed %d", features.n_entities,
             model.n_templates, model.n_slots, model.mode, model.seed)

    def progress(iteration: int, terms: dict[str, Any]) -> None:
        log.info("%s", _format_iteration(iteration, terms, model))

    warm_start = None
    if previous and entities_path:
        warm_start = _load_previous(previous, pd.read_parquet(entities_path), model)
        if warm_start is None:
            log.info("solve: the previous solution has another |T| or |S|: solved afresh")
    result = pipeline.run_induction(features, model, progress=progress, previous=warm_start,
                                    on_stage=SolveProgress(log))
    save_labels(files["labels"], SolutionLabels.of(result))
    save_summary(files["info"], result)
    if model.mode == "sc":
        log.info("solve finished in %.1f s", result.timings["total"])
    else:
        log.info("solve finished in %.1f s (%d AMP iterations, converged=%s)",
                 result.timings["total"], result.n_iter, result.converged)
    return files


def placement_files(entities_path: str, features_path: str, previous: dict[str, str],
                    work_dir: str) -> dict[str, str]:
    """Where :func:`place_step` writes the placement of the current mentions into
    ``previous``'s schema: ``{"labels": npz, "info": json}`` under ``<work_dir>/solutions``,
    named after their content key (the current table and features, the previous solution's
    files, the step's source, the library)."""
    key = content_key("place", source_hash(place_step.fn), resolved(work_dir),
                      file_sha256(entities_path), file_sha256(features_path),
                      file_sha256(previous["features"]),
                      _previous_key(previous, entities_path))
    base = Path(work_dir) / "solutions" / key
    return {"labels": f"{base}.npz", "info": f"{base}.json"}


@step("place", files="files")
def place_step(entities_path: str, previous: dict[str, str], config: RunConfig, db_path: str,
               context_cache: str, files: dict[str, str]) -> dict[str, Any]:
    """An update that keeps the schema (``pipeline.place_new_mentions``): the previous
    solution's mentions keep their labels, the new ones are placed by the extraction rule;
    labels and summary saved as ``files`` (:func:`placement_files`). Returns the files and the
    counts of the ids kept."""
    started = time.perf_counter()
    table = pd.read_parquet(entities_path)
    previous_ids = _load_previous(previous, table, config.model)
    if previous_ids is None:
        raise ValueError("place: the previous solution has another |T| or |S|; solve instead")
    train, train_vocab = load_features(previous["features"])
    new_docs = sorted(table.loc[~previous_ids.known, "doc_id"].unique())
    sentences = None
    if new_docs and config.features.context:
        with Store(db_path, read_only=True) as store:
            sentences = store.sentence_texts(new_docs)
    labels, counts = pipeline.place_new_mentions(
        table, previous_ids, train, train_vocab, load_labels(previous["labels"]), config,
        sentences=sentences, context_cache=context_cache)
    save_labels(files["labels"], labels)
    save_placement_summary(files["info"], counts, time.perf_counter() - started)
    step_logger().info(
        "place: %d previous mentions kept their template and slot; %d new mentions of %d "
        "documents placed into the schema by the extraction rule (no solve)",
        counts["previous_mentions"], counts["new_mentions"], len(new_docs))
    return {**files, "carried": counts}


def renumbered_file(labels_path: str, previous: dict[str, str], entities_path: str,
                    work_dir: str) -> str:
    """Where :func:`renumber_step` writes the labels of ``labels_path`` renumbered to
    ``previous``: a ``.npz`` under ``<work_dir>/solutions`` named after their content key."""
    key = content_key("ids", source_hash(renumber_step.fn), resolved(work_dir),
                      file_sha256(labels_path), _previous_key(previous, entities_path))
    return str(Path(work_dir) / "solutions" / f"{key}.npz")


class SolveProgress:
    """Logs each part of a -SC solve as it starts (``on_stage`` of
    ``aesi_lib.model.induction.induce``): the consensus members cut so far, with the time
    the others will take at the members' rate so far (timed from the first member's start,
    not from the graphs' build before it), then the slot classes."""

    def __init__(self, log: Any) -> None:
        self.log = log
        self.start = self.cuts_start = time.monotonic()

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        if stage == "template cut" and not done:
            self.cuts_start = now
        elif stage == "template cut" and total > 1:
            left = (now - self.cuts_start) / done * (total - done)
            self.log.info("solve: %d of %d consensus members cut (%.0f s; about %.0f s left "
                          "for the others)", done, total, elapsed, left)
        elif stage == "slot classes":
            self.log.info("solve: templates cut (%.0f s); now the slot classes within each "
                          "template", elapsed)


@step("keep-ids", files="out_path")
def renumber_step(labels_path: str, entities_path: str, previous: dict[str, str],
                  model: ModelConfig, out_path: str) -> dict[str, Any]:
    """The solution of ``labels_path`` with its templates and slots renumbered to the ids of
    the project's previous solution, and how many mentions kept them
    (``aesi_lib.model.carry.carry_ids``), written to ``out_path`` (:func:`renumbered_file`).
    The one step that carries ids: after an update's warm-started solve, and after a full
    run's seeded solve, whose partition stays its own. Returns the labels file and the counts
    (None, and the labels as they were, when the previous solution has another |T| or
    |S|)."""
    log = step_logger()
    labels = load_labels(labels_path)
    previous_ids = _load_previous(previous, pd.read_parquet(entities_path), model)
    if previous_ids is None:
        log.info("ids: the previous solution has another |T| or |S|: new ids")
        return {"labels": labels_path, "carried": None}
    kept = carry_ids(labels.template, labels.slot, previous_ids, model)
    save_labels(out_path, SolutionLabels(kept.template_labels, kept.slot_labels,
                                         labels.template_members))
    c = kept.carried
    log.info("ids: %d of %d previous mentions kept their template id, %d their slot id (%d "
             "new mentions)", c["template_kept"], c["previous_mentions"], c["slot_kept"],
             c["new_mentions"])
    return {"labels": out_path, "carried": c}


@step("export")
def export_step(entities_path: str, solution: dict[str, str], model: ModelConfig,
                out_dir: str) -> dict[str, str]:
    """``assignments.csv`` / ``.parquet``: one row per mention with its template and role
    slot (``pipeline.labelled_export`` under ``model``). The ``events`` and ``readable``
    steps (``aesi_lib.steps.events``) write what a person reads beside them."""
    table = pd.read_parquet(entities_path)
    labels = load_labels(solution["labels"])
    export = pipeline.labelled_export(table, labels.template, labels.slot, model,
                                      kept_roles=labels.role_table)
    return pipeline.write_export(export, out_dir)


@step("record-run", retry=RETRY)
def record_run_step(db_path: str, run_id: str, config: dict[str, Any], assignments_path: str,
                    results: dict[str, Any], keep_runs: int = DEFAULT_KEEP_RUNS) -> str:
    """Keep the run's configuration, assignments and scores in the store's runs tables, and the
    assignments of the ``keep_runs`` newest runs only (``Store.record_run``)."""
    assignments = pd.read_parquet(assignments_path)
    with Store(db_path) as store:
        store.record_run(run_id, config, assignments, results, keep_runs=keep_runs)
    return run_id


@step("export-documents")
def export_documents_step(assignments_path: str, events_path: str, doc_ids: list[str],
                          out_dir: str, name: str, events_name: str) -> dict[str, str]:
    """The rows of ``doc_ids`` from an export, as ``<name>.csv`` / ``.parquet``, and their
    events, from the run's events file (``events_path``), as ``<events_name>.jsonl`` /
    ``.parquet``."""
    wanted = set(doc_ids)
    export = pd.read_parquet(assignments_path)
    frame = export[export["doc_id"].isin(wanted)].reset_index(drop=True)
    paths = pipeline.write_export(frame, out_dir, name)
    events = pd.read_parquet(events_path)
    events = pipeline.write_events(events[events["doc_id"].isin(wanted)].reset_index(drop=True),
                                   out_dir, events_name)
    return {**paths, "events": events["jsonl"], "events_parquet": events["parquet"]}
