"""Ingest steps: the corpus, which documents changed, parse batches and their store writes.

Ingest is incremental by itself (the store keeps each document's text hash and parser
configuration; the parse cache keeps each document's parse), so these steps are not cached
by key.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from aesi_lib.corpus.sources import Corpus, load_corpus
from aesi_lib.corpus.types import Document
from aesi_lib.entities.entity_table import document_entities
from aesi_lib.entities.rules import DEFAULT_RULES, EntityRules, stored_config_id
from aesi_lib.fingerprint import corpus_fingerprint
from aesi_lib.parse.backends import ParserConfig, parse_processes
from aesi_lib.parse.cache import parse_with_cache
from aesi_lib.steps.declaration import step
from aesi_lib.steps.logs import step_logger
from aesi_lib.steps.parsers import PARSERS, parser_config_id
from aesi_lib.steps.retry import RETRY
from aesi_lib.steps.workers import worker_name
from aesi_lib.store import Store, document_hash


@step("load-corpus", retry=RETRY)
def load_corpus_step(muc4_dir: str | None = None, docs_path: str | None = None,
                     demo: bool = False, split: str = "user", encoding: str | None = None,
                     skip_bad: bool = False, max_doc_chars: int | None = None,
                     keep_non_english: bool = False) -> Corpus:
    """The run's corpus (``aesi_lib.corpus.sources.load_corpus``); ``demo`` forces the embedded
    demo corpus, ``split`` names the split of a user's documents, read in ``encoding`` (None:
    each file's own, detected), each at most ``max_doc_chars`` long (None: the reader's
    default; ``skip_bad``: unreadable or too long files or lines are left out with a warning;
    documents that are not English are left out with a warning and listed in the corpus's
    ``left_out`` unless ``keep_non_english``)."""
    corpus = load_corpus(muc4_dir, docs_path, "skip" if skip_bad else "raise", demo=demo,
                         split=split, encoding=encoding, max_doc_chars=max_doc_chars,
                         keep_non_english=keep_non_english)
    step_logger().info("corpus: %s, %d documents", corpus.origin, len(corpus.documents))
    return corpus


@step("plan-ingest")
def plan_ingest_step(documents: list[Document], parser_config: ParserConfig,
                     db_path: str, cache_dir: str,
                     rules: EntityRules = DEFAULT_RULES) -> dict[str, Any]:
    """Which documents are new, changed (text, parser or entity rules) or unchanged in the
    store, and how many processes should parse them
    (``aesi_lib.parse.backends.parse_processes``).

    Returns ``{"todo": [Document], "config_id", "new", "changed", "unchanged",
    "parse_processes"}``.
    """
    # When the id is not remembered, the parser that learns it is the one the parse batches
    # will use for a corpus of this size (so a pool of processes starts only once).
    id_config = replace(parser_config, n_process=parse_processes(
        parser_config, sum(len(d.text) for d in documents)))
    config_id = stored_config_id(parser_config_id(id_config, cache_dir), rules)
    with Store(db_path) as store:
        stored = store.stored_hashes()
    todo: list[Document] = []
    new = changed = 0
    for doc in documents:
        before = stored.get(doc.doc_id)
        if before == (document_hash(doc), config_id):
            continue
        todo.append(doc)
        new += before is None
        changed += before is not None
    processes = parse_processes(parser_config, sum(len(d.text) for d in todo))
    step_logger().info("%d documents: %d new, %d changed (text, parser or entity rules), "
                       "%d unchanged; %d to parse in %d process%s", len(documents), new,
                       changed,
                       len(documents) - len(todo), len(todo), processes,
                       "" if processes == 1 else "es")
    return {"todo": todo, "config_id": config_id, "new": new, "changed": changed,
            "unchanged": len(documents) - len(todo), "parse_processes": processes}


@step("parse-batch", retry=RETRY, spread=True)
def parse_batch_step(batch: list[Document], parser_config: ParserConfig,
                     cache_dir: str, rules: EntityRules = DEFAULT_RULES) -> dict[str, Any]:
    """Parse a batch of documents through the per-document parse cache; extract entities
    with ``rules`` (``aesi_lib.run.pipeline.entity_rules`` of the run's configuration)."""
    started = time.perf_counter()
    # The remembered id: a batch found whole in the parse cache loads no model.
    config_id = parser_config_id(parser_config, cache_dir)
    with PARSERS.checkout(parser_config) as parser:
        parses, stats = parse_with_cache(parser, batch, cache_dir, config_id)
        # Parse worker processes (when the parser has them): pid -> peak resident MiB.
        worker_mib = dict(getattr(parser, "worker_peak_rss_mib", {}))
    entities = document_entities(parses, batch, rules)
    step_logger().info("parsed %d documents (%d from the parse cache), %d entities",
                       stats.parsed, stats.reused, len(entities))
    return {"documents": batch, "parses": parses, "entities": entities,
            "parsed": stats.parsed, "reused": stats.reused,
            "seconds": time.perf_counter() - started, "worker": worker_name(),
            "parse_worker_mib": worker_mib}


@step("store-batch", retry=RETRY)
def store_batch_step(parsed: dict[str, Any], config_id: str, db_path: str) -> int:
    """Replace the batch's rows in DuckDB in one transaction; returns the entity rows written."""
    with Store(db_path) as store:
        store.replace_documents(parsed["documents"], parsed["parses"], parsed["entities"],
                                config_id)
    return len(parsed["entities"])


@step("stored-documents")
def stored_documents_step(db_path: str) -> list[str]:
    """Ids of every document in the store, sorted."""
    with Store(db_path, read_only=True) as store:
        return store.document_ids()


@step("corpus-fingerprint")
def corpus_fingerprint_step(db_path: str, doc_ids: list[str]) -> str:
    """Hash of the stored ids, text hashes and parser configurations of ``doc_ids``."""
    with Store(db_path, read_only=True) as store:
        hashes = store.stored_hashes()
    missing = [d for d in doc_ids if d not in hashes]
    if missing:
        raise ValueError(f"{len(missing)} documents are not in the store, e.g. {missing[:3]}")
    return corpus_fingerprint({d: hashes[d] for d in doc_ids})
