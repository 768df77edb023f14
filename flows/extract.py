"""Slot filling with an existing schema: parse new documents and assign their entity mentions to
the templates and slots of a finished run, without solving again (``aesi_lib.model.extract``)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pandas as pd
from prefect import flow

from aesi_flows.common import default_task_runner, flow_executor, logs_to_flow_run
from aesi_lib.corpus.plain import DEFAULT_MAX_DOC_CHARS
from aesi_lib.entities.entity_table import unstored_entity_table
from aesi_lib.errors import InputError
from aesi_lib.run.config import RunConfig
from aesi_lib.run.outputs import event_summary
from aesi_lib.run.pipeline import entity_rules
from aesi_lib.steps.extract import fill_slots_step
from aesi_lib.steps.graph import Project, batches, warn_of_documents_without_mentions, write_results
from aesi_lib.steps.ingest import load_corpus_step, parse_batch_step
from aesi_lib.steps.logs import step_logger
from aesi_lib.steps.parsers import parse_processes_stopped_on_error
from aesi_lib.store.database import parse_frames


def read_run(run_dir: str | Path) -> dict[str, Any]:
    """The ``results.json`` of a finished run, checked for what slot filling needs.

    Raises
    ------
    InputError
        When the folder holds no ``results.json`` or its feature/label files are gone.
    """
    path = Path(run_dir) / "results.json"
    if not path.is_file():
        raise InputError(path, "no results.json here: give --run the --out folder of a "
                         "finished `aesi run` or `aesi update`")
    try:
        results = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON ({exc})") from exc
    artifacts = _found_in_run(results.get("artifacts") or {}, Path(run_dir))
    results["artifacts"] = artifacts
    for name in ("features", "labels"):
        if not artifacts.get(name):
            raise InputError(path, f"names no {name} file: rerun `aesi run` with this version")
        if not Path(artifacts[name]).is_file():
            raise InputError(artifacts[name], f"the run's {name} file is missing; rerun "
                             "`aesi run` to rebuild it")
    return results


def _found_in_run(artifacts: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """``artifacts`` with each relative path that does not exist from here (a run made with a
    relative ``--out`` in another folder) replaced by the file of that name in ``run_dir``,
    where the run wrote its export, when it is there."""
    found = {}
    for name, value in artifacts.items():
        if isinstance(value, str) and value and not Path(value).is_absolute() \
                and not Path(value).exists() and (run_dir / Path(value).name).is_file():
            value = str(run_dir / Path(value).name)
        found[name] = value
    return found


@flow(name="aesi-extract", log_prints=True, task_runner=default_task_runner())
@logs_to_flow_run
def extract_flow(docs_path: str, run_dir: str = "out", out_dir: str | None = None,
                 split: str = "user", parse_batch_size: int = 50,
                 encoding: str | None = None, skip_bad: bool = False,
                 max_doc_chars: int | None = DEFAULT_MAX_DOC_CHARS,
                 keep_non_english: bool = False, project_dir: str | None = None
                 ) -> dict[str, Any]:
    """Fill the slots of the documents in ``docs_path`` with the schema of ``run_dir``.

    The documents are parsed (through the run's parse cache; nothing is written to the store)
    and every entity mention gets the template and slot whose members it is most similar to.
    Writes ``assignments.csv`` / ``.parquet`` (with ``template_score`` and ``slot_score``) and
    ``results.json`` to ``out_dir`` (default ``<run_dir>/extracted``). The reading options
    are ``aesi_lib.steps.ingest.load_corpus_step``'s; ``results.json`` lists the documents
    left out as not English under ``left_out``. ``project_dir`` names the project folder
    whose parse and vector caches it uses (None: the run's own).
    """
    started = time.perf_counter()
    log = step_logger()
    run = read_run(run_dir)
    out_dir = out_dir or str(Path(run_dir) / "extracted")
    config = RunConfig.from_dict(run["config"])
    artifacts = run["artifacts"]
    if project_dir is not None:
        project = Project.at(project_dir)
        artifacts = {**artifacts, "project_dir": str(project.root),
                     "parse_cache": project.parse_cache}
    steps = flow_executor()

    corpus = steps.run("load-documents", load_corpus_step, None, docs_path, False, split,
                       encoding=encoding, skip_bad=skip_bad, max_doc_chars=max_doc_chars,
                       keep_non_english=keep_non_english)
    t = time.perf_counter()
    frames, parses, parsed, reused = [], [], 0, 0
    rules = entity_rules(config)
    with steps.threads(1) as submit, parse_processes_stopped_on_error():
        futures = [submit(parse_batch_step, batch, config.parser, artifacts["parse_cache"],
                          rules)
                   for batch in batches(corpus.documents, parse_batch_size)]
        for i in range(len(futures)):
            result = futures[i].result()
            futures[i] = None
            frames.append(result["entities"])
            parses.extend(result["parses"])
            parsed += result["parsed"]
            reused += result["reused"]
            log.info("extract: %d/%d documents parsed (%d from the parse cache)",
                     parsed + reused, len(corpus.documents), reused)
    steps.add("parse", "Completed", time.perf_counter() - t, documents_parsed=parsed)
    entities = unstored_entity_table(frames)
    given = [d.doc_id for d in corpus.documents]
    without_mentions = warn_of_documents_without_mentions(given, entities["doc_id"])
    sentences, _ = parse_frames(parses)
    export = steps.run("fill-slots", fill_slots_step, steps.whole(entities), artifacts, config,
                       out_dir, steps.whole(sentences))

    results = {
        "flow": "extract",
        "run": str(Path(run_dir).resolve()),
        "documents": len(given),
        "documents_without_mentions": without_mentions,
        "left_out": corpus.left_out,
        "documents_parsed": parsed,
        "documents_from_parse_cache": reused,
        "mentions": len(entities),
        "config": run["config"],
        "steps": steps.records,
        "flow_run_id": steps.run_id,
        "seconds": time.perf_counter() - started,
        "export": export,
        "summary": event_summary(pd.read_parquet(export["events_parquet"]), given),
    }
    write_results(out_dir, results)
    return results
