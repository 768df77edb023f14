"""DuckDB store: open with a clear lock or damage error, content-hash upserts, entity table and
PMI, deleting documents, pruning old runs' assignments, and the document journal beside the
database that lets a damaged store be rebuilt."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from aesi_lib.corpus.types import Document
from aesi_lib.entities.rules import ENTITY_COLUMNS as RECORD_COLUMNS
from aesi_lib.errors import InputError, StoreDamagedError, StoreLockedError
from aesi_lib.files import replacing, writing
from aesi_lib.parse.types import ParsedDocument

DOCUMENT_COLUMNS = ["doc_id", "split", "source", "sha256", "text", "header", "parse_config",
                    "added_at", "original"]
SENTENCE_COLUMNS = ["doc_id", "sent_id", "text", "n_tokens"]
TOKEN_COLUMNS = ["doc_id", "sent_id", "token_id", "text", "lemma", "upos", "tag", "head", "dep",
                 "ent_type"]
ENTITY_COLUMNS = list(RECORD_COLUMNS)
ASSIGNMENT_COLUMNS = ["run_id", "doc_id", "sent_id", "entity_id", "head", "mention", "predicate",
                      "dep", "template", "slot"]
JOURNAL_FIELDS = ["doc_id", "split", "source", "sha256", "header", "parse_config", "text",
                  "original"]
#: Pairs of head words seen together in fewer documents get PMI 0 (``sql/head_pmi.sql``):
#: every pair a document shares counts, and no preset asks for more support.
MIN_PAIR_DOCS = 1
DEFAULT_KEEP_RUNS = 3
"""Runs whose assignments :meth:`Store.record_run` keeps (the newest ones)."""


@cache
def load_sql(name: str) -> str:
    """Text of ``sql/<name>.sql`` shipped with the package."""
    return resources.files("aesi_lib.store").joinpath("sql", f"{name}.sql").read_text()


def document_sha256(text: str) -> str:
    """Content hash of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def document_hash(doc: Document) -> str:
    """The hash that decides whether a stored document changed: of its text, and of its
    original when the reader normalised it (a change of layout alone moves the offsets)."""
    if not doc.original:
        return document_sha256(doc.text)
    return document_sha256(doc.text + "\x1e" + doc.original)


def journal_path(db_path: str | Path) -> Path:
    """The document journal of the database at ``db_path``: ``<stem>.documents.jsonl`` beside it.

    One JSON line per stored document (``{"op": "put", doc_id, split, source, sha256, header,
    parse_config, text}``) or deletion (``{"op": "delete", "doc_id"}``), appended by the writes
    that change the ``documents`` table; the last line of a ``doc_id`` wins. The parse cache
    keeps parses by text hash but neither texts nor ids, so this is what a damaged store is
    rebuilt from.
    """
    path = Path(db_path)
    return path.with_name(f"{path.stem}.documents.jsonl")


def read_journal(path: str | Path) -> list[Document]:
    """The documents a journal (:func:`journal_path`) holds now, sorted by id.

    A last line cut short by a crash is ignored; any other unreadable line is an error.

    Raises
    ------
    InputError
        The file is missing or has a malformed line (named with its number).
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read the document journal: {exc}") from exc
    live: dict[str, Document] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if record["op"] == "put":
                live[record["doc_id"]] = Document(record["doc_id"], record["text"],
                                                  record["split"], record["source"],
                                                  record.get("header", ""),
                                                  record.get("original") or "")
            elif record["op"] == "delete":
                live.pop(record["doc_id"], None)
            else:
                raise ValueError(f"unknown op {record['op']!r}")
        except (ValueError, KeyError, TypeError) as exc:
            if number == len(lines):
                break               # a last line without its newline: cut short by a crash
            raise InputError(path, f"line {number} is not a journal record ({exc})") from exc
    return [live[doc_id] for doc_id in sorted(live)]


def recovery_hint(db_path: str | Path) -> str:
    """What to do about a damaged database at ``db_path`` (one sentence for an error line)."""
    path = Path(db_path)
    project = path.parent
    cache = project / "parse-cache"
    journal = journal_path(path)
    if journal.is_file():
        return (f"Run `aesi store rebuild --project-dir {project}`: it moves the file aside and "
                f"stores again the documents of {journal} (parses from {cache}, nothing is "
                "parsed again); the store's records of past runs are lost (each run's --out "
                "folder keeps its results.json and export)")
    return (f"Move it aside (mv {path} {path}.damaged) and rerun `aesi run` with the same "
            f"corpus: its documents are read again and their parses come from {cache}; no "
            f"journal of stored documents exists ({journal.name}), so documents added with "
            "`aesi update` must be given again with `aesi update --docs`, and the store's "
            "records of past runs are lost")


def _damaged(path: Path, exc: BaseException) -> StoreDamagedError:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreDamagedError(path, f"the project database is damaged ({reason}). "
                             f"{recovery_hint(path)}.")


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
    StoreDamagedError
        The file exists but is not a readable DuckDB database (an ``InputError`` whose message
        says how to recover: :func:`recovery_hint`).

    Notes
    -----
    A writer keeps the document journal (:func:`journal_path`): it writes one from the
    ``documents`` table when an existing store has none, and sets an old journal aside
    (``.jsonl.<time>.old``) when it creates a new database file beside it.
    """

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists()
        try:
            self.con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise StoreLockedError(
                    f"{self.path}: the project database is in use by another aesi process "
                    f"({exc}). Wait for that run to finish, or give this run another "
                    "--project-dir."
                ) from exc
            raise _damaged(self.path, exc) from exc
        except duckdb.Error as exc:
            raise _damaged(self.path, exc) from exc
        self.journal = journal_path(self.path)
        if not read_only:
            try:
                self.con.execute(load_sql("create_schema"))
            except duckdb.Error as exc:
                self.con.close()
                raise _damaged(self.path, exc) from exc
            self._start_journal(existed)

    # -- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rollback(self) -> None:
        """Undo the open transaction. A commit that failed (a full disk: the WAL could not be
        written) has ended it already, and the error to report is the commit's, not the
        rollback's "no transaction is active"."""
        with contextlib.suppress(duckdb.TransactionException):
            self.con.rollback()

    def check_readable(self) -> dict[str, int]:
        """Read every row of every table the file has (``sql/table_checksum.sql``, whatever
        schema version made the file); row counts per table.

        A truncated or overwritten file can open and fail only when a query reaches the
        damaged blocks; this finds that before a run starts.

        Raises
        ------
        StoreDamagedError
            Some block of the file cannot be read.
        """
        counts: dict[str, int] = {}
        try:
            for (table,) in self.con.execute(load_sql("store_tables")).fetchall():
                row = self.con.execute(load_sql("table_checksum"), {"table_name": table})
                counts[table] = int(row.fetchone()[0])
        except duckdb.Error as exc:
            raise _damaged(self.path, exc) from exc
        return counts

    # -- document journal ----------------------------------------------------------------
    def _start_journal(self, existed: bool) -> None:
        if not existed and self.journal.exists():
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
            self.journal.replace(self.journal.with_name(f"{self.journal.name}.{stamp}.old"))
        if existed and not self.journal.exists():
            records = self.con.execute(load_sql("document_records")).df()
            if len(records):
                with replacing(self.journal) as tmp:
                    tmp.write_text(_journal_lines(
                        {"op": "put", **r} for r in records.to_dict("records")),
                        encoding="utf-8")

    def _append_journal(self, records: Iterable[dict[str, Any]]) -> None:
        with writing(self.journal), self.journal.open("a", encoding="utf-8") as fh:
            fh.write(_journal_lines(records))
            fh.flush()
            os.fsync(fh.fileno())

    # -- documents -----------------------------------------------------------------------
    def stored_hashes(self) -> dict[str, tuple[str, str | None]]:
        """doc_id -> (sha256, parse_config) of every stored document."""
        rows = self.con.execute(load_sql("document_hashes")).fetchall()
        return {doc_id: (sha, cfg) for doc_id, sha, cfg in rows}

    def documents_to_parse(self, docs: Sequence[Document], parse_config: str) -> list[Document]:
        """The documents whose text or parse configuration differs from the stored copy."""
        stored = self.stored_hashes()
        return [d for d in docs
                if stored.get(d.doc_id) != (document_hash(d), parse_config)]

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
            (d.doc_id, d.split, d.source, document_hash(d), d.text, d.header,
             parse_config, now, d.original) for d in docs], columns=DOCUMENT_COLUMNS)
        sentence_frame, token_frame = parse_frames(parses)
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
            # Journal first, then commit: a crash in between leaves the journal a superset.
            self._append_journal(
                {"op": "put", **{k: r[k] for k in JOURNAL_FIELDS}}
                for r in doc_frame.to_dict("records"))
            self.con.commit()
        except BaseException:
            self._rollback()
            raise

    def delete_documents(self, doc_ids: Iterable[str] = (), splits: Iterable[str] = ()
                         ) -> dict[str, int]:
        """Delete documents (named, and every one of ``splits``) with their sentences, tokens
        and entities, in one transaction. The parse cache keeps their
        parses; the assignments of recorded runs stay (they are those runs' results).

        Returns
        -------
        dict
            Rows removed per table (``documents``, ``sentences``, ``tokens``, ``entities``).

        Raises
        ------
        InputError
            A named id is not in the store, or a split has no documents: nothing is deleted.
        """
        doc_ids, splits = list(doc_ids), list(splits)
        stored = set(self.document_ids())
        unknown = [d for d in doc_ids if d not in stored]
        if unknown:
            raise InputError(self.path, f"{len(unknown)} of the ids given are not in the store "
                             f"({', '.join(unknown[:5])}{', ...' if len(unknown) > 5 else ''}); "
                             "nothing was deleted")
        empty = [s for s in splits if not self.document_ids([s])]
        if empty:
            raise InputError(self.path, f"no stored documents in split {', '.join(empty)} "
                             f"(splits here: {', '.join(sorted(self._all_splits())) or 'none'}); "
                             "nothing was deleted")
        doomed = sorted(set(doc_ids) | set(self.document_ids(splits) if splits else []))
        if not doomed:
            return {"documents": 0, "sentences": 0, "tokens": 0, "entities": 0}
        self.con.begin()
        try:
            self.con.register("doomed", pd.DataFrame({"doc_id": doomed}))
            counts = self.con.execute(load_sql("document_row_counts")).df().iloc[0]
            self.con.execute(load_sql("delete_document_rows"))
            self.con.unregister("doomed")
            self._append_journal({"op": "delete", "doc_id": d} for d in doomed)
            self.con.commit()
        except BaseException:
            self._rollback()
            raise
        return {name: int(counts[name]) for name in counts.index}

    def _query_with(self, query: str, name: str, frame: pd.DataFrame,
                    params: dict[str, Any] | None = None) -> pd.DataFrame:
        """Run the named SQL file with ``frame`` visible to it as the table ``name``."""
        self.con.register(name, frame)
        try:
            return self.con.execute(load_sql(query), params).df()
        finally:
            self.con.unregister(name)

    def sentence_texts(self, doc_ids: Iterable[str]) -> pd.DataFrame:
        """``doc_id, sent_id, text`` of every sentence of ``doc_ids``, in document order."""
        return self._query_with("sentence_texts", "wanted_docs",
                                pd.DataFrame({"doc_id": sorted(set(doc_ids))}))

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
        return [Document(r.doc_id, r.text, r.split, r.source, r.header, r.original or "")
                for r in frame.itertuples()]

    # -- entities and PMI ----------------------------------------------------------------
    def entity_table(self, splits: Iterable[str] | None = None) -> pd.DataFrame:
        """Entities of the given splits (all when None), ordered, with ``entity_id``."""
        wanted = pd.DataFrame({"split": list(splits) if splits is not None
                               else self._all_splits()})
        return self._query_with("entity_table", "wanted", wanted)

    def head_pmi(self, doc_ids: Iterable[str] | None = None,
                 min_pair_docs: int = MIN_PAIR_DOCS) -> pd.DataFrame:
        """Document-level PMI between head lemmas (``sql/head_pmi.sql``) over the pairs seen
        together in at least ``min_pair_docs`` documents (:data:`MIN_PAIR_DOCS`).

        Columns ``word1, word2, pmi, pair_docs``, both orders of every pair.
        """
        ids = list(doc_ids) if doc_ids is not None else self.document_ids()
        return self._query_with("head_pmi", "wanted_docs", pd.DataFrame({"doc_id": ids}),
                                {"min_pair_docs": int(min_pair_docs)})

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
                   results: dict[str, Any], keep_runs: int | None = DEFAULT_KEEP_RUNS) -> None:
        """Store a finished run (its configuration, assignments and results) under ``run_id``.

        Recording the same ``run_id`` again replaces the earlier record. Then the assignments
        of all but the ``keep_runs`` newest runs are deleted (:meth:`prune_runs`); None keeps
        every run's.
        """
        self.con.execute(load_sql("delete_run_assignments"), {"run_id": run_id})
        self.con.execute(load_sql("delete_run_record"), {"run_id": run_id})
        self.start_run(run_id, config)
        self.finish_run(run_id, assignments, results)
        if keep_runs is not None:
            self.prune_runs(keep_runs)

    def runs(self) -> pd.DataFrame:
        """Recorded runs, newest first: ``run_id, started_at, status, assignments`` (rows)."""
        return self.con.execute(load_sql("run_assignment_counts")).df()

    def prune_runs(self, keep: int) -> dict[str, Any]:
        """Delete the assignment rows of every run but the ``keep`` most recently started.

        The runs' rows (configuration, results) stay. Returns ``{"rows_deleted", "runs_pruned"
        (ids whose rows went), "runs_kept"}``.
        """
        if keep < 0:
            raise ValueError(f"keep must be >= 0, not {keep}")
        before = self.runs()
        kept = list(before["run_id"][:keep])
        pruned = [r.run_id for r in before.iloc[keep:].itertuples() if r.assignments]
        deleted = self.con.execute(load_sql("delete_old_run_assignments"),
                                   {"keep": int(keep)}).fetchone()
        rows = int(deleted[0]) if deleted else 0
        if rows:
            self.con.execute("CHECKPOINT")      # give the deleted blocks back to the file
        return {"rows_deleted": rows, "runs_pruned": pruned, "runs_kept": kept}

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
            self._rollback()
            raise


def _journal_lines(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)


def parse_frames(parses: Sequence[ParsedDocument]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sentence rows (``SENTENCE_COLUMNS``: a sentence's text is its tokens joined as the
    parser found them) and token rows (``TOKEN_COLUMNS``) of ``parses``, as the store keeps
    them."""
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
