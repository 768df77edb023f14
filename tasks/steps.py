"""One Prefect task per pipeline step. Each body is a call into ``aesi_lib``."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from prefect import get_run_logger, task

from aesi_lib import pipeline
from aesi_lib.corpus.sources import Corpus, load_corpus
from aesi_lib.corpus.types import Document
from aesi_lib.entities import entities_frame, extract_entities
from aesi_lib.features import load_features, save_features
from aesi_lib.fingerprint import corpus_fingerprint, file_sha256
from aesi_lib.parse.cache import parse_with_cache
from aesi_lib.store import Store
from tasks.keys import content_key

_parsers: dict[tuple[int, pipeline.ParserConfig], Any] = {}


def _parser(config: pipeline.ParserConfig) -> Any:
    """One parser per thread and configuration: spaCy/Stanza objects are not shared by threads."""
    key = (threading.get_ident(), config)
    if key not in _parsers:
        _parsers[key] = pipeline.make_parser(config)
    return _parsers[key]


@task(name="load-corpus", retries=2, retry_delay_seconds=[1, 5])
def load_corpus_task(muc4_dir: str | None, docs_path: str | None) -> Corpus:
    corpus = load_corpus(muc4_dir, docs_path)
    get_run_logger().info("corpus %s: %d documents", corpus.name, len(corpus.documents))
    return corpus


@task(name="plan-ingest")
def plan_ingest_task(documents: list[Document], parser_config: pipeline.ParserConfig,
                     db_path: str) -> tuple[list[Document], str]:
    """The documents whose text or parser changed, and the parser's configuration id."""
    config_id = _parser(parser_config).config_id
    with Store(db_path) as store:
        todo = store.documents_to_parse(documents, config_id)
    get_run_logger().info("%d of %d documents new or changed: they will be parsed",
                          len(todo), len(documents))
    return todo, config_id


@task(name="parse-batch", retries=2, retry_delay_seconds=[2, 10])
def parse_batch_task(batch: list[Document], parser_config: pipeline.ParserConfig,
                     cache_dir: str) -> dict[str, Any]:
    """Parse a batch of documents (through the per-document parse cache) and extract entities."""
    parses, stats = parse_with_cache(_parser(parser_config), batch, cache_dir)
    entities = entities_frame(r for p in parses for r in extract_entities(p))
    get_run_logger().info("parsed %d documents (%d from the parse cache), %d entities",
                          stats.parsed, stats.reused, len(entities))
    return {"documents": batch, "parses": parses, "entities": entities,
            "parsed": stats.parsed, "reused": stats.reused}


@task(name="store-batch", retries=2, retry_delay_seconds=[2, 10])
def store_batch_task(parsed: dict[str, Any], config_id: str, db_path: str) -> int:
    """Replace the batch's rows in DuckDB in one transaction."""
    with Store(db_path) as store:
        store.replace_documents(parsed["documents"], parsed["parses"], parsed["entities"],
                                config_id)
    return len(parsed["documents"])


@task(name="corpus-fingerprint")
def corpus_fingerprint_task(db_path: str, doc_ids: list[str]) -> str:
    with Store(db_path, read_only=True) as store:
        hashes = store.stored_hashes()
    return corpus_fingerprint({d: hashes[d] for d in doc_ids if d in hashes})


def _features_key(context: Any, parameters: dict[str, Any]) -> str:
    config: pipeline.RunConfig = parameters["config"]
    return content_key("features", parameters["corpus_key"], config.features,
                       config.vectors_path, config.wordnet_path, sorted(parameters["doc_ids"]))


@task(name="build-features", cache_key_fn=_features_key, persist_result=True, retries=1)
def features_task(db_path: str, doc_ids: list[str], config: pipeline.RunConfig,
                  corpus_key: str, work_dir: str) -> dict[str, str]:
    """Entity table, PMI (SQL), vectors and WordNet types; saved as files, paths returned."""
    log = get_run_logger()
    vectors, wordnet = pipeline.load_lexicon(config)
    with Store(db_path, read_only=True) as store:
        table = store.entity_table()
        table = table[table["doc_id"].isin(set(doc_ids))].reset_index(drop=True)
        pmi = store.head_pmi(sorted(table["doc_id"].unique()),
                             min_pair_docs=config.features.min_pair_docs)
    from aesi_lib.features import build_features

    features, vocab = build_features(table, pmi, vectors, wordnet, config.features)
    key = content_key("features", corpus_key, config.features, config.vectors_path,
                      config.wordnet_path, sorted(doc_ids))
    out = Path(work_dir) / "features"
    out.mkdir(parents=True, exist_ok=True)
    features_path = out / f"{key}.npz"
    table_path = out / f"{key}.entities.parquet"
    save_features(features_path, features, vocab)
    table.to_parquet(table_path, index=False)
    log.info("|E| = %d entity mentions, %d head words, %d PMI pairs, %.1f%% OOV",
             features.n_entities, len(vocab.heads), features.pmi.nnz, 100 * vocab.oov_rate)
    return {"features": str(features_path), "entities": str(table_path)}


def _solve_key(context: Any, parameters: dict[str, Any]) -> str:
    return content_key("solve", file_sha256(parameters["paths"]["features"]),
                       parameters["config"].model)


@task(name="solve", cache_key_fn=_solve_key, persist_result=True)
def solve_task(paths: dict[str, str], config: pipeline.RunConfig, work_dir: str
               ) -> dict[str, str]:
    """The cuts / AMP solve; labels and history saved as files."""
    log = get_run_logger()
    features, _ = load_features(paths["features"])

    def progress(iteration: int, terms: dict[str, Any]) -> None:
        shown = {k: v for k, v in terms.items() if isinstance(v, int | float)}
        log.info("AMP iteration %d: %s", iteration, json.dumps(shown, default=str)[:400])

    result = pipeline.run_induction(features, config, progress=progress)
    key = content_key("solve", file_sha256(paths["features"]), config.model)
    out = Path(work_dir) / "solutions"
    out.mkdir(parents=True, exist_ok=True)
    labels_path = out / f"{key}.npz"
    np.savez(labels_path, template=result.template_labels, slot=result.slot_labels)
    summary = result.to_dict()
    summary.pop("template_labels")
    summary.pop("slot_labels")
    info_path = out / f"{key}.json"
    info_path.write_text(json.dumps(summary, indent=1, default=str))
    log.info("solve finished in %.1f s (%d iterations, converged=%s)",
             result.timings["total"], result.n_iter, result.converged)
    return {"labels": str(labels_path), "info": str(info_path)}


@task(name="export")
def export_task(paths: dict[str, str], solution: dict[str, str], out_dir: str) -> dict[str, str]:
    table = pd.read_parquet(paths["entities"])
    with np.load(solution["labels"]) as z:
        assignments = table[["doc_id", "sent_id", "entity_id", "head", "mention", "predicate",
                             "dep"]].assign(template=z["template"], slot=z["slot"])
    return pipeline.write_export(assignments[pipeline.EXPORT_COLUMNS], out_dir)


@task(name="evaluate")
def evaluate_task(export: dict[str, str], corpus: Corpus) -> dict[str, Any]:
    if not corpus.eval_keys:
        get_run_logger().info("no answer keys for this corpus: evaluation skipped")
        return {}
    assignments = pd.read_parquet(export["parquet"])
    scores = pipeline.evaluate_assignments(assignments, corpus.eval_keys, corpus.map_keys)
    main = scores["test-mapped/lenient"]
    get_run_logger().info("%s test-mapped lenient: P %.3f R %.3f F1 %.3f", corpus.eval_label,
                          main["precision"], main["recall"], main["f1"])
    return scores
