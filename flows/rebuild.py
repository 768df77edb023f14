"""Rebuild flow: store again the documents of a project's document journal (``aesi store
rebuild``), their parses taken from the parse cache."""

from __future__ import annotations

import time
from typing import Any

from prefect import flow

from aesi_flows.common import default_task_runner, flow_executor, holds_project_lock
from aesi_lib.run.config import RunConfig
from aesi_lib.run.presets import preset
from aesi_lib.steps.graph import Project, ingest
from aesi_lib.steps.logs import step_logger
from aesi_lib.store.database import read_journal


@flow(name="aesi-rebuild-store", log_prints=True, task_runner=default_task_runner())
@holds_project_lock("aesi store rebuild (flow aesi-rebuild-store)")
def rebuild_store_flow(project_dir: str, journal: str, parse_batch_size: int = 50
                       ) -> dict[str, Any]:
    """Store the documents of ``journal`` (``aesi_lib.store.database.read_journal``) in the
    project's store, which is new or holds part of them.

    The parser configuration is that of the project's last ``aesi run`` (``project.json``; the
    default preset when there is none): documents whose parse under it is in the parse cache
    are not parsed again. Documents already stored unchanged are skipped, so an interrupted
    rebuild resumes.

    Parameters
    ----------
    project_dir : the project folder.
    journal : a document journal file (set aside by the command while it rebuilds).
    parse_batch_size : documents per mapped parse task.

    Returns
    -------
    dict
        ``{"flow", "documents", "ingest", "steps", "seconds"}``.
    """
    started = time.perf_counter()
    project = Project.at(project_dir)
    config = project.read_state().get("config") or preset("default")
    run_config = RunConfig.from_dict(config)
    documents = read_journal(journal)
    step_logger().info("rebuild: %d documents in %s", len(documents), journal)
    steps = flow_executor()
    ingested = ingest(documents, run_config, project, steps, parse_batch_size)
    return {"flow": "rebuild-store", "documents": len(documents), "ingest": ingested,
            "steps": steps.records, "seconds": time.perf_counter() - started}
