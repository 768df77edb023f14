"""What a command needs from its surroundings, checked before it does any work: Prefect's
environment, folders it can write, a readable project store, the Prefect API when one is
configured (else the flow runs in the command's own process), and signals that end it
cleanly.

Every check fails with an ``AesiError`` (one line, exit status 2) that names the path or URL and
the way out; nothing here imports Prefect before :func:`prefect_environment` has run.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import logging
import os
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from aesi_lib.errors import (
    AesiError,
    ApiUnreachableError,
    NotWritableError,
    write_fault,
    write_fault_in_text,
)

STORE_FILE = "aesi.duckdb"
"""The store's file name inside a project folder (``aesi_lib.steps.graph.Project.db``)."""
API_CHECK_TIMEOUT_S = 5.0
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

log = logging.getLogger("aesi")


def telemetry_off() -> None:
    """No analytics from Prefect or its server, for this process and those it starts (values
    already in the environment win). Prefect's client starts its analytics when ``prefect`` is
    imported, so this must run before that: :func:`aesi_cli.main` calls it once, first."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")


def prefect_environment() -> None:
    """Offline Prefect that logs at INFO (telemetry is off already: :func:`telemetry_off`;
    the cached steps keep their results in the project folder themselves,
    ``aesi_lib.steps.graph.Project.results``).

    Must run before ``prefect`` is imported. Values already in the environment win.
    """
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO")
    # Prefect's own ephemeral API server (a flow run under Prefect with no API configured)
    # needs more than the default 20 s on a busy small machine.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    quiet_failures()


# -- writable outputs ---------------------------------------------------------------------


def check_writable(path: str | Path, what: str) -> None:
    """Fail now, not after the run, when the folder ``path`` cannot be created or written.

    The folder need not exist: its nearest existing parent must then be a writable folder.
    Writability is tried (a temporary file is created and removed), not inferred from the
    permission bits, so read-only file systems count and root's exemption does not mislead.

    Parameters
    ----------
    path : the folder the command writes into.
    what : how the error names it (``--out``, ``--project-dir``).

    Raises
    ------
    NotWritableError
        With the path, what it is for and why it cannot be written.
    """
    target = Path(path).expanduser()
    probe = target.absolute()
    while not _exists(probe) and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        problem = ("is a file, not a folder" if probe == target.absolute()
                   else f"cannot be created: {probe} is a file, not a folder")
        raise NotWritableError(target, f"{what} {problem}")
    try:
        fd, name = tempfile.mkstemp(dir=probe, prefix=".aesi-write-check-")
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        where = "" if probe == target.absolute() else f" (its parent {probe} is not writable)"
        raise NotWritableError(target, f"{what} is not writable{where}: "
                               f"{exc.strerror or exc}") from exc


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:             # e.g. a parent that may not be searched: look further up
        return False


def check_file_writable(path: str | Path, what: str) -> None:
    """An existing file the command will change must open for writing (it is not changed)."""
    path = Path(path)
    if not path.exists():
        return
    try:
        with path.open("r+b"):
            pass
    except OSError as exc:
        raise NotWritableError(path, f"{what} is not writable: {exc.strerror or exc}") from exc


def store_path(project_dir: str | Path) -> Path:
    return Path(project_dir).expanduser().resolve() / STORE_FILE


def check_project(project_dir: str | Path, what: str = "--project-dir") -> None:
    """The project folder is writable and its store, when there is one, is readable to the last
    row (a damaged file is reported with the way to rebuild it before any work starts)."""
    check_writable(project_dir, what)
    check_store(project_dir, what)


def check_store(project_dir: str | Path, what: str = "--project-dir") -> None:
    """The project's store, when there is one, opens for writing and is readable to the last
    row (:func:`check_project` without the folder's check)."""
    db = store_path(project_dir)
    if not db.exists():
        return
    check_file_writable(db, f"the project database in {what}")
    from aesi_lib.store import Store

    with Store(db, read_only=True) as store:
        store.check_readable()


# -- the Prefect API ----------------------------------------------------------------------


def _api_source() -> tuple[str, str]:
    """Where the configured API URL comes from, and how to unset it."""
    if os.environ.get("PREFECT_API_URL"):
        return "set by PREFECT_API_URL", "unset PREFECT_API_URL"
    return ("set in the active Prefect profile",
            "remove it with `prefect config unset PREFECT_API_URL`")


def check_api(url: str) -> None:
    """Fail when nothing answers at ``url`` (any HTTP answer counts: Prefect Cloud answers
    ``/health`` without credentials too).

    Raises
    ------
    ApiUnreachableError
        One line with the URL, where it was set, the reason and the two ways out.
    """
    import httpx

    try:
        httpx.get(url.rstrip("/") + "/health", timeout=API_CHECK_TIMEOUT_S)
    except httpx.HTTPError as exc:
        reason = str(exc).strip() or type(exc).__name__
        source, unset = _api_source()
        raise ApiUnreachableError(
            f"the Prefect API at {url} ({source}) is unreachable ({reason}): start that "
            f"server (`prefect server start`) or {unset} to run the flow in this process"
        ) from exc


def check_configured_api() -> None:
    """The Prefect API that ``PREFECT_API_URL`` or the profile names, if any, answers
    (:func:`check_api`); none configured is fine (the flow then runs in this process:
    :func:`flow_runner`). Call after :func:`prefect_environment`."""
    from prefect.settings import get_current_settings

    url = get_current_settings().api.url
    if url:
        check_api(url)


def _drain_prefect(timeout: float = 10.0) -> None:
    """Send the run's last log records and events while the server is still up."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for worker in (APILogWorker, EventsWorker):
        with contextlib.suppress(Exception):
            worker.drain_all(timeout=timeout)


def configured_api() -> str | None:
    """The Prefect API URL that ``PREFECT_API_URL`` or the active profile names, if any.
    Call after :func:`prefect_environment`."""
    from prefect.settings import get_current_settings

    return get_current_settings().api.url or None


@contextlib.contextmanager
def flow_runner(args: argparse.Namespace, module: str, name: str
                ) -> Iterator[Callable[..., Any]]:
    """The flow ``name`` of ``module`` as the command calls it, for the ``with`` block.

    With no Prefect API configured, the flow runs in this process
    (``aesi_flows.in_process.run_flow``): no server is started, its steps are cached in the
    project as under Prefect, and under ``--dask`` the steps it spreads run on the cluster's
    workers (a local one, ended with the block, or the scheduler at ``--dask ADDRESS``).
    With an API configured (which must answer) it runs as a Prefect flow run that reports
    to it, with the task runner the options ask for. Call after
    :func:`prefect_environment`.

    Raises
    ------
    ApiUnreachableError
        The configured API does not answer.
    """
    from aesi_cli.options import dask_options, with_runner

    url = configured_api()
    if url is not None:
        check_api(url)
        try:
            yield with_runner(getattr(importlib.import_module(module), name), args)
        finally:
            _drain_prefect()
        return
    from aesi_flows.in_process import run_flow
    from aesi_lib.steps.executor import dask_cluster

    log.info("no Prefect API configured: the flow runs in this process (set "
             "PREFECT_API_URL to record its runs in a Prefect server)")
    flow = getattr(importlib.import_module(module), name)
    cluster = dask_options(args)
    if cluster is None:
        yield functools.partial(run_flow, flow)
        return
    with dask_cluster(**cluster) as client:
        yield functools.partial(run_flow, flow, dask=client)


# -- signals ------------------------------------------------------------------------------


class Terminated(BaseException):  # noqa: N818 - a signal, like KeyboardInterrupt
    """SIGTERM as an exception, so that ``finally`` blocks (parse workers, the project
    lock) run."""


class _Silence(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


_SILENCED: list[tuple[logging.Handler, logging.Filter]] = []


def _silence_console() -> None:
    """Stop log records reaching the terminal: after an interruption, Prefect reports the crash
    of the flow and its task runs (with tracebacks) to the console; the API still gets them.
    A handler that fails meanwhile (Prefect's API handler once the server is gone)
    stays quiet too, instead of printing "--- Logging error ---" and its traceback."""
    logging.raiseExceptions = False
    loggers = [logging.getLogger()] + [lg for lg in logging.Logger.manager.loggerDict.values()
                                       if isinstance(lg, logging.Logger)]
    for logger in loggers:
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler) and not any(
                    isinstance(f, _Silence) for f in handler.filters):
                silence = _Silence()
                handler.addFilter(silence)
                _SILENCED.append((handler, silence))


class _QuietFailures(logging.Filter):
    """What Prefect logs of a failure that ``aesi`` reports in one line itself.

    A user error (``AesiError``: bad option, missing file) keeps its record without the
    traceback, which says nothing to the user. A write the machine refused (a full disk, an
    I/O error: ``aesi_lib.errors.write_fault``) and parse workers stopped because the command
    is ending (``ParsePoolClosed``: Ctrl-C, SIGTERM) end the command: from the first record
    of one, the console hears nothing more (:func:`_silence_console`; the API keeps every
    record). With ``-v`` (debug) everything stays.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if logging.getLogger().isEnabledFor(logging.DEBUG):
            return True
        from aesi_lib.parse.parallel import ParsePoolClosed

        error = record.exc_info[1] if record.exc_info else None
        # A task's final state ("Finished in state Failed(...)") names its exception in the
        # message only.
        message = record.getMessage()
        if write_fault(error) is not None or isinstance(error, ParsePoolClosed) \
                or ParsePoolClosed.__name__ in message or write_fault_in_text(message):
            _silence_console()
            return False
        if isinstance(error, AesiError):
            record.exc_info = None
            record.exc_text = None
        return True


def quiet_failures() -> None:
    """Install :class:`_QuietFailures` on the loggers of Prefect's task and flow runs (once;
    it survives Prefect's own logging set-up)."""
    for name in ("prefect.task_runs", "prefect.flow_runs"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _QuietFailures) for f in logger.filters):
            logger.addFilter(_QuietFailures())


def _unsilence_console() -> None:
    while _SILENCED:
        handler, silence = _SILENCED.pop()
        handler.removeFilter(silence)
    logging.raiseExceptions = True


_SIGNAL_RETRY_S = 0.05


def _in_finaliser(frame: FrameType | None) -> bool:
    """Whether the signal arrived while a ``__del__`` method runs (garbage collection)."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


@dataclass
class SignalsReceived:
    """What :func:`signals_as_exceptions` saw: the first SIGINT or SIGTERM of its block.

    Prefect's engine can turn the exception a signal raised into another one (a
    ``ValueError`` when a task run's context is torn down half-way), so the command line asks
    this, not the exception's type, whether the command was interrupted."""

    signum: int | None = None

    def exception(self) -> BaseException:
        """The exception that stands for the first signal (KeyboardInterrupt or Terminated)."""
        return _signal_exception(self.signum)


def _signal_exception(signum: int | None) -> BaseException:
    return Terminated(signum) if signum == signal.SIGTERM else KeyboardInterrupt()


@contextlib.contextmanager
def signals_as_exceptions(stay_quiet: bool = False) -> Iterator[SignalsReceived]:
    """Within the block, SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated`,
    and either silences the console's log output (see :func:`_silence_console`) until the
    block ends, or for good with ``stay_quiet`` (the command line: the process is ending).
    Yields a :class:`SignalsReceived` that records the first signal. Prefect's flow engine
    swaps in its own SIGTERM handler while a flow runs and calls this one after recording the
    crash. Outside the main thread, nothing changes."""
    received = SignalsReceived()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if received.signum is None:
            received.signum = signum
        _silence_console()
        if _in_finaliser(frame):
            # Python prints and drops an exception raised in a __del__ ("Exception ignored
            # in ..."), and the command would run on: deliver the signal again just after.
            threading.Timer(_SIGNAL_RETRY_S, os.kill, (os.getpid(), signum)).start()
            return
        raise _signal_exception(signum)

    try:
        before = {signal.SIGINT: signal.signal(signal.SIGINT, on_signal),
                  signal.SIGTERM: signal.signal(signal.SIGTERM, on_signal)}
    except ValueError:          # not the main thread
        yield received
        return
    try:
        yield received
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        if not stay_quiet:
            _unsilence_console()
