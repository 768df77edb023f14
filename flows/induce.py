"""The main flow: corpus → parse (only what changed) → DuckDB → features → solve → export →
evaluation → results.json."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from prefect import flow, unmapped

from aesi_lib.pipeline import RunConfig
from tasks.steps import (
    corpus_fingerprint_task,
    evaluate_task,
    export_task,
    features_task,
    load_corpus_task,
    parse_batch_task,
    plan_ingest_task,
    solve_task,
    store_batch_task,
)


def _batches(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


@flow(name="aesi-induce", log_prints=True)
def induce_flow(project_dir: str = ".aesi", out_dir: str = "out", muc4_dir: str | None = None,
                docs_path: str | None = None, config: dict[str, Any] | None = None,
                parse_batch_size: int = 50) -> dict[str, Any]:
    """Induce schemas for a corpus and write the export and ``results.json`` to ``out_dir``.

    Parameters
    ----------
    project_dir : folder of the DuckDB store, the parse cache and cached features/solutions.
    out_dir : where ``assignments.csv``/``.parquet`` and ``results.json`` go.
    muc4_dir, docs_path : the corpus (``aesi_lib.corpus.sources.load_corpus``).
    config : a ``RunConfig`` as a dict (defaults when None).
    parse_batch_size : documents per mapped parse task.
    """
    started = time.perf_counter()
    run_config = RunConfig.from_dict(config or {})
    project = Path(project_dir)
    project.mkdir(parents=True, exist_ok=True)
    db_path = str(project / "aesi.duckdb")
    timings: dict[str, float] = {}

    t = time.perf_counter()
    corpus = load_corpus_task(muc4_dir, docs_path)
    todo, config_id = plan_ingest_task(corpus.documents, run_config.parser, db_path)
    parsed_count = reused_count = 0
    futures = parse_batch_task.map(_batches(todo, parse_batch_size), unmapped(run_config.parser),
                                   unmapped(str(project / "parse-cache")))
    for future in futures:
        parsed = future.result()
        store_batch_task(parsed, config_id, db_path)
        parsed_count += parsed["parsed"]
        reused_count += parsed["reused"]
    timings["ingest"] = time.perf_counter() - t

    doc_ids = sorted(d.doc_id for d in corpus.documents)
    t = time.perf_counter()
    corpus_key = corpus_fingerprint_task(db_path, doc_ids)
    paths = features_task(db_path, doc_ids, run_config, corpus_key, str(project))
    timings["features"] = time.perf_counter() - t
    t = time.perf_counter()
    solution = solve_task(paths, run_config, str(project))
    timings["solve"] = time.perf_counter() - t
    t = time.perf_counter()
    export = export_task(paths, solution, out_dir)
    scores = evaluate_task(export, corpus)
    timings["export_evaluate"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - started

    solve_info = json.loads(Path(solution["info"]).read_text())
    results = {
        "corpus": corpus.name,
        "evaluated_on": corpus.eval_label,
        "documents": len(corpus.documents),
        "documents_parsed": parsed_count,
        "documents_from_parse_cache": reused_count,
        "documents_unchanged": len(corpus.documents) - len(todo),
        "config": run_config.to_dict(),
        "seed": run_config.model.seed,
        "timings": timings,
        "solve": {k: solve_info[k] for k in ("timings", "converged", "n_iter", "history")},
        "scores": scores,
        "export": export,
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    return results
