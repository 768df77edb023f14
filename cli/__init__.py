"""The ``aesi`` command line: the outer shell around the flows and the library (installed and
imported as ``aesi_cli``; the folder is ``cli/``).

Subcommands: ``run`` (the main flow), ``update`` (incremental flow), ``extract`` (slot filling
with an existing schema), ``evaluate`` (score an export), ``report`` (schema report of a run),
``sweep`` (configurations × seeds), ``delete``, ``store rebuild`` / ``store prune`` and
``worker`` (the deployments' Prefect worker). Errors
aesi raises on purpose (``AesiError``) print one line and exit with status 2; a write the
machine refused (a full disk, an I/O error: ``aesi_lib.errors.write_fault``) prints one line
naming the file and exits with status 1; Ctrl-C (SIGINT)
and SIGTERM end a command cleanly (its parse workers stopped, its project lock released) with
one line and status 130 or 143. A command runs its flow in its own process unless a Prefect
API is configured (:func:`aesi_cli.environment.flow_runner`).
:mod:`aesi_cli.parser` builds the parser, :mod:`aesi_cli.commands` runs the
commands, :mod:`aesi_cli.options` holds the shared options and
:mod:`aesi_cli.printing` what they print.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import logging
import sys
from pathlib import Path

from aesi_cli.environment import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    SignalsReceived,
    Terminated,
    signals_as_exceptions,
    telemetry_off,
)
from aesi_cli.parser import build_parser
from aesi_lib.errors import AesiError, write_fault

EXIT_WRITE_FAULT = 1
"""A write the machine refused (full disk, I/O error) stopped the command in its work."""
QUIET_LOGGERS = ("httpx", "httpcore", "gensim", "urllib3", "distributed", "asyncio")

__all__ = ["build_parser", "main"]


class _StepName(logging.Filter):
    """Names each log line after what it is about: the task run (``solve-4e2``) or flow run
    Prefect tags it with, else the logger. Prefect's own ``Finished in state Completed()``
    lines then say which step finished."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.step = (getattr(record, "task_run_name", None)
                       or getattr(record, "flow_run_name", None) or record.name)
        return True


def _written_folders(args: argparse.Namespace) -> str:
    """The folders a command writes, for an error that does not say which file it wrote."""
    folders = [str(Path(p).expanduser().resolve())
               for p in (getattr(args, "project_dir", None), getattr(args, "out", None)) if p]
    return "a file in " + " or ".join(folders) if folders else ""


def main(argv: list[str] | None = None) -> int:
    # Before any command imports Prefect; the processes it starts (parse and Dask workers,
    # `aesi worker`'s flow runs) inherit it.
    telemetry_off()
    # The interpreter's last garbage collections, as it exits, walk every object a run leaves
    # (1-3 s after a MUC-4 run on a busy 2-core machine) to free memory that the system takes
    # back anyway. Frozen at exit, after the exit handlers of the command (registered later,
    # they run first).
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(step)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(_StepName())
    if not args.verbose:
        for name in QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)
    signals = SignalsReceived()
    try:
        with signals_as_exceptions(stay_quiet=True) as signals:
            return args.func(args)
    except BaseException as exc:  # noqa: BLE001 - sorted below, the rest raised again
        # After Ctrl-C or SIGTERM, whatever the engine raised on the way out is the signal.
        ended = signals.exception() if signals.signum is not None else exc
        if isinstance(ended, AesiError):
            print(f"aesi: error: {ended}", file=sys.stderr)
            return 2
        fault = write_fault(ended)
        if fault is not None:
            print(f"aesi: error: {fault.message(_written_folders(args))}", file=sys.stderr)
            return EXIT_WRITE_FAULT
        if isinstance(ended, KeyboardInterrupt):
            print("aesi: interrupted; rerun the same command to resume", file=sys.stderr)
            return EXIT_INTERRUPTED
        if isinstance(ended, Terminated):
            print("aesi: terminated; rerun the same command to resume", file=sys.stderr)
            return EXIT_TERMINATED
        raise
