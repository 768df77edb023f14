"""The checks of ``flows.cli.environment`` in this process: writable folders, the store file's
name, the Prefect API check, and signals turned into exceptions."""

from __future__ import annotations

import os
import signal
import socket

import pytest

from aesi_lib.errors import ApiUnreachableError, NotWritableError
from aesi_lib.store.database import DEFAULT_KEEP_RUNS
from flows.cli import commands
from flows.cli.environment import (
    STORE_FILE,
    Terminated,
    check_api,
    check_file_writable,
    check_writable,
    signals_as_exceptions,
    store_path,
)


def test_a_missing_folder_under_a_writable_one_passes_and_is_not_created(tmp_path):
    target = tmp_path / "a" / "b" / "out"
    check_writable(target, "--out")
    assert not (tmp_path / "a").exists()
    assert list(tmp_path.iterdir()) == []          # the probe file is gone too


def test_a_file_in_the_way_is_named(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("x")
    with pytest.raises(NotWritableError) as err:
        check_writable(blocker / "deep" / "out", "--out")
    assert str(err.value) == (f"{blocker}/deep/out: --out cannot be created: {blocker} is a "
                              "file, not a folder")
    with pytest.raises(NotWritableError, match="--project-dir is a file, not a folder"):
        check_writable(blocker, "--project-dir")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders and files")
def test_read_only_folder_and_file(tmp_path):
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "f").write_text("x")
    (tmp_path / "ro" / "f").chmod(0o444)
    (tmp_path / "ro").chmod(0o555)
    try:
        with pytest.raises(NotWritableError, match="--out is not writable"):
            check_writable(tmp_path / "ro", "--out")
        with pytest.raises(NotWritableError, match="--json is not writable"):
            check_file_writable(tmp_path / "ro" / "f", "--json")
    finally:
        (tmp_path / "ro").chmod(0o755)


def test_the_store_file_is_the_projects(tmp_path):
    from flows.common import Project

    assert store_path(tmp_path) == tmp_path.resolve() / STORE_FILE
    assert Project.at(tmp_path).db == str(store_path(tmp_path))
    assert commands.KEEP_RUNS_DEFAULT == DEFAULT_KEEP_RUNS


def test_an_api_that_does_not_answer(monkeypatch):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api"
    monkeypatch.setenv("PREFECT_API_URL", url)
    with pytest.raises(ApiUnreachableError) as err:
        check_api(url)
    assert str(err.value).startswith(f"the Prefect API at {url} (set by PREFECT_API_URL) is "
                                     "unreachable (")
    assert "\n" not in str(err.value)
    monkeypatch.delenv("PREFECT_API_URL")
    with pytest.raises(ApiUnreachableError, match="prefect config unset PREFECT_API_URL"):
        check_api(url)


def test_sigterm_becomes_terminated_and_the_handlers_come_back():
    import logging

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    filters = {h: list(h.filters) for h in logging.getLogger().handlers}
    with pytest.raises(Terminated):
        with signals_as_exceptions():
            os.kill(os.getpid(), signal.SIGTERM)
            signal.pause() if hasattr(signal, "pause") else None
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
    with pytest.raises(KeyboardInterrupt):
        with signals_as_exceptions():
            os.kill(os.getpid(), signal.SIGINT)
            signal.pause() if hasattr(signal, "pause") else None
    # The console's log handlers were silenced while interrupted, and are not any more.
    assert {h: list(h.filters) for h in logging.getLogger().handlers} == filters
