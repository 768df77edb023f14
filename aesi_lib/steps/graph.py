"""The step graph of a run: the steps of ``aesi_lib.steps`` composed into ingest, features,
the solve or placement the project's plan asks for, the export and what a person reads, with
the project folder they work in (:class:`Project`) and the summary ``results.json`` holds.

Each function takes the executor of the run's steps (``aesi_lib.steps.executor.Executor``, or
under a Prefect flow run ``aesi_flows.common.PrefectSteps``) and runs every step through it,
so the same graph runs in process, under Prefect and with its spread steps on a Dask cluster.
It decides nothing of its own: what to solve and what to carry is the plan of
``aesi_lib.run.carry_plan``, what a command reads from and leaves in ``project.json`` is
``aesi_lib.run.project_state``. The flows of ``aesi_flows`` compose these functions into the
commands.
"""

from __future__ import annotations

import functools
import json
import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from aesi_lib.corpus.types import Document
from aesi_lib.files import replacing
from aesi_lib.model.carry import MENTION_KEY, known_share
from aesi_lib.model.solution_files import load_summary
from aesi_lib.run.carry_plan import (
    PLACE,
    PLACE_FILES,
    WARM,
    carry_plan,
    runnable_plan,
    solution_files,
    update_plan,
)
from aesi_lib.run.config import RunConfig
from aesi_lib.run.outputs import documents_without_mentions, without_mentions_warning
from aesi_lib.run.pipeline import entity_rules
from aesi_lib.steps.events import events_files, events_step, readable_step
from aesi_lib.steps.executor import Executor
from aesi_lib.steps.export_changes import keep_export_step, label_changes_step
from aesi_lib.steps.features import (
    context_file,
    context_step,
    embed_batch_step,
    entities_file,
    entity_table_step,
    features_file,
    features_step,
    pmi_file,
    pmi_step,
)
from aesi_lib.steps.ingest import (
    corpus_fingerprint_step,
    parse_batch_step,
    plan_ingest_step,
    store_batch_step,
)
from aesi_lib.steps.logs import step_logger
from aesi_lib.steps.parsers import parse_processes_stopped_on_error, release_parse_processes
from aesi_lib.steps.solve import (
    export_step,
    place_step,
    placement_files,
    renumber_step,
    renumbered_file,
    solve_files,
    solve_step,
)

PROJECT_STATE = "project.json"


@dataclass(frozen=True)
class Project:
    """The files of a project folder: DuckDB store, parse cache, context-vector cache, cached
    tables, features and solutions (named by their cache keys), and ``project.json`` (the last
    full run's corpus and configuration, which ``aesi update`` starts from).

    ``caches``, when given, holds the parse and context-vector caches instead of ``root`` (a
    notebook's models share one, ``aesi_lib.inducer.SchemaInducer``)."""

    root: Path
    caches: Path | None = None

    @classmethod
    def at(cls, project_dir: str | Path, caches: str | Path | None = None) -> Project:
        root = Path(project_dir).expanduser().resolve()
        root.mkdir(parents=True, exist_ok=True)
        return cls(root, Path(caches).expanduser().resolve() if caches is not None else None)

    @property
    def db(self) -> str:
        return str(self.root / "aesi.duckdb")

    @property
    def parse_cache(self) -> str:
        return str((self.caches or self.root) / "parse-cache")

    @property
    def vector_cache(self) -> str:
        """The per-document cache of sentence vectors (``aesi_lib.lexicon.mention_context``)."""
        return str((self.caches or self.root) / "context-vectors")

    @property
    def work_dir(self) -> str:
        return str(self.root)

    @property
    def results(self) -> Path:
        """Where the cached steps keep their results (``aesi_lib.steps.executor.ResultStore``),
        whoever runs them."""
        return self.root / "step-results"

    def read_state(self) -> dict[str, Any]:
        path = self.root / PROJECT_STATE
        return json.loads(path.read_text()) if path.exists() else {}

    def write_state(self, state: dict[str, Any]) -> None:
        # Whole or not at all: a full disk must not leave half of the file the next run
        # and update start from.
        with replacing(self.root / PROJECT_STATE) as tmp:
            tmp.write_text(json.dumps(state, indent=1, default=str))


def export_changes_steps(project: Project, steps: Executor, last: dict[str, Any] | None,
                         artifacts: dict[str, Any]) -> dict[str, Any]:
    """``artifacts`` with the run's export kept in the project (``kept_export``, which
    ``aesi_lib.run.project_state.solution_record`` records for the next run) and the labels
    that moved since the export of ``last`` (the project's last solution record), counted on
    the exports themselves (``label_changes``; None for a project's first export, or when
    that export is gone)."""
    kept = steps.run("keep-export", keep_export_step, artifacts["assignments_parquet"],
                     project.work_dir)
    previous = (last or {}).get("export")
    changes = None
    if previous and Path(previous).is_file():
        changes = steps.run("label-changes", label_changes_step, previous,
                            artifacts["assignments_parquet"], kept)
    return {**artifacts, "kept_export": kept, "label_changes": changes}


def batches(items: list[Any], size: int) -> list[list[Any]]:
    """``items`` cut into lists of at most ``size``."""
    if size < 1:
        raise ValueError("batch size must be >= 1")
    return [items[i:i + size] for i in range(0, len(items), size)]


def ingest(documents: list[Document], config: RunConfig, project: Project, steps: Executor,
           batch_size: int = 50) -> dict[str, Any]:
    """Parse the new and changed documents with ``config``'s parser and replace their rows in
    the store, made by ``config``'s entity rules (``aesi_lib.run.pipeline.entity_rules``).

    Parsing is cut into steps of ``batch_size`` documents (``parse_batch_step``): one step a
    batch keeps the orchestration overhead small next to the parse itself, and each document
    inside a batch still goes through the per-document parse cache. The plan says how many
    processes parse (``aesi_lib.parse.backends.parse_processes``: one per usable core for a
    large ingest, in-process for a few documents or ``--parse-processes 1``). The executor
    decides where batches run (``steps.threads``): one thread by default, a Dask cluster with
    ``--dask``; with parse processes, two threads keep two batches in flight, so that the
    processes parse the next batch while the last one's entities are extracted. Batches are
    written to DuckDB from this process as they finish, in order, each in one transaction,
    so a killed run keeps every batch it stored.
    """
    log = step_logger()
    parser_config, rules = config.parser, entity_rules(config)
    plan = steps.run("plan-ingest", plan_ingest_step, steps.whole(documents), parser_config,
                     project.db, project.parse_cache, rules)
    todo: list[Document] = plan["todo"]
    processes: int = plan["parse_processes"]
    batch_config = replace(parser_config, n_process=processes)
    started = time.perf_counter()
    parsed = reused = done = entities = 0
    workers: set[str] = set()
    worker_mib: dict[str, float] = {}
    # Inner to the runner: on an error or a signal the workers stop before the runner waits
    # for the batches in flight.
    threads = 2 if processes >= 2 else 1
    with steps.threads(threads) as submit, parse_processes_stopped_on_error():
        futures: list[Any] = [submit(parse_batch_step, batch, batch_config,
                                     project.parse_cache, rules)
                              for batch in batches(todo, batch_size)]
        n_batches = len(futures)
        for i in range(n_batches):
            result = futures[i].result()
            futures[i] = None           # let the batch's parses go once stored
            workers.add(result["worker"])
            worker_mib.update({str(pid): mib
                               for pid, mib in result.get("parse_worker_mib", {}).items()})
            entities += steps.call(store_batch_step, steps.whole(result), plan["config_id"],
                                   project.db)
            parsed += result["parsed"]
            reused += result["reused"]
            done += len(result["documents"])
            rate = done / max(time.perf_counter() - started, 1e-9)
            log.info("ingest: %d/%d documents stored (%d parsed, %d from the parse cache), "
                     "%.1f documents/s, about %.0f s left", done, len(todo), parsed, reused,
                     rate, (len(todo) - done) / rate)
    release_parse_processes()
    seconds = time.perf_counter() - started
    steps.add("parse+store", "Completed" if todo else "Skipped", seconds, batches=n_batches,
              documents_parsed=parsed)
    return {"documents": len(documents), "new": plan["new"], "changed": plan["changed"],
            "unchanged": plan["unchanged"], "parsed": parsed, "from_parse_cache": reused,
            "entities_written": entities, "seconds": seconds, "workers": sorted(workers),
            "parse_processes": processes if todo else 0,
            "parse_process_peak_mib": worker_mib}


_EMBED_BATCHES = 32
_MIN_EMBED_BATCH = 10


def embed_on_workers(entities: str, doc_ids: list[str], project: Project, config: RunConfig,
                     steps: Executor, tag: str = "") -> None:
    """On a cluster, the encoder's work in about 32 batches of documents (at least 10 a
    batch), one ``embed-batch`` step each (``aesi_lib.steps.features.embed_batch_step``): each fills
    the per-document vector cache, so the ``context-vectors`` step that follows reads every
    document from it and loads no model. Each finished batch is logged with the documents
    done so far. Recorded as the step ``embed-batches``."""
    log = step_logger()
    started = time.perf_counter()
    batch_size = max(_MIN_EMBED_BATCH, math.ceil(len(doc_ids) / _EMBED_BATCHES))
    calls = [(entities, project.db, batch, config.features,
              project.vector_cache, config.vectors_path)
             for batch in batches(sorted(doc_ids), batch_size)]
    results: list[dict[str, Any]] = []
    for result in steps.spread(embed_batch_step, calls):
        results.append(result)
        done = sum(r["documents"] for r in results)
        rate = done / max(time.perf_counter() - started, 1e-9)
        log.info("embed batches: %d/%d done, %d/%d documents (%d embedded now, the others "
                 "from the cache), %.1f documents/s, about %.0f s left", len(results),
                 len(calls), done, len(doc_ids), sum(r["embedded"] for r in results), rate,
                 (len(doc_ids) - done) / rate)
    embedded = sum(r["embedded"] for r in results)
    steps.add(f"embed-batches{tag}", "Completed" if embedded else "Skipped",
              time.perf_counter() - started, batches=len(results), documents_embedded=embedded,
              workers=sorted({r["worker"] for r in results}))


def feature_steps(project: Project, doc_ids: list[str], config: RunConfig, steps: Executor,
                  tag: str = "") -> dict[str, str]:
    """Corpus fingerprint → entity table → PMI → features for the stored documents ``doc_ids``;
    on a cluster (``--dask``) the encoder's batches and the feature build run on its workers.

    Every step is cached on content, so configurations that share feature options share
    these results. ``tag`` suffixes the step names in ``steps``.
    """
    doc_ids = sorted(doc_ids)
    corpus_key = steps.run(f"corpus-fingerprint{tag}", corpus_fingerprint_step, project.db,
                           doc_ids)
    entities = steps.run(f"entity-table{tag}", entity_table_step, project.db, doc_ids,
                         entities_file(project.work_dir, corpus_key, doc_ids))
    pmi = steps.run(f"head-pmi{tag}", pmi_step, project.db, doc_ids,
                    pmi_file(project.work_dir, corpus_key, doc_ids))
    context = None
    if config.features.context:
        if steps.spreads:
            embed_on_workers(entities, doc_ids, project, config, steps, tag)
        context = steps.run(f"context-vectors{tag}", context_step, entities, project.db,
                            config.features, project.vector_cache,
                            context_file(entities, project.work_dir, config.features,
                                         config.vectors_path),
                            config.vectors_path)
    out_path = features_file(entities, pmi, config, project.work_dir, context)
    arguments = (features_step, entities, pmi, config, out_path, context)
    # On a cluster the feature build runs on a worker (the step is declared spread): the
    # run's process then holds neither the word vectors nor the features while they are built.
    features = steps.run(f"build-features{tag}", *arguments)
    if not Path(features["features"]).is_file():
        step_logger().warning(
            "the features a cluster worker built (%s) are not on this machine's file "
            "system: building them here too (put the project folder on a shared file "
            "system, docs/operations.md)", features["features"])
        features = steps.run_here(f"build-features{tag}", *arguments)
    return {"project_dir": str(project.root), "parse_cache": project.parse_cache,
            "entities": entities, "pmi": pmi, "context": context,
            "features": features["features"]}


def _known_share(entities_path: str, last: dict[str, Any]) -> float:
    """The share of the mentions of ``entities_path`` that the solution ``last`` had
    (``aesi_lib.model.carry.known_share``); 0 when its entity table is gone."""
    previous = last.get("entities")
    if not previous or not Path(previous).is_file():
        return 0.0
    columns = list(MENTION_KEY)
    return known_share(pd.read_parquet(entities_path, columns=columns),
                       pd.read_parquet(previous, columns=columns))


def model_steps(project: Project, doc_ids: list[str], config: RunConfig, out_dir: str,
                steps: Executor, last: dict[str, Any] | None = None, update: bool = False,
                documents_given: bool = False, resolve: bool = False) -> dict[str, Any]:
    """Features (:func:`feature_steps`) → place or solve → ids → export for the stored
    documents ``doc_ids``, carrying ``last`` (the project's last solution record,
    ``project.json``'s ``last_solution``; None in a new project or with ``--fresh``) as the
    library's plan says: ``aesi_lib.run.carry_plan.update_plan`` for an update (``update``,
    with ``documents_given`` and ``resolve``), ``carry_plan`` for a full run (with the
    share of the run's mentions that ``last`` had), either as far as ``last``'s files remain
    (``runnable_plan``). The plan places the new mentions into ``last``'s schema (the
    ``place`` step), or solves warm-started from its labels and renumbers the result to its
    ids (``keep-ids``), or solves from the seed and numbers its clusters after ``last``.

    Returns the artifact paths (entity table, PMI, features, labels, solve history, export),
    ``warm`` (the labels came from the previous solution: warm-started or placed) and
    ``ids_kept`` (None when no ids were carried).
    """
    artifacts = feature_steps(project, doc_ids, config, steps)
    if update:
        plan = update_plan(last, config.digest(), documents_given, resolve)
    else:
        plan = carry_plan(last, config.digest(), artifacts["features"], resolve,
                          functools.partial(_known_share, artifacts["entities"], last or {}))
    plan = runnable_plan(plan, lambda path: Path(path).is_file())
    if plan.action == PLACE:
        schema = solution_files(plan.previous, PLACE_FILES)
        placed = steps.run("place", place_step, artifacts["entities"], schema, config,
                           project.db, project.vector_cache,
                           placement_files(artifacts["entities"], artifacts["features"],
                                           schema, project.work_dir))
        return export_steps(artifacts, placed, config, out_dir, steps, placed["carried"],
                            warm=True, work_dir=project.work_dir)
    previous = solution_files(plan.previous) if plan.action == WARM else None
    solution = steps.run("solve", solve_step, artifacts["features"], config.model,
                         solve_files(artifacts["features"], config.model, project.work_dir,
                                     previous, artifacts["entities"]),
                         artifacts["entities"], previous)
    ids_kept = None
    ids_of = previous or solution_files(plan.ids_of)
    if ids_of:
        renumbered = steps.run("keep-ids", renumber_step, solution["labels"],
                               artifacts["entities"], ids_of, config.model,
                               renumbered_file(solution["labels"], ids_of,
                                               artifacts["entities"], project.work_dir))
        solution = {**solution, "labels": renumbered["labels"]}
        ids_kept = renumbered["carried"]
    return export_steps(artifacts, solution, config, out_dir, steps, ids_kept,
                        warm=previous is not None, work_dir=project.work_dir)


def export_steps(artifacts: dict[str, Any], solution: dict[str, str], config: RunConfig,
                 out_dir: str, steps: Executor, ids_kept: dict[str, int] | None, warm: bool,
                 work_dir: str) -> dict[str, Any]:
    """The export of a solution's labels (or a placement's) under the run's configuration,
    its events and what a person reads (:func:`readable_steps`), and the artifacts
    :func:`model_steps` returns."""
    export = steps.run("export", export_step, artifacts["entities"], solution, config.model,
                       out_dir)
    export = {**export, **readable_steps(export["parquet"], config, out_dir, work_dir, steps)}
    return {**artifacts, "labels": solution["labels"], "info": solution["info"],
            "event_reading": export["event_reading"],
            "assignments_csv": export["csv"], "assignments_parquet": export["parquet"],
            "schema": export["schema"], "schema_md": export["schema_md"],
            "events": export["events"], "events_parquet": export["events_parquet"],
            "ids_kept": ids_kept, "warm": warm}


def readable_steps(assignments_path: str, config: RunConfig, out_dir: str, work_dir: str,
                   steps: Executor, tag: str = "") -> dict[str, str]:
    """The events of an export (cached on its bytes: ``events``) and the files a person reads
    beside it (``readable``): ``schema``, ``schema_md``, ``events``, ``events_parquet``, and
    ``event_reading``, the run's reading kept by the events step (``aesi_lib.run.reading``),
    which ``aesi extract`` reads."""
    events = steps.run(f"events{tag}", events_step, assignments_path, config.wordnet_path,
                       events_files(assignments_path, config.wordnet_path, work_dir))
    readable = steps.run(f"readable{tag}", readable_step, assignments_path, events, out_dir)
    return {**readable, "event_reading": events["reading"]}


def warn_of_documents_without_mentions(doc_ids: list[str], mention_doc_ids: Any) -> list[str]:
    """The documents of ``doc_ids`` that gave no entity mention (no row in ``mention_doc_ids``,
    the ``doc_id`` column of an entity table, or the path of one), with one warning line in
    the flow's log when there are any; what ``results.json`` lists as
    ``documents_without_mentions``."""
    if isinstance(mention_doc_ids, str):
        mention_doc_ids = pd.read_parquet(mention_doc_ids, columns=["doc_id"])["doc_id"]
    missing = documents_without_mentions(doc_ids, mention_doc_ids)
    if missing:
        step_logger().warning(without_mentions_warning(missing, len(doc_ids)))
    return missing


def solve_summary(info_path: str) -> dict[str, Any]:
    """The parts of a solve's JSON summary that go into ``results.json``."""
    info = load_summary(info_path)
    return {k: info[k] for k in ("timings", "converged", "n_iter", "history") if k in info}


_TIMING_GROUPS = {
    "ingest": ("load-corpus", "load-documents", "plan-ingest", "parse+store"),
    "features": ("stored-documents", "corpus-fingerprint", "entity-table", "head-pmi",
                 "context-vectors", "build-features"),
    "solve": ("solve", "keep-ids", "place"),
    "export_evaluate": ("export", "events", "readable", "keep-export", "label-changes",
                        "evaluate", "template-filling", "export-new-documents", "fill-slots"),
}


def grouped_timings(steps: Executor, total: float) -> dict[str, float]:
    """Seconds per stage (ingest, features, solve, export_evaluate) and in total."""
    timings = {group: sum(steps.records[s]["seconds"] for s in names if s in steps.records)
               for group, names in _TIMING_GROUPS.items()}
    timings["total"] = total
    return timings


def run_summary(ingested: dict[str, Any], config: RunConfig, steps: Executor, started: float,
                artifacts: dict[str, str], scores: dict[str, Any]) -> dict[str, Any]:
    """The part of ``results.json`` that every flow which solves shares."""
    return {
        "documents_parsed": ingested["parsed"],
        "documents_from_parse_cache": ingested["from_parse_cache"],
        "documents_unchanged": ingested["unchanged"],
        "ingest": ingested,
        "config": config.to_dict(),
        "seed": config.model.seed,
        "timings": grouped_timings(steps, time.perf_counter() - started),
        "steps": steps.records,
        "steps_run": steps.ran(),
        "flow_run_id": steps.run_id,
        # The ids kept from the last solution (keep-ids), also under the solve's own
        # ``carried`` when the solve was warm-started from it.
        "solve": {**solve_summary(artifacts["info"]),
                  "carried": artifacts["ids_kept"] if artifacts["warm"] else None},
        "ids": artifacts["ids_kept"],
        # The labels that moved since the last export, as exported (export_changes_steps).
        "labels": artifacts.get("label_changes"),
        "scores": scores,
        "artifacts": {k: v for k, v in artifacts.items()
                      if k not in ("ids_kept", "warm", "label_changes")},
        "export": {"csv": artifacts["assignments_csv"],
                   "parquet": artifacts["assignments_parquet"]},
    }


def write_results(out_dir: str, results: dict[str, Any]) -> str:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    with replacing(path) as tmp:
        tmp.write_text(json.dumps(results, indent=1, default=str))
    return str(path)
