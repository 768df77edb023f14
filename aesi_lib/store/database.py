"""DuckDB store: open with a clear lock error, content-hash upserts, entity table and PMI."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from aesi_lib.corpus.types import Document
from aesi_lib.errors import InputError, StoreLockedError
from aesi_lib.parse.types import ParsedDocument

DOCUMENT_COLUMNS = ["doc_id", "split", "source", "sha256", "text", "header", "parse_config",
                    "added_at"]
SENTENCE_COLUMNS = ["doc_id", "sent_id", "text", "n_tokens"]
TOKEN_COLUMNS = ["doc_id", "sent_id", "token_id", "text", "lemma", "upos", "tag", "head", "dep",
                 "ent_type"]
ENTITY_COLUMNS = ["doc_id", "sent_id", "head_index", "head", "head_lemma", "mention", "predicate",
                  "dep", "ner"]
ASSIGNMENT_COLUMNS = ["run_id", "doc_id", "sent_id", "entity_id", "head", "mention", "predicate",
                      "dep", "template", "slot"]


@cache
def load_sql(name: str) -> str:
    """Text of ``sql/<name>.sql`` shipped with the package."""
    return resources.files("aesi_lib.store").joinpath("sql", f"{name}.sql").read_text()


def document_sha256(text: str) -> str:
    """Content hash that decides whether a stored document changed."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Store:
    """A project's DuckDB database.

    Parameters
    ----------
    path : path of the ``.duckdb`` file; created with its tables when missing.
    read_only : open without the write lock (several readers may share a file; a reader and a
        writer in two processes may not: DuckDB's own lock rule).

    Raises
    ------
    StoreLockedError
        Another process holds the file.
    InputError
        The file exists but is not a readable DuckDB database.
    """

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise StoreLockedError(
                    f"{self.path}: the project database is in use by another aesi process "
                    f"({exc}). Wait for that run to finish, or give this run another "
                    "--project-dir."
                ) from exc
            raise InputError(self.path, f"cannot open the DuckDB database: {exc}. Move the file "
                             "aside to rebuild the store from the documents.") from exc
        except duckdb.Error as exc:
            raise InputError(self.path, f"not a readable DuckDB database: {exc}. Move the file "
                             "aside to rebuild the store from the documents.") from exc
        if not read_only:
            self.con.execute(load_sql("create_schema"))

    # -- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- documents -----------------------------------------------------------------------
    def stored_hashes(self) -> dict[str, tuple[str, str | None]]:
        """doc_id -> (sha256, parse_config) of every stored document."""
        rows = self.con.execute(load_sql("document_hashes")).fetchall()
        return {doc_id: (sha, cfg) for doc_id, sha, cfg in rows}

    def documents_to_parse(self, docs: Sequence[Document], parse_config: str) -> list[Document]:
        """The documents whose text or parse configuration differs from the stored copy."""
        stored = self.stored_hashes()
        return [d for d in docs
                if stored.get(d.doc_id) != (document_sha256(d.text), parse_config)]

    def replace_documents(
        self,
        docs: Sequence[Document],
        parses: Sequence[ParsedDocument],
        entities: pd.DataFrame,
        parse_config: str,
    ) -> None:
        """Replace every row of ``docs`` (document, sentences, tokens, entities) in one transaction.

        ``parses`` are aligned with ``docs``; ``entities`` has the columns of ``ENTITY_COLUMNS``
        for these documents only.
        """
        if len(docs) != len(parses):
            raise ValueError("docs and parses must be aligned")
        if not docs:
            return
        now = datetime.now(UTC).replace(tzinfo=None)
        doc_frame = pd.DataFrame([
            (d.doc_id, d.split, d.source, document_sha256(d.text), d.text, d.header,
             parse_config, now) for d in docs], columns=DOCUMENT_COLUMNS)
        sentence_frame, token_frame = _parse_frames(parses)
        entity_frame = entities.reindex(columns=ENTITY_COLUMNS)
        doomed = pd.DataFrame({"doc_id": [d.doc_id for d in docs]})
        self.con.begin()
        try:
            self.con.register("doomed", doomed)
            self.con.execute(load_sql("delete_document_rows"))
            self.con.unregister("doomed")
            for table, frame in (("documents", doc_frame), ("sentences", sentence_frame),
                                 ("tokens", token_frame), ("entities", entity_frame)):
                if len(frame):
                    self.con.from_df(frame).insert_into(table)
            self.con.commit()
        except BaseException:
            self.con.rollback()
            raise

    def document_ids(self, splits: Iterable[str] | None = None) -> list[str]:
        """Stored doc ids (optionally of some splits), sorted."""
        frame = self.con.table("documents").project("doc_id, split").df()
        if splits is not None:
            frame = frame[frame["split"].isin(list(splits))]
        return sorted(frame["doc_id"])

    def documents(self, splits: Iterable[str] | None = None) -> list[Document]:
        frame = self.con.table("documents").df()
        if splits is not None:
            frame = frame[frame["split"].isin(list(splits))]
        frame = frame.sort_values("doc_id")
        return [Document(r.doc_id, r.text, r.split, r.source, r.header)
                for r in frame.itertuples()]

    # -- entities and PMI ----------------------------------------------------------------
    def entity_table(self, splits: Iterable[str] | None = None) -> pd.DataFrame:
        """Entities of the given splits (all when None), ordered, with ``entity_id``."""
        wanted = pd.DataFrame({"split": list(splits) if splits is not None
                               else self._all_splits()})
        self.con.register("wanted", wanted)
        try:
            return self.con.execute(load_sql("entity_table")).df()
        finally:
            self.con.unregister("wanted")

    def head_pmi(self, doc_ids: Iterable[str] | None = None, min_pair_docs: int = 1
                 ) -> pd.DataFrame:
        """Document-level PMI between head lemmas (``sql/head_pmi.sql``).

        Columns ``word1, word2, pmi, npmi, pair_docs``, both orders of every pair.
        """
        ids = list(doc_ids) if doc_ids is not None else self.document_ids()
        self.con.register("wanted_docs", pd.DataFrame({"doc_id": ids}))
        try:
            return self.con.execute(load_sql("head_pmi"),
                                    {"min_pair_docs": int(min_pair_docs)}).df()
        finally:
            self.con.unregister("wanted_docs")

    def summary(self) -> pd.DataFrame:
        return self.con.execute(load_sql("store_summary")).df()

    def _all_splits(self) -> list[str]:
        frame = self.con.table("documents").project("split").distinct().df()
        return list(frame["split"])

    # -- runs ----------------------------------------------------------------------------
    def start_run(self, run_id: str, config: dict[str, Any]) -> None:
        self.con.from_df(pd.DataFrame([{
            "run_id": run_id, "started_at": datetime.now(UTC).replace(tzinfo=None),
            "finished_at": pd.NaT, "status": "running",
            "config": json.dumps(config, sort_keys=True, default=str), "results": None,
        }])).insert_into("runs")

    def record_run(self, run_id: str, config: dict[str, Any], assignments: pd.DataFrame,
                   results: dict[str, Any]) -> None:
        """Store a finished run (its configuration, assignments and results) under ``run_id``.

        Recording the same ``run_id`` again replaces the earlier record.
        """
        self.con.execute(load_sql("delete_run_assignments"), {"run_id": run_id})
        self.con.execute(load_sql("delete_run_record"), {"run_id": run_id})
        self.start_run(run_id, config)
        self.finish_run(run_id, assignments, results)

    def finish_run(self, run_id: str, assignments: pd.DataFrame, results: dict[str, Any],
                   status: str = "completed") -> None:
        """Store a run's assignments and results in one transaction."""
        frame = assignments.assign(run_id=run_id).reindex(columns=ASSIGNMENT_COLUMNS)
        self.con.begin()
        try:
            self.con.execute(load_sql("delete_run_assignments"), {"run_id": run_id})
            if len(frame):
                self.con.from_df(frame).insert_into("assignments")
            self.con.execute(load_sql("finish_run"), {
                "finished_at": datetime.now(UTC).replace(tzinfo=None), "status": status,
                "results": json.dumps(results, sort_keys=True, default=str), "run_id": run_id})
            self.con.commit()
        except BaseException:
            self.con.rollback()
            raise


def _parse_frames(parses: Sequence[ParsedDocument]) -> tuple[pd.DataFrame, pd.DataFrame]:
    sentence_rows: list[tuple] = []
    token_rows: list[tuple] = []
    for parsed in parses:
        for sent_id, sentence in enumerate(parsed.sentences):
            text = "".join(t.text + (" " if t.whitespace_after else "")
                           for t in sentence.tokens).strip()
            sentence_rows.append((parsed.doc_id, sent_id, text, len(sentence.tokens)))
            token_rows.extend(
                (parsed.doc_id, sent_id, i, t.text, t.lemma, t.upos, t.tag, t.head, t.dep,
                 t.ent_type)
                for i, t in enumerate(sentence.tokens))
    return (pd.DataFrame(sentence_rows, columns=SENTENCE_COLUMNS),
            pd.DataFrame(token_rows, columns=TOKEN_COLUMNS))
