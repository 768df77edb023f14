"""Entity table and PMI (SQL), then features (vectors, WordNet): cached on their inputs' content.

Each step writes one file named after its cache key inside the project folder (Parquet or
``.npz``) and returns its path, never the arrays themselves. The caller computes that path once
with the function beside the step (:func:`entities_file`, :func:`pmi_file`, ...) and passes it
in as ``out_path``; the step's cache key is read back from it
(``aesi_lib.steps.declaration.Step.cache_key``).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.errors import NoEntitiesError
from aesi_lib.fingerprint import file_sha256
from aesi_lib.lexicon.context_files import load_context, save_context
from aesi_lib.lexicon.encoder import SentenceEncoder, run_encoder, run_encoder_key
from aesi_lib.lexicon.mention_context import MentionContext, mention_context_vectors
from aesi_lib.model.feature_files import save_features
from aesi_lib.model.features import FeatureOptions
from aesi_lib.run import pipeline
from aesi_lib.run.config import RunConfig
from aesi_lib.run.table_files import save_table
from aesi_lib.steps.declaration import Retry, step
from aesi_lib.steps.keys import (
    content_key,
    resolved,
    resource_key,
    source_hash,
    wordnet_key,
)
from aesi_lib.steps.logs import step_logger
from aesi_lib.steps.retry import RETRY
from aesi_lib.steps.workers import worker_name
from aesi_lib.store import Store


def entities_file(work_dir: str, corpus_key: str, doc_ids: list[str]) -> str:
    """Where :func:`entity_table_step` writes the entity table of the stored documents
    ``doc_ids`` whose corpus fingerprint is ``corpus_key``."""
    key = content_key("entities", source_hash(entity_table_step.fn), resolved(work_dir),
                      corpus_key, sorted(doc_ids))
    return str(Path(work_dir) / "tables" / f"{key}.parquet")


@step("entity-table", files="out_path")
def entity_table_step(db_path: str, doc_ids: list[str], out_path: str) -> str:
    """The entity table of ``doc_ids`` (SQL ``entity_table.sql``) as Parquet at ``out_path``
    (:func:`entities_file`); returns the path.

    ``entity_id`` is renumbered 0..|E|-1 in table order, the row order of every array below.
    """
    with Store(db_path, read_only=True) as store:
        table = store.entity_table()
    table = table[table["doc_id"].isin(set(doc_ids))].reset_index(drop=True)
    if table.empty:
        raise NoEntitiesError()
    table["entity_id"] = np.arange(len(table), dtype=np.int64)
    save_table(out_path, table)
    step_logger().info("entity table: %d mentions in %d documents", len(table),
                       table["doc_id"].nunique())
    return out_path


def context_file(entities_path: str, work_dir: str, features: FeatureOptions,
                 vectors_path: str | None) -> str:
    """Where :func:`context_step` writes the context vectors of ``entities_path``."""
    key = content_key("context", source_hash(context_step.fn), resolved(work_dir),
                      file_sha256(entities_path), run_encoder_key(features, vectors_path))
    return str(Path(work_dir) / "features" / f"{key}.npz")


@step("context-vectors", files="out_path")
def context_step(entities_path: str, db_path: str, features: FeatureOptions,
                 vectors_cache: str, out_path: str, vectors_path: str | None = None) -> str:
    """One encoder pass over the sentences that hold mentions (``aesi_lib.lexicon.encoder``):
    the vector of each sentence that holds mentions, once, with each mention's row among
    them, as ``.npz`` at ``out_path`` (:func:`context_file`). Sentences go through a
    per-document cache (``vectors_cache``), so a corpus that grows embeds only its new
    documents, and a run whose vectors are all cached loads no model."""
    log = step_logger()
    table = pd.read_parquet(entities_path)
    doc_ids = sorted(table["doc_id"].unique())
    progress = EmbeddingProgress(log, len(table[["doc_id", "sent_id"]].drop_duplicates()))
    encoder = run_encoder(features, vectors_path, progress=progress)
    context = _stored_mention_context(table, db_path, encoder, vectors_cache)
    save_context(out_path, context.feature_arrays())
    log.info("context vectors (%s): %d mention sentences of %d documents (%d documents "
             "embedded now, the others from the cache%s) for %d mentions",
             encoder.recipe.model, context.n_sentences, len(doc_ids), context.embedded,
             "" if getattr(encoder, "loaded", True) else "; no model loaded", len(table))
    return out_path


class EmbeddingProgress:
    """Logs an encoder pass at most every ``every`` seconds (``EmbedProgress`` of
    ``aesi_lib.lexicon.encoder``): the sentences embedded so far, of at most ``total`` (the
    mention sentences; those of cached documents are not embedded again), the rate and the
    time left at most at that rate. A pass shorter than ``every`` logs nothing beyond the
    step's own line."""

    def __init__(self, log: Any, total: int, every: float = 10.0) -> None:
        self.log = log
        self.total = total
        self.every = every
        self.done = 0
        self.start = self.last = time.monotonic()

    def __call__(self, sentences: int) -> None:
        self.done += sentences
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            rate = self.done / max(now - self.start, 1e-9)
            self.log.info("context vectors: %d of at most %d mention sentences embedded "
                          "(%.1f a second; at most %s left)", self.done, self.total, rate,
                          _duration(max(self.total - self.done, 0) / max(rate, 1e-9)))


def _duration(seconds: float) -> str:
    """``"45 s"``, ``"3 min 5 s"``: a time left as a person reads it."""
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60} s"


def _stored_mention_context(table: pd.DataFrame, db_path: str, encoder: SentenceEncoder,
                            vectors_cache: str) -> MentionContext:
    """The context vectors of the mentions in ``table``, from their stored sentences."""
    doc_ids = sorted(table["doc_id"].unique())
    with Store(db_path, read_only=True) as store:
        sentences = store.sentence_texts(doc_ids)
    return mention_context_vectors(table, sentences, encoder, vectors_cache)


_WORKER_ENCODERS = threading.local()


def _worker_encoder(features: FeatureOptions, vectors_path: str | None) -> SentenceEncoder:
    """The encoder of this worker thread, loaded once for all the ``embed-batch`` steps it
    runs (a cluster worker runs one step at a time a thread)."""
    key = (features.encoder, vectors_path, features.encoder_device, features.encoder_model)
    if getattr(_WORKER_ENCODERS, "key", None) != key:
        _WORKER_ENCODERS.key = key
        _WORKER_ENCODERS.encoder = run_encoder(features, vectors_path)
    return _WORKER_ENCODERS.encoder


@step("embed-batch", retry=RETRY, spread=True)
def embed_batch_step(entities_path: str, db_path: str, doc_ids: list[str],
                     features: FeatureOptions, vectors_cache: str,
                     vectors_path: str | None = None) -> dict[str, Any]:
    """Fill the per-document vector cache of :func:`context_step` for the documents
    ``doc_ids``, wherever the step runs: with ``--dask`` the flow spreads the encoder's work
    over the cluster's workers in such batches, and the step then finds every document in the
    cache (the same function computes the vectors either way). Returns the worker, the
    number of documents of the batch and the number embedded now (the others were cached)."""
    table = pd.read_parquet(entities_path, filters=[("doc_id", "in", doc_ids)])
    encoder = _worker_encoder(features, vectors_path)
    context = _stored_mention_context(table, db_path, encoder, vectors_cache)
    return {"worker": worker_name(), "documents": len(doc_ids), "embedded": context.embedded}


def pmi_file(work_dir: str, corpus_key: str, doc_ids: list[str]) -> str:
    """Where :func:`pmi_step` writes the PMI of the stored documents ``doc_ids``."""
    key = content_key("pmi", source_hash(pmi_step.fn), resolved(work_dir), corpus_key,
                      sorted(doc_ids))
    return str(Path(work_dir) / "tables" / f"{key}.parquet")


@step("head-pmi", files="out_path")
def pmi_step(db_path: str, doc_ids: list[str], out_path: str) -> str:
    """Document-level PMI of head lemmas (SQL ``head_pmi.sql``) as Parquet at ``out_path``
    (:func:`pmi_file`); returns the path."""
    with Store(db_path, read_only=True) as store:
        pmi = store.head_pmi(sorted(doc_ids))
    save_table(out_path, pmi)
    step_logger().info("PMI: %d head-word pairs", len(pmi))
    return out_path


def features_file(entities_path: str, pmi_path: str, config: RunConfig, work_dir: str,
                  context_path: str | None = None) -> str:
    """Where :func:`features_step` writes the features of these inputs: the bytes of the
    tables (and context vectors), the feature options and the lexicon resources."""
    key = content_key("features", source_hash(features_step.fn), resolved(work_dir),
                      file_sha256(entities_path), file_sha256(pmi_path), config.features,
                      resource_key(config.vectors_path), wordnet_key(config.wordnet_path),
                      file_sha256(context_path) if context_path else None)
    return str(Path(work_dir) / "features" / f"{key}.npz")


@step("build-features", files="out_path", retry=Retry(retries=1), spread=True)
def features_step(entities_path: str, pmi_path: str, config: RunConfig,
                  out_path: str, context_path: str | None = None) -> dict[str, str]:
    """Word vectors, WordNet types and the PMI matrix of the entity table, saved as one
    ``.npz`` at ``out_path`` (:func:`features_file`;
    ``aesi_lib.model.feature_files.save_features``); returns its path, the table's and where
    it ran (a cluster worker under ``--dask``: :func:`aesi_lib.steps.graph.feature_steps`).

    The key holds the feature options and the lexicon resources but not the model options,
    so runs that differ only in the model (or the seed) share the features. ``context_path``
    (``context_step``) adds the mentions' context vectors."""
    log = step_logger()
    from aesi_lib.model.features import build_features

    vectors, wordnet = pipeline.load_lexicon(config)
    table = pd.read_parquet(entities_path)
    pmi = pd.read_parquet(pmi_path, columns=["word1", "word2", "pmi"])
    features, vocab = build_features(table, pmi, vectors, wordnet, config.features)
    if wordnet is not None and not wordnet.has_tagged_counts:
        log.warning("WordNet at %s has no sense-tagged counts (cntlist.rev): no predicate is "
                    "salient, and model.similarity.salience_weight adds nothing", wordnet.source)
    if context_path:
        features = dataclasses.replace(features, **load_context(context_path))
        features.validate()
    save_features(out_path, features, vocab)
    log.info("features: |E| = %d mentions, %d head words, %d PMI entries, %.1f%% OOV words",
             features.n_entities, len(vocab.heads), features.pmi.nnz, 100 * vocab.oov_rate)
    return {"features": out_path, "entities": entities_path, "worker": worker_name()}
