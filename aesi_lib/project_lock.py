"""The project lock: one ``aesi`` process at a time writes a project folder.

DuckDB locks its file only while a connection is open, and a run opens the store for each step
that reads or writes it, so two writers in one project would both start and the second would
learn of the first only when both wanted the file at the same moment (after 15 s of work, in
the case that was reported). A command that writes a project (run, update, sweep, delete,
store rebuild and prune) takes this lock before any work: ``flock`` on ``<project>/aesi.lock``,
which the kernel releases when the process ends however it ends, so a killed run leaves no
stale lock. The file keeps who holds it (process id, command, since when), for the message
the next writer gets.

``flock`` belongs to an open file, not to a process: a second ``flock`` of the same file in
the same process would wait for itself. The command line takes the lock and then calls a flow
that takes it too (so that a deployment's flow run, started by a worker, holds it as well), so
a process that holds the lock takes it again at once (:func:`project_lock` counts).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from aesi_lib.errors import ProjectLockedError

LOCK_FILE = "aesi.lock"

# The locks this process holds: project folder -> (open lock file, times taken).
_HELD: dict[Path, tuple[int, int]] = {}
_HELD_LOCK = threading.Lock()


def lock_path(project_dir: str | Path) -> Path:
    """The lock file of the project folder ``project_dir``."""
    return Path(project_dir).expanduser().resolve() / LOCK_FILE


def lock_holder(project_dir: str | Path) -> str:
    """Who holds (or last held) the lock of ``project_dir``, as its file says: ``pid 4242,
    aesi update, since 2026-12-01 22:50:01 UTC``; empty when unknown."""
    try:
        return lock_path(project_dir).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def check_not_in_use(project_dir: str | Path) -> None:
    """Fail at once when another process holds the lock of ``project_dir``; create nothing.

    A command checks this first, before the checks of its options and its corpus (which may
    take seconds), and takes the lock itself (:func:`project_lock`) once they pass.

    Raises
    ------
    ProjectLockedError
        As :func:`project_lock` without ``wait``.
    """
    path = lock_path(project_dir)
    with _HELD_LOCK:
        if path.parent in _HELD:
            return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:             # no lock file (a new project), or none readable: no holder
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _locked(path) from None
    finally:
        os.close(fd)


def _locked(path: Path) -> ProjectLockedError:
    holder = lock_holder(path.parent) or "its process id is not recorded"
    return ProjectLockedError(
        path.parent, f"the project is in use by another aesi process ({holder}): wait for it "
        "to finish, rerun with --wait to start when it has, or give another --project-dir")


@contextmanager
def project_lock(project_dir: str | Path, command: str = "aesi", wait: bool = False,
                 on_wait: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Hold the project lock of ``project_dir`` for the ``with`` block (the folder is created).

    Parameters
    ----------
    project_dir : the project folder.
    command : what this process is, for the message another writer gets (``aesi run``).
    wait : when another process holds the lock, wait until it is released instead of
        raising.
    on_wait : called once with the holder (:func:`lock_holder`) before waiting.

    Yields
    ------
    Path
        The lock file.

    Raises
    ------
    ProjectLockedError
        Another process holds the lock and ``wait`` is False: the message names the project,
        the holder, and the ways out (``--wait``, another ``--project-dir``).
    """
    path = lock_path(project_dir)
    key = path.parent
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is not None:
            _HELD[key] = (held[0], held[1] + 1)
    if held is not None:
        try:
            yield path
        finally:
            _release(key)
        return
    key.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                raise _locked(path) from None
            if on_wait is not None:
                on_wait(lock_holder(project_dir) or "its process id is not recorded")
            fcntl.flock(fd, fcntl.LOCK_EX)
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, {command}, since {stamp}\n".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    with _HELD_LOCK:
        _HELD[key] = (fd, 1)
    try:
        yield path
    finally:
        _release(key)


def _release(key: Path) -> None:
    with _HELD_LOCK:
        fd, count = _HELD[key]
        if count > 1:
            _HELD[key] = (fd, count - 1)
            return
        del _HELD[key]
    os.close(fd)            # closing the file releases the lock
