"""Incremental flow: add new or changed documents to a project, refresh PMI and the solve, and
fill the slots of the new documents."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd
from prefect import flow

from aesi_flows.common import default_task_runner, flow_executor, holds_project_lock
from aesi_lib.corpus.plain import DEFAULT_MAX_DOC_CHARS, move_to_done
from aesi_lib.run.config import RunConfig
from aesi_lib.run.outputs import event_summary
from aesi_lib.run.project_state import after_update, solution_record, update_configuration
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
from aesi_lib.steps.logs import step_logger
from aesi_lib.steps.solve import export_documents_step


def _nothing_to_read(docs_path: str) -> bool:
    """True when ``docs_path`` is missing, or a folder without ``.txt`` files."""
    path = Path(docs_path)
    if not path.exists():
        return True
    return path.is_dir() and not any(p.suffix.lower() == ".txt" for p in path.iterdir())


@flow(name="aesi-update", log_prints=True, task_runner=default_task_runner())
@holds_project_lock("aesi update (flow aesi-update)")
def update_flow(docs_path: str | None, project_dir: str = ".aesi", out_dir: str = "out",
                config: dict[str, Any] | None = None, split: str = "user",
                parse_batch_size: int = 50, evaluate: bool = False,
                allow_empty: bool = False, encoding: str | None = None,
                skip_bad: bool = False, max_doc_chars: int | None = DEFAULT_MAX_DOC_CHARS,
                keep_non_english: bool = False,
                config_path: str | None = None, consume: bool = False,
                preset: str | None = None, resolve: bool = False) -> dict[str, Any]:
    """Add the documents of ``docs_path`` (a folder of .txt files or a JSONL file) to the
    project and refresh the schema.

    Only new documents and documents whose text changed are parsed (a changed document's old
    rows are replaced in one transaction); PMI and features are then refreshed over every
    stored document (cached steps whose inputs did not change are reused). The schema is
    kept: the mentions the last solution had keep their template and slot, and the new ones
    are placed into it by the extraction rule (the ``place`` step; the plan is
    ``aesi_lib.run.carry_plan.update_plan``), unless ``resolve`` asks to solve again, or the
    last solution was of another configuration (``config``, ``preset`` or ``config_path``
    changed it), or ``docs_path`` is None: then the solve runs, warm-started from the last
    solution. Writes the full export with its schema and events, ``new_documents.csv`` /
    ``.parquet`` and ``new_events.jsonl`` / ``.parquet`` (the rows and the events of the
    documents just given) and ``results.json`` to ``out_dir``.

    Parameters
    ----------
    docs_path : the new documents; None re-solves the stored documents as they are (after
        ``aesi delete``, say), carrying the last solution forward.
    project_dir : the project folder of an earlier ``aesi run`` (or a new one).
    out_dir : export folder.
    config : RunConfig overrides, merged into the configuration of the project's last full
        run (``project.json``); the defaults when there is none.
    split : split name stored with the new documents.
    parse_batch_size : documents per mapped parse task.
    encoding, skip_bad, max_doc_chars, keep_non_english : how the files of ``docs_path`` are
        read (their text encoding, None: each file's own, detected; leave out unreadable or
        too long files or lines with a warning instead of stopping; the most characters a
        document may have, None or 0: no limit; keep the documents that are not English,
        which are otherwise left out with a warning and listed under ``left_out``).
    evaluate : also score the refreshed export with the keys of the project's corpus (MUC-4 or
        demo, from ``project.json``), when it has any.
    allow_empty : a missing ``docs_path`` or a folder without documents means "nothing new"
        (the flow returns without refreshing) instead of an error; for scheduled runs that
        watch an inbox folder.
    preset : a preset (``aesi_lib.run.presets``, e.g. ``default``) run instead of the project's
        last run's configuration, with ``config`` and ``config_path`` merged over it, so that a
        scheduled update runs with its own settings whatever ad-hoc run came before.
    config_path : a configuration file (JSON, a ``RunConfig`` or part of one) merged over
        the preset (``default`` when ``preset`` is None), also instead of the project's last
        run's configuration.
    resolve : solve again over every stored document, warm-started from the last solution
        and renumbered to its ids, instead of placing the new mentions into its schema.
    consume : once the update is done, move what was read from ``docs_path`` (its ``.txt``
        files, or the file itself) into ``done/<time>/`` beside them, so that the next
        scheduled run finds an empty inbox and solves nothing (``results.json``
        ``moved_to``); files left out as bad (``skip_bad``) stay, files left out as not
        English are moved too (they were read, and no fix would make them English).
        ``aesi update --move-done``.
    """
    started = time.perf_counter()
    log = step_logger()
    if docs_path is not None and allow_empty and _nothing_to_read(docs_path):
        log.info("update: no documents in %s: nothing to do", docs_path)
        return {"flow": "update", "documents_given": 0, "documents_parsed": 0,
                "skipped": f"no documents in {docs_path}"}
    project = Project.at(project_dir)
    state = project.read_state()
    run_config = RunConfig.from_dict(update_configuration(state, config, config_path, preset))
    steps = flow_executor(project.results)

    documents = []
    left_out: list[dict[str, Any]] = []
    if docs_path is not None:
        given_corpus = steps.run("load-documents", load_corpus_step, None, docs_path, False,
                                 split, encoding=encoding, skip_bad=skip_bad,
                                 max_doc_chars=max_doc_chars,
                                 keep_non_english=keep_non_english)
        documents, left_out = given_corpus.documents, given_corpus.left_out
    ingested = ingest(documents, run_config, project, steps, parse_batch_size)
    log.info("update: %d documents given: %d new, %d changed, %d unchanged; %d parsed",
             ingested["documents"], ingested["new"], ingested["changed"],
             ingested["unchanged"], ingested["parsed"])
    doc_ids = steps.run("stored-documents", stored_documents_step, project.db)
    artifacts = model_steps(project, doc_ids, run_config, out_dir, steps,
                            last=state.get("last_solution"), update=True,
                            documents_given=docs_path is not None, resolve=resolve)
    artifacts = export_changes_steps(project, steps, state.get("last_solution"), artifacts)
    given = [d.doc_id for d in documents]
    without_mentions = warn_of_documents_without_mentions(given, artifacts["entities"])
    new_export = steps.run("export-new-documents", export_documents_step,
                           artifacts["assignments_parquet"], artifacts["events_parquet"],
                           given, out_dir, "new_documents", "new_events")

    scores: dict[str, Any] = {}
    filling: dict[str, Any] = {}
    base = state.get("corpus")
    if evaluate and base:
        corpus = steps.run("load-corpus", load_corpus_step, base.get("muc4_dir"),
                           base.get("docs_path"), bool(base.get("demo")))
        scores = steps.run("evaluate", evaluate_step, artifacts["assignments_parquet"],
                           steps.whole(corpus))
        filling = steps.run("template-filling", template_filling_step,
                            artifacts["assignments_parquet"], artifacts["events_parquet"],
                            steps.whole(corpus))

    project.write_state(after_update(state, docs_path, given, ingested["parsed"],
                                     artifacts["ids_kept"],
                                     solution_record(artifacts, run_config)))
    results = {
        "flow": "update",
        "documents": len(doc_ids),
        "documents_given": len(given),
        "documents_without_mentions": without_mentions,
        "left_out": left_out,
        "evaluated_on": "project corpus keys" if scores else "",
        **run_summary(ingested, run_config, steps, started, artifacts, scores),
        "template_filling": filling,
        "new_documents": {"export": new_export,
                          "summary": event_summary(
                              pd.read_parquet(artifacts["events_parquet"]), given)},
    }
    write_results(out_dir, results)
    if consume and docs_path is not None:
        moved = move_to_done(docs_path, read=[d.source for d in documents]
                             + [str(d["source"]) for d in left_out])
        log.info("update: %d processed file(s) of %s moved to %s", len(moved), docs_path,
                 moved[0].parent if moved else "-")
        results["moved_to"] = {"folder": str(moved[0].parent) if moved else None,
                               "files": [str(p) for p in moved]}
        write_results(out_dir, results)
    return results
