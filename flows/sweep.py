"""Sweep flow: several named configurations × several seeds on one corpus, each scored, rows
appended to a results table (``aesi_lib.run.experiments``)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pandas as pd
from prefect import flow

from aesi_flows.common import default_task_runner, flow_executor, holds_project_lock
from aesi_lib.errors import AesiError
from aesi_lib.fingerprint import source_commit
from aesi_lib.model.solution_files import load_summary
from aesi_lib.run.config import config_digest
from aesi_lib.run.experiments import (
    append_results,
    config_json,
    extraction_groups,
    named_configurations,
    seed_run_dir,
)
from aesi_lib.steps.evaluate import score_row_step
from aesi_lib.steps.graph import Project, feature_steps, ingest, readable_steps
from aesi_lib.steps.ingest import load_corpus_step
from aesi_lib.steps.logs import step_logger
from aesi_lib.steps.solve import export_step, solve_files, solve_step


@flow(name="aesi-sweep", log_prints=True, task_runner=default_task_runner())
@holds_project_lock("aesi sweep (flow aesi-sweep)")
def sweep_flow(spec: dict[str, Any], seeds: list[int], out_dir: str = "sweep",
               project_dir: str = ".aesi", muc4_dir: str | None = None,
               docs_path: str | None = None, demo: bool = False,
               parse_batch_size: int = 50) -> dict[str, Any]:
    """Run every configuration of ``spec`` with every seed and score it.

    ``spec`` is a sweep file's content (``aesi_lib.run.experiments.named_configurations``). Each
    configuration gets its features through the cached feature steps (configurations with the
    same parser and feature options share them), then for each seed a cached solve, an export
    under ``out_dir/runs/<configuration>/seed-<seed>/`` and a score row
    (``aesi_lib.run.experiments.score_row``). The rows (configuration, seed, the configuration as
    JSON, scores, timings, solver diagnostics) are appended to ``out_dir/results.parquet`` and
    summarised in ``out_dir/results.md``.
    """
    started = time.perf_counter()
    log = step_logger()
    configurations = named_configurations(spec)
    if not seeds:
        raise AesiError("a sweep needs at least one seed")
    project = Project.at(project_dir)
    steps = flow_executor(project.results)
    corpus = steps.run("load-corpus", load_corpus_step, muc4_dir, docs_path, demo)
    if not corpus.eval_keys:
        raise AesiError(f"corpus {corpus.name!r} has no answer keys: a sweep scores every run, "
                        "use MUC-4 (--muc4-dir) or the demo corpus (--demo)")
    doc_ids = [d.doc_id for d in corpus.documents]

    rows: list[dict[str, Any]] = []
    total = len(configurations) * len(seeds)
    for names in extraction_groups(configurations):
        ingest(corpus.documents, configurations[names[0]], project, steps, parse_batch_size)
        for name in names:
            config = configurations[name]
            t = time.perf_counter()
            artifacts = feature_steps(project, doc_ids, config, steps, tag=f"[{name}]")
            features_seconds = time.perf_counter() - t
            for seed in seeds:
                tag = f"[{name}/seed {seed}]"
                seeded = dataclasses.replace(config, model=dataclasses.replace(config.model,
                                                                               seed=seed))
                t = time.perf_counter()
                solution = steps.run(f"solve{tag}", solve_step, artifacts["features"],
                                     seeded.model, solve_files(artifacts["features"],
                                                               seeded.model, project.work_dir))
                solve_seconds = time.perf_counter() - t
                run_dir = seed_run_dir(out_dir, name, seed)
                export = steps.run(f"export{tag}", export_step, artifacts["entities"],
                                   solution, seeded.model, str(run_dir))
                readable_steps(export["parquet"], seeded, str(run_dir), project.work_dir,
                               steps, tag)
                scores = steps.run(f"score{tag}", score_row_step, export["parquet"],
                                   steps.whole(corpus))
                info = load_summary(solution["info"])
                rows.append({
                    "configuration": name, "seed": seed, "config": config_json(seeded),
                    "config_digest": config_digest(seeded.to_dict()), **scores,
                    "features_seconds": features_seconds, "solve_seconds": solve_seconds,
                    "solve_seconds_uncached": info.get("timings", {}).get("total"),
                    "solve_state": steps.records[f"solve{tag}"]["state"],
                    "converged": bool(info.get("converged")), "n_iter": info.get("n_iter"),
                    "corpus": corpus.name, "export": export["parquet"],
                    "commit": source_commit(),
                })
                main = scores.get("tst_test_lenient_f1")
                log.info("sweep: %d/%d done: %s seed %d: test-mapped lenient F1 %s",
                         len(rows), total, name, seed,
                         f"{main:.3f}" if main is not None else "n/a")

    paths = append_results(pd.DataFrame(rows), out_dir)
    return {"flow": "sweep", "corpus": corpus.name, "configurations": list(configurations),
            "seeds": list(seeds), "rows": rows, "results": paths, "steps": steps.records,
            "flow_run_id": steps.run_id,
            "seconds": time.perf_counter() - started}


def load_sweep_spec(path: str | Path) -> dict[str, Any]:
    """Read a sweep file and check its configurations and the resources they name (a
    typo raises ``InputError``; a missing model folder, vectors file or encoder, the error of
    ``aesi_lib.run.resources.check_resources``), before any configuration runs."""
    from aesi_lib.errors import InputError
    from aesi_lib.run.config import read_json_object
    from aesi_lib.run.resources import check_resources

    source = Path(path)
    spec = read_json_object(source, "sweep file",
                            '{"base": "default" or {...}, "configurations": {...}}')
    try:
        configurations = named_configurations(spec)
    except (TypeError, ValueError) as exc:
        raise InputError(source, f"bad configuration: {exc}") from exc
    for config in configurations.values():
        check_resources(config.to_dict())
    return spec

