"""The checks of ``aesi_cli.environment`` in this process: writable folders, the store file's
name, the Prefect API check, and signals turned into exceptions."""

from __future__ import annotations

import os
import signal
import socket

import pytest

from aesi_cli import commands
from aesi_cli.environment import (
    STORE_FILE,
    Terminated,
    check_api,
    check_file_writable,
    check_writable,
    signals_as_exceptions,
    store_path,
)
from aesi_lib.errors import ApiUnreachableError, NotWritableError
from aesi_lib.store.database import DEFAULT_KEEP_RUNS


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
    from aesi_lib.steps.graph import Project

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


@pytest.mark.parametrize(("signum", "status", "word"),
                         [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_whatever_the_engine_raises_after_a_signal_ends_as_the_signal(
        monkeypatch, capsys, signum, status, word):
    """Prefect can turn the KeyboardInterrupt of Ctrl-C into a ValueError ("Task run is not
    set") on its way out; the command still ends with one line and the signal's status."""
    import argparse
    import logging

    import aesi_cli as cli

    def command(args):
        try:
            os.kill(os.getpid(), signum)
            signal.pause() if hasattr(signal, "pause") else None
        except BaseException:
            raise ValueError("Task run is not set") from None

    class Parser:
        def parse_args(self, argv):
            return argparse.Namespace(func=command, verbose=False)

    from aesi_cli import environment

    root = logging.getLogger()
    filters = {h: list(h.filters) for h in root.handlers}
    monkeypatch.setattr(cli, "build_parser", Parser)
    try:
        assert cli.main([]) == status
    finally:
        environment._unsilence_console()        # main silences the console for good
        for handler in list(root.handlers):
            if handler in filters:
                handler.filters[:] = filters[handler]
            else:
                root.removeHandler(handler)
    err = capsys.readouterr().err
    assert err.strip() == f"aesi: {word}; rerun the same command to resume"


def test_a_signal_during_garbage_collection_is_not_lost():
    """A KeyboardInterrupt raised inside a ``__del__`` would be printed and dropped."""
    import time

    class Finalised:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)

    with pytest.raises(KeyboardInterrupt):
        with signals_as_exceptions() as received:
            obj = Finalised()
            del obj
            time.sleep(5)
    assert received.signum == signal.SIGINT


def test_an_error_without_a_signal_is_raised_as_it_is(monkeypatch):
    import argparse

    import aesi_cli as cli

    def command(args):
        raise ValueError("a bug")

    class Parser:
        def parse_args(self, argv):
            return argparse.Namespace(func=command, verbose=False)

    monkeypatch.setattr(cli, "build_parser", Parser)
    with pytest.raises(ValueError, match="a bug"):
        cli.main([])
