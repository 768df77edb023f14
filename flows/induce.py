"""The main flow: corpus → ingest (parse only what changed) → DuckDB → entity table and PMI (SQL)
→ features → solve → export → evaluation → ``results.json``."""

from __future__ import annotations

import time
import uuid
from typing import Any

from prefect import flow

from aesi_flows.common import default_task_runner, flow_executor, holds_project_lock
from aesi_lib.corpus.plain import DEFAULT_MAX_DOC_CHARS
from aesi_lib.run.config import RunConfig
from aesi_lib.run.project_state import (
    after_run,
    corpus_record,
    recorded_reading,
    run_configuration,
    run_documents,
    solution_record,
)
from aesi_lib.steps.evaluate import evaluate_step, template_filling_step
from aesi_lib.steps.graph import (
    Project,
    export_changes_steps,
    ingest,
    model_steps,
    run_summary,
    warn_of_documents_without_mentions,
    write_results,
)
from aesi_lib.steps.ingest import load_corpus_step, stored_documents_step
from aesi_lib.steps.solve import record_run_step
from aesi_lib.store.database import DEFAULT_KEEP_RUNS


@flow(name="aesi-induce", log_prints=True, task_runner=default_task_runner())
@holds_project_lock("aesi run (flow aesi-induce)")
def induce_flow(project_dir: str = ".aesi", out_dir: str = "out", muc4_dir: str | None = None,
                docs_path: str | None = None, demo: bool = False,
                config: dict[str, Any] | None = None, parse_batch_size: int = 50,
                encoding: str | None = None, skip_bad: bool = False,
                max_doc_chars: int | None = DEFAULT_MAX_DOC_CHARS,
                keep_non_english: bool = False,
                config_path: str | None = None, fresh: bool = False,
                keep_runs: int = DEFAULT_KEEP_RUNS, preset: str | None = None,
                project_corpus: bool = False, resolve: bool = False) -> dict[str, Any]:
    """Induce schemas for a corpus and write the export and ``results.json`` to ``out_dir``.

    Parameters
    ----------
    project_dir : folder of the DuckDB store, the parse cache and cached tables, features and
        solutions.
    out_dir : where ``assignments.csv`` / ``.parquet`` and ``results.json`` go.
    muc4_dir, docs_path : the corpus (``aesi_lib.corpus.sources.load_corpus``: the user's
        documents, else MUC-4, else the embedded demo).
    demo : use the embedded demo corpus whatever else is found.
    project_corpus : without ``muc4_dir``, ``docs_path`` or ``demo``, read the corpus the
        project's last run recorded (``aesi_lib.corpus.sources.recorded_corpus``: its folder
        and reading options), and stop before any work when it recorded none; how the nightly
        deployment runs the user's own corpus (``prefect.yaml``).
    config : a ``RunConfig`` as a dict; None means the preset ``preset``.
    preset : the preset (``aesi_lib.run.presets``) a run without ``config`` starts from;
        None: ``default``, the best configuration found on DEV/TST1/TST2. How a deployment
        names its configuration (``prefect.yaml``).
    config_path : a ``--config`` file (JSON) merged over ``config`` (or the preset).
    fresh : solve from scratch with new ids. By default a full run carries the project's
        last solution (run or update; ``aesi_lib.run.carry_plan``): under the same
        configuration it keeps its schema as an update does (the nightly run after hourly
        updates: its mentions keep their labels, the others are placed into it), under another
        one (another seed, other feature options) its partition is the seed's own, as in a
        fresh project, and only its cluster numbers follow the last solution.
    resolve : under the same configuration, solve again warm-started from the last solution
        (ids carried) instead of keeping its schema.

    The documents are the corpus and those that ``aesi update`` added to the project and that
    are still stored (a nightly full run exports the whole project).
    parse_batch_size : documents per mapped parse task.
    encoding, skip_bad, max_doc_chars, keep_non_english : how the files of ``docs_path`` are
        read (their text encoding, None: each file's own, detected; leave out unreadable or
        too long files or lines with a warning instead of stopping; the most characters a
        document may have, None or 0: no limit; keep the documents that are not English,
        which are otherwise left out with a warning and listed under ``left_out``).
    keep_runs : the run is recorded in the store (``record-run``) and the assignment rows of
        the ``keep_runs`` newest runs stay there (0 or more; older runs keep their records).

    Returns
    -------
    dict
        What ``results.json`` holds: counts, per-step states and seconds, scores, paths.
    """
    started = time.perf_counter()
    run_config = RunConfig.from_dict(run_configuration(config, config_path, preset))
    project = Project.at(project_dir)
    steps = flow_executor(project.results)
    reading = {"encoding": encoding, "skip_bad": skip_bad, "max_doc_chars": max_doc_chars,
               "keep_non_english": keep_non_english}
    if project_corpus and muc4_dir is None and docs_path is None and not demo:
        reading = recorded_reading(project.read_state(), project_dir, reading)
        muc4_dir, docs_path, demo = (reading.pop("muc4_dir"), reading.pop("docs_path"),
                                     reading.pop("demo"))

    corpus = steps.run("load-corpus", load_corpus_step, muc4_dir, docs_path, demo, **reading)
    ingested = ingest(corpus.documents, run_config, project, steps, parse_batch_size)
    state = project.read_state()
    doc_ids, added = run_documents(
        [d.doc_id for d in corpus.documents], state,
        steps.run("stored-documents", stored_documents_step, project.db))
    artifacts = model_steps(project, doc_ids, run_config, out_dir, steps,
                            last=None if fresh else state.get("last_solution"),
                            resolve=resolve)
    artifacts = export_changes_steps(project, steps, state.get("last_solution"), artifacts)
    scores = steps.run("evaluate", evaluate_step, artifacts["assignments_parquet"],
                       steps.whole(corpus))
    filling = steps.run("template-filling", template_filling_step,
                        artifacts["assignments_parquet"], artifacts["events_parquet"],
                        steps.whole(corpus))
    without_mentions = warn_of_documents_without_mentions(doc_ids, artifacts["entities"])

    found = corpus.choice.path if corpus.choice and corpus.name == "muc4" else None
    corpus_spec = corpus_record(muc4_dir, docs_path, demo, reading, found)
    project.write_state(after_run(state, corpus_spec, run_config, out_dir,
                                  solution_record(artifacts, run_config)))
    results = {
        "flow": "induce",
        "corpus": corpus.name,
        "corpus_origin": corpus.origin,
        "corpus_spec": corpus_spec,
        "evaluated_on": corpus.eval_label,
        "documents": len(doc_ids),
        "documents_added_by_updates": len(added),
        "documents_without_mentions": without_mentions,
        "left_out": corpus.left_out,
        **run_summary(ingested, run_config, steps, started, artifacts, scores),
        "template_filling": filling,
    }
    run_id = results["flow_run_id"] or f"local-{uuid.uuid4()}"
    steps.run("record-run", record_run_step, project.db, run_id, run_config.to_dict(),
              artifacts["assignments_parquet"],
              {"scores": scores, "corpus": corpus.name, "out_dir": out_dir},
              keep_runs=keep_runs)
    results["steps"], results["steps_run"] = steps.records, steps.ran()
    write_results(out_dir, results)
    return results
