"""Writes the machine refuses (a full disk, a quota, an I/O error): the error names the file, a
file written whole leaves no partial file behind, the fault is recognised however it is
raised (an ``OSError``, DuckDB's message, raised while handling another error), and the
retry policy does not retry it. The command line's one line for it: tests/test_cli_failures.py.
"""

from __future__ import annotations

import errno
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.errors import InputError, StoreLockedError, write_fault, write_fault_in_text
from aesi_lib.files import replacing, writing
from aesi_lib.parse.parallel import ParsePoolClosed, ParseWorkerError
from aesi_lib.parse.types import ParsedDocument
from aesi_lib.steps.retry import worth_retrying
from aesi_lib.store import Store
from aesi_lib.store.database import ENTITY_COLUMNS, journal_path, read_journal


def _full_disk() -> OSError:
    """What a ``write`` or ``close`` on a full disk raises: an errno and no file name."""
    return OSError(errno.ENOSPC, "No space left on device")


def test_writing_names_the_file_an_error_does_not_name(tmp_path):
    target = tmp_path / "out.csv"
    with pytest.raises(OSError) as raised, writing(target):
        raise _full_disk()
    assert raised.value.filename == str(target)
    assert raised.value.errno == errno.ENOSPC
    # An error that names its own file keeps it.
    with pytest.raises(OSError) as raised, writing(target):
        raise FileNotFoundError(errno.ENOENT, "No such file", "/elsewhere")
    assert raised.value.filename == "/elsewhere"


@pytest.mark.parametrize("unique", [False, True])
def test_a_failed_replacement_keeps_the_old_file_and_leaves_no_part(tmp_path, unique):
    target = tmp_path / "sub" / "table.parquet"
    with replacing(target, unique=unique) as tmp:
        tmp.write_text("complete")
    assert target.read_text() == "complete"
    with pytest.raises(OSError) as raised, replacing(target, unique=unique) as tmp:
        tmp.write_text("half of it")
        raise _full_disk()
    assert raised.value.filename == str(target)
    assert target.read_text() == "complete"
    assert sorted(p.name for p in target.parent.iterdir()) == ["table.parquet"]


def test_a_fault_is_found_by_its_errno_its_message_or_its_cause():
    on_disk = _full_disk()
    on_disk.filename = "/p/out/assignments.csv"
    fault = write_fault(on_disk)
    assert fault is not None and fault.path == "/p/out/assignments.csv"
    assert fault.message() == ("no space left on device writing /p/out/assignments.csv: free "
                               "space there and rerun the same command; nothing done is lost "
                               "(the finished steps are kept)")
    # DuckDB's error carries no errno; a failed rollback raised while handling it hides it.
    duck = duckdb.TransactionException('TransactionContext Error: Failed to commit: Could not '
                                       'write file "/p/aesi.duckdb.wal": No space left on device')
    try:
        try:
            raise duck
        except duckdb.TransactionException:
            raise RuntimeError("cannot rollback - no transaction is active") from None
    except RuntimeError as hiding:
        hiding.__context__ = duck
        fault = write_fault(hiding)
    assert fault is not None and fault.path == "/p/aesi.duckdb.wal"
    assert write_fault(OSError(errno.EDQUOT, "Disk quota exceeded")).reason == \
        "disk quota exceeded"
    io = write_fault(OSError(errno.EIO, "Input/output error"))
    assert io.message("a file in /p") == ("I/O error on a file in /p: check the device (its "
                                          "kernel log: dmesg) and rerun the same command; "
                                          "nothing done is lost (the finished steps are kept)")
    # Other errors are no fault of the machine's.
    for other in (ValueError("bad value"), FileNotFoundError(errno.ENOENT, "gone"),
                  InputError("/x.txt", "empty file"), None):
        assert write_fault(other) is None
    assert write_fault_in_text("Finished in state Failed('Task run encountered an exception "
                               "OSError: [Errno 28] No space left on device')") is not None
    assert write_fault_in_text("Finished in state Completed()") is None


def test_faults_user_errors_and_stopped_parse_workers_are_not_retried():
    assert not worth_retrying(_full_disk())
    assert not worth_retrying(OSError(errno.EIO, "Input/output error"))
    assert not worth_retrying(InputError("/x.txt", "empty file"))
    assert not worth_retrying(ParsePoolClosed("shut down"))
    # Passing troubles are retried: a worker that died (memory), a store locked a moment.
    assert worth_retrying(ParseWorkerError("worker died"))
    assert worth_retrying(StoreLockedError("locked"))
    assert worth_retrying(OSError(errno.EAGAIN, "try again"))


class _CommitFailsLikeAFullDisk:
    """A DuckDB connection whose commit fails as on a full disk: DuckDB ends the transaction
    itself, so a rollback after it finds none."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def __getattr__(self, name: str):
        return getattr(self._con, name)

    def commit(self) -> None:
        self._con.rollback()
        raise duckdb.TransactionException(
            'TransactionContext Error: Failed to commit: Could not write file '
            '"/p/aesi.duckdb.wal": No space left on device')


def test_a_store_write_that_fails_to_commit_reports_the_commit(tmp_path: Path):
    with Store(tmp_path / "aesi.duckdb") as store:
        store.con = _CommitFailsLikeAFullDisk(store.con)
        with pytest.raises(duckdb.TransactionException, match="No space left on device"):
            store.replace_documents([Document("D1", "A bomb exploded.", "user", "x")],
                                    [ParsedDocument("D1", ())],
                                    pd.DataFrame(columns=ENTITY_COLUMNS), "cfg")
        store.con = store.con._con
        assert store.document_ids() == []
    # The journal may hold the document (it is written before the commit: a superset).
    assert [d.doc_id for d in read_journal(journal_path(tmp_path / "aesi.duckdb"))] in (
        [], ["D1"])
