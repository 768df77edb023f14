"""One Prefect task per pipeline step. Each body is a call into ``aesi_lib``.

Caching: the steps whose inputs can be named by content (entity table, PMI, features, solve,
evaluation) carry a ``cache_key_fn`` built in :mod:`tasks.keys` (input content + library
fingerprint + the task's source) and persist their result, which is a small dict of file paths
(Parquet / ``.npz`` / JSON under the project folder), never the arrays themselves. Ingest is
incremental by itself (the store keeps each document's text hash and parser configuration; the
parse cache keeps each document's parse), so its tasks are not cached by Prefect.

Retries with exponential backoff sit on the steps that can fail for passing reasons: reading
input files, parsing (memory pressure), writing to the DuckDB store (another process holding
the lock for a moment).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.tasks import exponential_backoff

from aesi_lib import pipeline
from aesi_lib.corpus.sources import Corpus, load_corpus
from aesi_lib.corpus.types import Document
from aesi_lib.entities import entities_frame, extract_entities
from aesi_lib.errors import AesiError, StoreLockedError
from aesi_lib.features import load_features, save_features
from aesi_lib.fingerprint import corpus_fingerprint, file_sha256
from aesi_lib.model import ModelConfig
from aesi_lib.parse.cache import parse_with_cache
from aesi_lib.store import Store, document_sha256
from tasks.keys import content_key, file_backed_key, resource_key, source_hash

#: Testing hook: when set, the solve writes this file after its first AMP iteration and then
#: waits (``SOLVE_PAUSE_SECONDS_ENV`` seconds, default 120), so a test can kill the process in
#: the middle of the solve. Unset in normal use.
SOLVE_PAUSE_ENV = "AESI_SOLVE_PAUSE_FILE"
SOLVE_PAUSE_SECONDS_ENV = "AESI_SOLVE_PAUSE_SECONDS"


def _worth_retrying(task: Any, task_run: Any, state: Any) -> bool:
    """Retry a failure unless it is a user error (bad input, missing model): those fail the
    same way every time. A locked store is worth waiting for."""
    error = state.data if isinstance(state.data, BaseException) else None
    return not isinstance(error, AesiError) or isinstance(error, StoreLockedError)


_RETRY = {"retries": 2, "retry_delay_seconds": exponential_backoff(backoff_factor=2),
          "retry_jitter_factor": 0.5, "retry_condition_fn": _worth_retrying}


# ---------------------------------------------------------------------------------------------
# Parsers: loaded once and reused by whichever thread needs one next.
# ---------------------------------------------------------------------------------------------


class _ParserPool:
    """Loaded parsers by configuration. A parser is used by one thread at a time; a thread that
    finds none free makes another (so N concurrent parse tasks hold N parsers, sequential
    tasks share one, and a parser loaded to learn the configuration id is reused by the
    first parse batch)."""

    def __init__(self) -> None:
        self._free: dict[pipeline.ParserConfig, list[Any]] = {}
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        # Task functions travel to Dask workers by value, with the globals they use: the pool
        # arrives as the receiving process's own pool (parsers and locks do not travel).
        return (_parser_pool, ())

    @contextmanager
    def checkout(self, config: pipeline.ParserConfig) -> Iterator[Any]:
        with self._lock:
            free = self._free.setdefault(config, [])
            parser = free.pop() if free else None
        if parser is None:
            parser = pipeline.make_parser(config)
        try:
            yield parser
        finally:
            with self._lock:
                self._free[config].append(parser)


_PARSERS = _ParserPool()


def _parser_pool() -> _ParserPool:
    """This process's parser pool."""
    return _PARSERS


def _parser_environment(config: pipeline.ParserConfig) -> list[Any]:
    """What, besides ``config`` and aesi's code, decides a parser's ``config_id``: the versions
    of the parser library and model packages (or the model folder)."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    if config.backend == "spacy":
        from aesi_lib.parse.spacy_backend import DEFAULT_SPACY_MODEL

        model = config.model or DEFAULT_SPACY_MODEL
        folder = resource_key(model) if Path(model).exists() else None
        return [version("spacy"), model, version(model.replace("_", "-")), folder]
    return [version(config.backend), resource_key(config.stanza_dir)]


def parser_config_id(config: pipeline.ParserConfig, cache_dir: str) -> str:
    """The parser's ``config_id`` without loading the model when it is known.

    Loading a spaCy or Stanza model takes seconds; the id depends only on the configuration,
    aesi's code and the installed parser/model versions, so it is remembered in
    ``<cache_dir>/config-ids.json`` under a hash of those.
    """
    memo_path = Path(cache_dir) / "config-ids.json"
    key = content_key("parser", config, _parser_environment(config))
    try:
        memo = json.loads(memo_path.read_text())
    except (OSError, ValueError):
        memo = {}
    if key in memo:
        return memo[key]
    with _PARSERS.checkout(config) as parser:
        config_id = parser.config_id
    memo[key] = config_id
    memo_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = memo_path.with_name(memo_path.name + f".{os.getpid()}.part")
    tmp.write_text(json.dumps(memo, indent=1))
    os.replace(tmp, memo_path)
    return config_id


# ---------------------------------------------------------------------------------------------
# Corpus and ingest
# ---------------------------------------------------------------------------------------------


@task(name="load-corpus", cache_policy=NO_CACHE, **_RETRY)
def load_corpus_task(muc4_dir: str | None = None, docs_path: str | None = None,
                     demo: bool = False, split: str = "user") -> Corpus:
    """The run's corpus (``aesi_lib.corpus.sources.load_corpus``); ``demo`` forces the embedded
    demo corpus, ``split`` names the split of a user's documents."""
    if demo:
        from aesi_lib.corpus.demo import load_demo_corpus

        split_data = load_demo_corpus()
        corpus = Corpus("demo", split_data.documents, split_data.keys, None, "demo")
    elif docs_path is not None:
        from aesi_lib.corpus.plain import read_plain_documents

        corpus = Corpus("user", read_plain_documents(docs_path, split=split), None, None, "")
    else:
        corpus = load_corpus(muc4_dir, None)
    get_run_logger().info("corpus %s: %d documents", corpus.name, len(corpus.documents))
    return corpus


@task(name="plan-ingest", cache_policy=NO_CACHE)
def plan_ingest_task(documents: list[Document], parser_config: pipeline.ParserConfig,
                     db_path: str, cache_dir: str) -> dict[str, Any]:
    """Which documents are new, changed (text or parser) or unchanged in the store.

    Returns ``{"todo": [Document], "config_id", "new", "changed", "unchanged"}``.
    """
    config_id = parser_config_id(parser_config, cache_dir)
    with Store(db_path) as store:
        stored = store.stored_hashes()
    todo: list[Document] = []
    new = changed = 0
    for doc in documents:
        before = stored.get(doc.doc_id)
        if before == (document_sha256(doc.text), config_id):
            continue
        todo.append(doc)
        new += before is None
        changed += before is not None
    get_run_logger().info("%d documents: %d new, %d changed (text or parser), %d unchanged",
                          len(documents), new, changed, len(documents) - len(todo))
    return {"todo": todo, "config_id": config_id, "new": new, "changed": changed,
            "unchanged": len(documents) - len(todo)}


@task(name="parse-batch", cache_policy=NO_CACHE, **_RETRY)
def parse_batch_task(batch: list[Document], parser_config: pipeline.ParserConfig,
                     cache_dir: str) -> dict[str, Any]:
    """Parse a batch of documents through the per-document parse cache; extract entities."""
    started = time.perf_counter()
    with _PARSERS.checkout(parser_config) as parser:
        parses, stats = parse_with_cache(parser, batch, cache_dir)
    entities = entities_frame(r for p in parses for r in extract_entities(p))
    get_run_logger().info("parsed %d documents (%d from the parse cache), %d entities",
                          stats.parsed, stats.reused, len(entities))
    return {"documents": batch, "parses": parses, "entities": entities,
            "parsed": stats.parsed, "reused": stats.reused,
            "seconds": time.perf_counter() - started, "worker": _worker_name()}


@task(name="store-batch", cache_policy=NO_CACHE, **_RETRY)
def store_batch_task(parsed: dict[str, Any], config_id: str, db_path: str) -> int:
    """Replace the batch's rows in DuckDB in one transaction; returns the entity rows written."""
    with Store(db_path) as store:
        store.replace_documents(parsed["documents"], parsed["parses"], parsed["entities"],
                                config_id)
    return len(parsed["entities"])


@task(name="stored-documents", cache_policy=NO_CACHE)
def stored_documents_task(db_path: str) -> list[str]:
    """Ids of every document in the store, sorted."""
    with Store(db_path, read_only=True) as store:
        return store.document_ids()


@task(name="corpus-fingerprint", cache_policy=NO_CACHE)
def corpus_fingerprint_task(db_path: str, doc_ids: list[str]) -> str:
    """Hash of the stored ids, text hashes and parser configurations of ``doc_ids``."""
    with Store(db_path, read_only=True) as store:
        hashes = store.stored_hashes()
    missing = [d for d in doc_ids if d not in hashes]
    if missing:
        raise ValueError(f"{len(missing)} documents are not in the store, e.g. {missing[:3]}")
    return corpus_fingerprint({d: hashes[d] for d in doc_ids})


# ---------------------------------------------------------------------------------------------
# Entity table and PMI (SQL), features (vectors, WordNet)
# ---------------------------------------------------------------------------------------------


def _entities_file(work_dir: str, corpus_key: str, doc_ids: list[str]) -> Path:
    key = content_key("entities", source_hash(entity_table_task.fn), _resolved(work_dir),
                      corpus_key, sorted(doc_ids))
    return Path(work_dir) / "tables" / f"{key}.parquet"


def _entities_cache_key(context: Any, p: dict[str, Any]) -> str:
    path = _entities_file(p["work_dir"], p["corpus_key"], p["doc_ids"])
    return file_backed_key(context, path.stem, [path])


@task(name="entity-table", persist_result=True, cache_key_fn=_entities_cache_key)
def entity_table_task(db_path: str, doc_ids: list[str], corpus_key: str, work_dir: str) -> str:
    """The entity table of ``doc_ids`` (SQL ``entity_table.sql``) as Parquet; returns the path.

    ``entity_id`` is renumbered 0..|E|-1 in table order, the row order of every array below.
    """
    with Store(db_path, read_only=True) as store:
        table = store.entity_table()
    table = table[table["doc_id"].isin(set(doc_ids))].reset_index(drop=True)
    if table.empty:
        raise ValueError("the store holds no entities for these documents: nothing to induce")
    table["entity_id"] = np.arange(len(table), dtype=np.int64)
    path = _entities_file(work_dir, corpus_key, doc_ids)
    _write_parquet(table, path)
    get_run_logger().info("entity table: %d mentions in %d documents", len(table),
                          table["doc_id"].nunique())
    return str(path)


def _pmi_file(work_dir: str, corpus_key: str, doc_ids: list[str], min_pair_docs: int) -> Path:
    key = content_key("pmi", source_hash(pmi_task.fn), _resolved(work_dir), corpus_key,
                      sorted(doc_ids), min_pair_docs)
    return Path(work_dir) / "tables" / f"{key}.parquet"


def _pmi_cache_key(context: Any, p: dict[str, Any]) -> str:
    path = _pmi_file(p["work_dir"], p["corpus_key"], p["doc_ids"], p["min_pair_docs"])
    return file_backed_key(context, path.stem, [path])


@task(name="head-pmi", persist_result=True, cache_key_fn=_pmi_cache_key)
def pmi_task(db_path: str, doc_ids: list[str], corpus_key: str, min_pair_docs: int,
             work_dir: str) -> str:
    """Document-level PMI of head lemmas (SQL ``head_pmi.sql``) as Parquet; returns the path."""
    with Store(db_path, read_only=True) as store:
        pmi = store.head_pmi(sorted(doc_ids), min_pair_docs=min_pair_docs)
    path = _pmi_file(work_dir, corpus_key, doc_ids, min_pair_docs)
    _write_parquet(pmi, path)
    get_run_logger().info("PMI: %d head-word pairs", len(pmi))
    return str(path)


def _features_file(entities_path: str, pmi_path: str, config: pipeline.RunConfig,
                   work_dir: str) -> Path:
    key = content_key("features", source_hash(features_task.fn), _resolved(work_dir),
                      file_sha256(entities_path), file_sha256(pmi_path), config.features,
                      resource_key(config.vectors_path), resource_key(config.wordnet_path))
    return Path(work_dir) / "features" / f"{key}.npz"


def _features_cache_key(context: Any, p: dict[str, Any]) -> str:
    path = _features_file(p["entities_path"], p["pmi_path"], p["config"], p["work_dir"])
    return file_backed_key(context, path.stem, [path])


@task(name="build-features", persist_result=True, retries=1, cache_key_fn=_features_cache_key)
def features_task(entities_path: str, pmi_path: str, config: pipeline.RunConfig,
                  work_dir: str) -> dict[str, str]:
    """Word vectors, WordNet types and the PMI matrix of the entity table, saved as one
    ``.npz`` (``aesi_lib.features.save_features``); returns its path and the table's.

    The key holds the feature options and the lexicon resources but not the model options,
    so runs that differ only in the model (or the seed) share the features."""
    log = get_run_logger()
    from aesi_lib.features import build_features

    vectors, wordnet = pipeline.load_lexicon(config)
    table = pd.read_parquet(entities_path)
    pmi = pd.read_parquet(pmi_path)
    features, vocab = build_features(table, pmi, vectors, wordnet, config.features)
    path = _features_file(entities_path, pmi_path, config, work_dir)
    save_features(path, features, vocab)
    log.info("features: |E| = %d mentions, %d head words, %d PMI entries, %.1f%% OOV words",
             features.n_entities, len(vocab.heads), features.pmi.nnz, 100 * vocab.oov_rate)
    return {"features": str(path), "entities": entities_path}


# ---------------------------------------------------------------------------------------------
# Solve, export, evaluation
# ---------------------------------------------------------------------------------------------


def _solve_files(features_path: str, model: ModelConfig, work_dir: str) -> dict[str, str]:
    key = content_key("solve", source_hash(solve_task.fn), _resolved(work_dir),
                      file_sha256(features_path), model)
    base = Path(work_dir) / "solutions" / key
    return {"labels": f"{base}.npz", "info": f"{base}.json"}


def _solve_cache_key(context: Any, p: dict[str, Any]) -> str:
    files = _solve_files(p["features_path"], p["model"], p["work_dir"])
    return file_backed_key(context, Path(files["labels"]).stem, files.values())


def _format_iteration(iteration: int, terms: dict[str, Any], max_iter: int) -> str:
    parts = [f"AMP iteration {iteration}/{max_iter}"]
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


def _pause_for_tests(iteration: int) -> None:
    """The ``AESI_SOLVE_PAUSE_FILE`` hook (see its definition); a no-op when unset."""
    marker = os.environ.get(SOLVE_PAUSE_ENV)
    if not marker:
        return
    Path(marker).write_text(f"solve paused after AMP iteration {iteration}, pid {os.getpid()}\n")
    time.sleep(float(os.environ.get(SOLVE_PAUSE_SECONDS_ENV, "120")))


@task(name="solve", persist_result=True, cache_key_fn=_solve_cache_key)
def solve_task(features_path: str, model: ModelConfig, work_dir: str) -> dict[str, str]:
    """The cuts / AMP solve of ``model`` (a ``ModelConfig``); labels (``.npz``) and the history
    (JSON) saved as files. Logs every AMP iteration with its objective."""
    log = get_run_logger()
    features, _ = load_features(features_path)
    log.info("solve: |E| = %d, |T| = %d, |S| = %d, mode %s, seed %d", features.n_entities,
             model.n_templates, model.n_slots, model.mode, model.seed)

    def progress(iteration: int, terms: dict[str, Any]) -> None:
        log.info("%s", _format_iteration(iteration, terms, model.max_iter))
        _pause_for_tests(iteration)

    config = pipeline.RunConfig(model=model)
    result = pipeline.run_induction(features, config, progress=progress)
    paths = _solve_files(features_path, model, work_dir)
    Path(paths["labels"]).parent.mkdir(parents=True, exist_ok=True)
    np.savez(paths["labels"], template=result.template_labels, slot=result.slot_labels)
    summary = result.to_dict()
    summary.pop("template_labels")
    summary.pop("slot_labels")
    Path(paths["info"]).write_text(json.dumps(summary, indent=1, default=str))
    log.info("solve finished in %.1f s (%d iterations, converged=%s)",
             result.timings["total"], result.n_iter, result.converged)
    return paths


@task(name="export", cache_policy=NO_CACHE)
def export_task(entities_path: str, solution: dict[str, str], out_dir: str) -> dict[str, str]:
    """``assignments.csv`` / ``.parquet`` (one row per mention with template and slot)."""
    table = pd.read_parquet(entities_path)
    with np.load(solution["labels"]) as z:
        assignments = table.assign(template=z["template"], slot=z["slot"])
    return pipeline.write_export(assignments[pipeline.EXPORT_COLUMNS], out_dir)


@task(name="record-run", cache_policy=NO_CACHE, **_RETRY)
def record_run_task(db_path: str, run_id: str, config: dict[str, Any], assignments_path: str,
                    results: dict[str, Any]) -> str:
    """Keep the run's configuration, assignments and scores in the store's runs tables."""
    assignments = pd.read_parquet(assignments_path)
    with Store(db_path) as store:
        store.record_run(run_id, config, assignments, results)
    return run_id


@task(name="export-documents", cache_policy=NO_CACHE)
def export_documents_task(assignments_path: str, doc_ids: list[str], out_dir: str,
                          name: str) -> dict[str, str]:
    """The rows of ``doc_ids`` from an export, as ``<name>.csv`` / ``.parquet``."""
    frame = pd.read_parquet(assignments_path)
    frame = frame[frame["doc_id"].isin(set(doc_ids))].reset_index(drop=True)
    return pipeline.write_export(frame, out_dir, name)


def _keys_digest(corpus: Corpus) -> str:
    return content_key("keys", corpus.name, repr(corpus.eval_keys), repr(corpus.map_keys))


def _scoring_key(step: str, task_fn: Any, parameters: dict[str, Any]) -> str:
    """Key of a task that scores an export: its source, the export's bytes, the keys."""
    return content_key(step, source_hash(task_fn), file_sha256(parameters["assignments_path"]),
                       _keys_digest(parameters["corpus"]))


@task(name="evaluate", persist_result=True,
      cache_key_fn=lambda _, p: _scoring_key("evaluate", evaluate_task.fn, p))
def evaluate_task(assignments_path: str, corpus: Corpus) -> dict[str, Any]:
    """MUC-4 scores (test-/dev-mapped × lenient/strict) of an export; {} without keys."""
    if not corpus.eval_keys:
        get_run_logger().info("no answer keys for this corpus: evaluation skipped")
        return {}
    assignments = pd.read_parquet(assignments_path)
    scores = pipeline.evaluate_assignments(assignments, corpus.eval_keys, corpus.map_keys)
    main = scores["test-mapped/lenient"]
    get_run_logger().info("%s test-mapped lenient: P %.3f R %.3f F1 %.3f", corpus.eval_label,
                          main["precision"], main["recall"], main["f1"])
    return scores


@task(name="score-row", persist_result=True,
      cache_key_fn=lambda _, p: _scoring_key("score-row", score_row_task.fn, p))
def score_row_task(assignments_path: str, corpus: Corpus) -> dict[str, float]:
    """The sweep's score columns of one run (``aesi_lib.experiments.score_row``)."""
    from aesi_lib.experiments import score_row

    return score_row(pd.read_parquet(assignments_path), corpus.eval_keys or [],
                     corpus.map_keys)


# ---------------------------------------------------------------------------------------------
# Slot filling of new documents with an existing schema
# ---------------------------------------------------------------------------------------------


@task(name="fill-slots", cache_policy=NO_CACHE)
def fill_slots_task(entities: pd.DataFrame, artifacts: dict[str, str],
                    config: pipeline.RunConfig, out_dir: str) -> dict[str, str]:
    """Assign the new mentions to the run's templates and slots (``aesi_lib.extract``) and
    write ``assignments.csv`` / ``.parquet`` for them, with the two similarity scores."""
    from aesi_lib.extract import fill_slots
    from aesi_lib.features import build_features

    log = get_run_logger()
    if entities.empty:
        raise ValueError("the new documents hold no entity mentions: nothing to fill")
    train, train_vocab = load_features(artifacts["features"])
    with np.load(artifacts["labels"]) as z:
        templates, slots = z["template"], z["slot"]
    vectors, wordnet = pipeline.load_lexicon(config)
    empty_pmi = pd.DataFrame({"word1": [], "word2": [], "pmi": [], "npmi": []})
    new, new_vocab = build_features(entities, empty_pmi, vectors, wordnet, config.features)
    fill = fill_slots(train, train_vocab, templates, slots, new, new_vocab,
                      config.model.similarity, config.model.n_templates, config.model.n_slots,
                      config.model.slot_model)
    frame = entities.assign(template=fill.template, slot=fill.slot)[pipeline.EXPORT_COLUMNS]
    frame = frame.assign(template_score=fill.template_scores.max(axis=1),
                         slot_score=fill.slot_scores.max(axis=1))
    known = sum(h in set(train_vocab.heads) for h in new_vocab.heads)
    log.info("filled %d mentions of %d documents (%d of %d head words known to the schema)",
             len(frame), frame["doc_id"].nunique(), known, len(new_vocab.heads))
    return pipeline.write_export(frame, out_dir)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _worker_name() -> str:
    """Where a task runs: the Dask worker's address, else the thread's name."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return threading.current_thread().name


def _resolved(work_dir: str) -> str:
    """The project folder a step writes into: part of its key, as its results are paths."""
    return str(Path(work_dir).resolve())


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    frame.to_parquet(tmp, index=False)
    os.replace(tmp, path)
