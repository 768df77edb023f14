"""The solve (cuts or AMP), cached on the features file and the model options, and the
steps that write its labels out: the export, the run record, a subset export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from aesi_lib.fingerprint import file_sha256
from aesi_lib.model.carry import PreviousLabels, previous_labels
from aesi_lib.model.config import ModelConfig
from aesi_lib.model.feature_files import load_features
from aesi_lib.model.solution_files import SolutionLabels, load_labels, save_labels, save_summary
from aesi_lib.run import pipeline
from aesi_lib.store import Store
from aesi_lib.store.database import DEFAULT_KEEP_RUNS
from tasks.keys import content_key, file_backed_key, file_result_key, resolved, source_hash
from tasks.retry import RETRY


def _previous_key(previous: dict[str, str] | None, entities_path: str | None) -> Any:
    """What a warm start depends on: the previous solution's files and the current table."""
    if not previous:
        return None
    return [file_sha256(previous["entities"]), file_sha256(previous["labels"]),
            file_sha256(entities_path) if entities_path else None]


def _solve_files(features_path: str, model: ModelConfig, work_dir: str,
                 previous: dict[str, str] | None = None, entities_path: str | None = None
                 ) -> dict[str, str]:
    key = content_key("solve", source_hash(solve_task.fn), resolved(work_dir),
                      file_sha256(features_path), model, _previous_key(previous, entities_path))
    base = Path(work_dir) / "solutions" / key
    return {"labels": f"{base}.npz", "info": f"{base}.json"}


def _solve_cache_key(context: Any, p: dict[str, Any]) -> str:
    files = _solve_files(p["features_path"], p["model"], p["work_dir"], p.get("previous"),
                         p.get("entities_path"))
    return file_backed_key(context, Path(files["labels"]).stem, files.values())


def usable_previous(previous: dict[str, str] | None) -> dict[str, str] | None:
    """The previous solution's files when both still exist, else None."""
    if previous and all(Path(previous.get(k, "")).is_file() for k in ("entities", "labels")):
        return {"entities": previous["entities"], "labels": previous["labels"]}
    return None


def _load_previous(previous: dict[str, str], entities_path: str, model: ModelConfig
                   ) -> PreviousLabels | None:
    """The previous labels of the current mentions, or None when the previous solution has
    another |T| or |S| (another configuration: nothing to carry)."""
    labels = load_labels(previous["labels"])
    if (labels.template.max(initial=-1) >= model.n_templates
            or labels.slot.max(initial=-1) >= model.n_slots):
        return None
    return previous_labels(pd.read_parquet(entities_path), pd.read_parquet(previous["entities"]),
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


@task(name="solve", persist_result=True, cache_key_fn=_solve_cache_key)
def solve_task(features_path: str, model: ModelConfig, work_dir: str,
               entities_path: str | None = None, previous: dict[str, str] | None = None
               ) -> dict[str, str]:
    """The cuts / AMP solve of ``model`` (a ``ModelConfig``); labels (``.npz``) and the history
    (JSON) saved as files. Logs every AMP iteration with its objective.

    ``previous`` (``{"entities": parquet, "labels": npz}`` of an earlier solution, with
    ``entities_path`` the current entity table) carries its labels forward
    (``aesi_lib.model.carry``): the solve is warm-started from them and renumbered to match,
    and the summary records how many mentions kept their ids."""
    log = get_run_logger()
    features, _ = load_features(features_path)
    log.info("solve: |E| = %d, |T| = %d, |S| = %d, mode %s, seed %d", features.n_entities,
             model.n_templates, model.n_slots, model.mode, model.seed)

    def progress(iteration: int, terms: dict[str, Any]) -> None:
        log.info("%s", _format_iteration(iteration, terms, model))

    carried = None
    if previous and entities_path:
        carried = _load_previous(previous, entities_path, model)
        if carried is None:
            log.info("solve: the previous solution has another |T| or |S|: solved afresh")
    result = pipeline.run_induction(features, model, progress=progress, previous=carried)
    if result.carried:
        c = result.carried
        log.info("solve: %d of %d previous mentions kept their template id, %d their slot id "
                 "(%d new mentions)", c["template_kept"], c["previous_mentions"],
                 c["slot_kept"], c["new_mentions"])
    paths = _solve_files(features_path, model, work_dir, previous, entities_path)
    save_labels(paths["labels"], SolutionLabels.of(result))
    save_summary(paths["info"], result)
    if model.mode == "sc":
        log.info("solve finished in %.1f s", result.timings["total"])
    else:
        log.info("solve finished in %.1f s (%d AMP iterations, converged=%s)",
                 result.timings["total"], result.n_iter, result.converged)
    return paths


def _renumbered_file(labels_path: str, previous: dict[str, str], entities_path: str,
                     work_dir: str) -> Path:
    key = content_key("ids", source_hash(renumber_task.fn), resolved(work_dir),
                      file_sha256(labels_path), _previous_key(previous, entities_path))
    return Path(work_dir) / "solutions" / f"{key}.npz"


@task(name="keep-ids", persist_result=True, cache_key_fn=file_result_key(
    lambda p: _renumbered_file(p["labels_path"], p["previous"], p["entities_path"],
                               p["work_dir"])))
def renumber_task(labels_path: str, entities_path: str, previous: dict[str, str],
                  model: ModelConfig, work_dir: str) -> dict[str, Any]:
    """The solution of ``labels_path`` with its templates and slots renumbered to match the
    project's previous solution (``aesi_lib.model.carry.renumber_to_previous``): a full run
    keeps the ids of the last run or update where the partition allows, while its partition
    stays the seeded solve's own. Returns the labels file and how many mentions kept their
    ids (None when the previous solution has another |T| or |S|)."""
    from aesi_lib.model.carry import label_changes, renumber_to_previous

    labels = load_labels(labels_path)
    carried = _load_previous(previous, entities_path, model)
    if carried is None:
        get_run_logger().info("ids: the previous solution has another |T| or |S|: new ids")
        return {"labels": labels_path, "carried": None}
    template, slot = renumber_to_previous(labels.template, labels.slot, carried, model)
    changes = label_changes(template, slot, carried)
    path = _renumbered_file(labels_path, previous, entities_path, work_dir)
    save_labels(path, SolutionLabels(template, slot, labels.template_members))
    get_run_logger().info("ids: %d of %d previous mentions kept their template id, %d their "
                          "slot id", changes["template_kept"], changes["previous_mentions"],
                          changes["slot_kept"])
    return {"labels": str(path), "carried": changes}


@task(name="export", cache_policy=NO_CACHE)
def export_task(entities_path: str, solution: dict[str, str], out_dir: str) -> dict[str, str]:
    """``assignments.csv`` / ``.parquet`` (one row per mention with template and slot) and
    ``schema.json`` (each template's top predicates, each slot's top heads)."""
    table = pd.read_parquet(entities_path)
    labels = load_labels(solution["labels"])
    assignments = table.assign(template=labels.template, slot=labels.slot)
    export = assignments[pipeline.EXPORT_COLUMNS]
    paths = pipeline.write_export(export, out_dir)
    return {**paths, "schema": pipeline.write_schema(export, out_dir)}


@task(name="record-run", cache_policy=NO_CACHE, **RETRY)
def record_run_task(db_path: str, run_id: str, config: dict[str, Any], assignments_path: str,
                    results: dict[str, Any], keep_runs: int = DEFAULT_KEEP_RUNS) -> str:
    """Keep the run's configuration, assignments and scores in the store's runs tables, and the
    assignments of the ``keep_runs`` newest runs only (``Store.record_run``)."""
    assignments = pd.read_parquet(assignments_path)
    with Store(db_path) as store:
        store.record_run(run_id, config, assignments, results, keep_runs=keep_runs)
    return run_id


@task(name="export-documents", cache_policy=NO_CACHE)
def export_documents_task(assignments_path: str, doc_ids: list[str], out_dir: str,
                          name: str) -> dict[str, str]:
    """The rows of ``doc_ids`` from an export, as ``<name>.csv`` / ``.parquet``."""
    frame = pd.read_parquet(assignments_path)
    frame = frame[frame["doc_id"].isin(set(doc_ids))].reset_index(drop=True)
    return pipeline.write_export(frame, out_dir, name)
