"""Parsing in several processes: a pool of worker processes, each with its own loaded parser.

:class:`ParallelParser` is what :func:`aesi_lib.parse.backends.make_parser` returns when a
configuration parses with more than one process (``ParserConfig.n_process``). It parses
exactly like the in-process parser of the same configuration, and its ``config_id`` is that
parser's (a worker computes it with the same code), so parse caches stay valid:

* a call's documents are cut into consecutive pieces that go to whichever worker is free;
  each worker runs the in-process parser on its piece and sends back plain columns
  (:data:`~aesi_lib.parse.types.SentenceColumns`), from which this process builds the
  :class:`~aesi_lib.parse.types.ParsedDocument` objects, in input order. spaCy's output for
  a document does not depend on the other documents of its ``nlp.pipe`` batch, so the
  result is the same as one process parsing the whole call (``tests/test_parse_parallel.py``
  compares them);
* pieces shrink towards the end of a call (guided self-scheduling: each takes a share of the
  text still to send, down to one document), so the workers finish a call at about the same
  time instead of one waiting for the other's last large piece;
* one pool per configuration and process count lives as long as this process and is shared
  by every parser object and thread of the process: the models load once, in parallel, when
  the pool starts (the first ``config_id`` or ``parse``).

The workers are fresh interpreters (``python -c``, this process's ``sys.path``) talking over a
socket pair, not ``multiprocessing`` children: they never fork this process (whose threads may
hold locks) and never import its ``__main__``, so a script needs no ``if __name__ ==
"__main__"`` guard. They run in their own session, so Ctrl-C in a terminal reaches only this
process, which decides: pieces not yet started are dropped, and at exit the workers are
killed. A worker also ends by itself as soon as this process is gone, however it ended (it
reads end-of-file, or a watch thread sees its parent change), so no worker outlives its
parent.
"""

from __future__ import annotations

import atexit
import gc
import os
import pickle
import queue
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from typing import Any

from aesi_lib.corpus.types import Document
from aesi_lib.parse.types import (
    ParsedDocument,
    SentenceColumns,
    sentence_columns,
    sentence_from_columns,
)

# Most and fewest documents in one piece (see plan_pieces).
_MAX_PIECE_DOCS = 32
_MIN_PIECE_DOCS = 8
# How often a worker checks that its parent is still there while it parses.
_PARENT_POLL_S = 0.5
# How long a closing pool waits for a worker to leave before killing it.
_EXIT_WAIT_S = 5.0

# A worker's first statements: this process's sys.path, then the worker loop.
_BOOTSTRAP = (
    "import sys\n"
    "from multiprocessing.connection import Connection\n"
    "conn = Connection(int(sys.argv[1]))\n"
    "sys.path[:] = conn.recv()\n"
    "from aesi_lib.parse.parallel import worker_main\n"
    "worker_main(conn)\n"
)


class ParseWorkerError(RuntimeError):
    """A parse worker process died (killed, out of memory); the pool is replaced on next use."""


class ParsePoolClosed(ParseWorkerError):
    """The pool was closed (:func:`shutdown_pools`) while this piece was parsed or queued: the
    process is ending (Ctrl-C, SIGTERM, an error elsewhere), so the piece must not be tried
    again."""


# -- worker side -------------------------------------------------------------------------------


def _usage() -> tuple[float, float]:
    """This process's peak resident memory (MiB) and CPU time (s) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def _exit_with_parent() -> None:
    """End this process when the parent is gone (even while a piece is being parsed)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="aesi-parent-watch", daemon=True).start()


def _reply(conn: Connection, value: Any) -> None:
    """Send ``("ok", (pid, (peak RSS MiB, CPU s), value))``."""
    conn.send(("ok", (os.getpid(), _usage(), value)))


def _reply_error(conn: Connection, exc: BaseException) -> None:
    try:
        conn.send(("error", exc))
    except (pickle.PicklingError, TypeError, AttributeError):
        conn.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))


def worker_main(conn: Connection) -> None:
    """The loop of a worker process: load the parser, then parse the pieces it is sent.

    Replies ``("ok", (pid, (peak RSS MiB, CPU s), value))`` or ``("error", exception)``:
    first to the configuration (value: the parser's ``config_id``), then to every piece
    (value: a list of ``(doc_id, sentence columns)``). Ends at end-of-file, i.e. when the
    parent closes the connection or is gone.
    """
    _exit_with_parent()
    factory, config = conn.recv()
    try:
        parser = factory(config)
        load = getattr(parser, "load", None)
        parser = load() if load is not None else parser
        _reply(conn, parser.config_id)
    except Exception as exc:  # noqa: BLE001 - the parent raises it (a missing model)
        _reply_error(conn, exc)
        return
    while True:
        try:
            docs = conn.recv()
        except (EOFError, OSError):
            return
        try:
            _reply(conn, _parse_piece(parser, docs))
        except Exception as exc:  # noqa: BLE001 - raised in the parent, by the caller
            _reply_error(conn, exc)


def _parse_piece(parser: Any, docs: list[Document]) -> list[tuple[str, list[SentenceColumns]]]:
    if hasattr(parser, "parse_columns"):
        return list(parser.parse_columns(docs))
    return [(p.doc_id, [sentence_columns(s) for s in p.sentences]) for p in parser.parse(docs)]


# -- parent side -------------------------------------------------------------------------------


class _Pool:
    """The worker processes of one configuration, fed from one queue of pieces."""

    def __init__(self, factory: Callable[[Any], Any], config: Any, n_process: int) -> None:
        self.n_process = n_process
        # pid -> (peak resident MiB, CPU seconds) of each worker, as of its last reply.
        self.usage: dict[int, tuple[float, float]] = {}
        self.broken = False
        self.closed = False
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[tuple[Future[Any], list[Document]] | None] = (
            queue.SimpleQueue())
        self._ready: list[Future[str]] = []
        self._procs: list[subprocess.Popen[bytes]] = []
        for i in range(n_process):
            ready: Future[str] = Future()
            ready.set_running_or_notify_cancel()
            ours, theirs = socket.socketpair()
            proc = subprocess.Popen(
                [sys.executable, "-c", _BOOTSTRAP, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                start_new_session=True)
            theirs.close()
            conn = Connection(ours.detach())
            self._ready.append(ready)
            self._procs.append(proc)
            threading.Thread(target=self._serve, args=(conn, proc, (factory, config), ready),
                             name=f"aesi-parse-worker-{i}", daemon=True).start()

    def _serve(self, conn: Connection, proc: subprocess.Popen[bytes], setup: tuple[Any, Any],
               ready: Future[str]) -> None:
        """Feed one worker: its parser factory and configuration, then pieces from the queue,
        until ``None``."""
        job: tuple[Future[Any], list[Document]] | None = None
        try:
            conn.send(sys.path)
            conn.send(setup)
            status, value = conn.recv()
            if status != "ok":
                ready.set_exception(value)
                self.broken = True
                return
            ready.set_result(self._record(value))
            while (job := self._jobs.get()) is not None:
                future, docs = job
                if not future.set_running_or_notify_cancel():
                    continue        # cancelled while queued
                conn.send(docs)
                status, value = conn.recv()
                if status == "ok":
                    future.set_result(self._record(value))
                else:
                    future.set_exception(value)
                job = None
        except (EOFError, OSError) as exc:
            self.broken = True
            died = ParsePoolClosed(
                f"parse worker process {proc.pid} was stopped: the parse workers were shut "
                "down") if self.closed else ParseWorkerError(
                f"parse worker process {proc.pid} died (exit status {proc.poll()}: {exc!r}); "
                "each worker holds its own parser model (README, Parsing throughput, gives "
                "the memory per process): fewer processes with --parse-processes")
            if not ready.done():
                ready.set_exception(died)
            if job is not None and not job[0].done():
                job[0].set_exception(died)
            # Whatever is queued now or later fails at once instead of waiting for a worker
            # that may not come: the caller's retry gets a new pool.
            while (job := self._jobs.get()) is not None:
                if job[0].set_running_or_notify_cancel():
                    job[0].set_exception(died)
        finally:
            conn.close()

    def _record(self, value: tuple[int, tuple[float, float], Any]) -> Any:
        pid, usage, result = value
        with self._lock:
            self.usage[pid] = usage
        return result

    def config_id(self) -> str:
        """The parser's ``config_id``, once every worker has loaded its parser."""
        config_ids = {f.result() for f in self._ready}
        if len(config_ids) != 1:        # same code and packages: cannot happen
            raise RuntimeError(f"parse workers disagree on the parser: {config_ids}")
        return config_ids.pop()

    def submit(self, docs: list[Document]) -> Future[Any]:
        """Queue one piece; its future gives the ``(doc_id, sentence columns)`` list."""
        future: Future[Any] = Future()
        if self.closed:
            future.set_exception(ParsePoolClosed("the parse worker pool was shut down"))
        elif self.broken:
            future.set_exception(ParseWorkerError("the parse worker pool is broken"))
        else:
            self._jobs.put((future, docs))
        return future

    def close(self, wait: bool = True) -> None:
        """Stop the workers: after their current piece (``wait``), or at once (the pieces they
        were parsing and those queued fail with :class:`ParsePoolClosed`). The pool is then
        ``broken``: its parsers start a new one when used again."""
        self.closed = self.broken = True
        for _ in self._procs:
            self._jobs.put(None)
        for proc in self._procs:
            if not wait:
                proc.kill()
            try:
                proc.wait(timeout=_EXIT_WAIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


_POOLS: dict[tuple[Any, Any, int], _Pool] = {}
_POOLS_LOCK = threading.Lock()


def _shared_pool(factory: Callable[[Any], Any], config: Any, n_process: int) -> _Pool:
    """This process's pool for ``config`` (a new one when there is none or it broke)."""
    key = (factory, config, n_process)
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None or pool.broken:
            if pool is not None:
                pool.close(wait=False)
            pool = _POOLS[key] = _Pool(factory, config, n_process)
        return pool


def shutdown_pools(wait: bool = True) -> None:
    """Stop every parse worker process of this process (their memory is freed; a parser
    used again starts new ones).

    At exit it runs with ``wait=False``: nobody is left to read a result, so the workers are
    killed instead of finishing their piece.
    """
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close(wait=wait)


atexit.register(shutdown_pools, wait=False)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a piece's tokens are built.

    A piece is thousands of Token objects, which hold only strings and numbers and so cannot
    form cycles; built with the collector on, they trigger a collection every 700 objects,
    and in a process with a large heap (a loaded model, Prefect) the full collections that
    follow took half of this process's CPU on the parse side (1.5 of 3.0 s for 800 MUC-4
    messages). Paused for those milliseconds, it runs once afterwards instead. The state
    is restored as found (a caller that had switched the collector off keeps it off).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def plan_pieces(sizes: Sequence[int], n_process: int, max_docs: int = _MAX_PIECE_DOCS,
                min_docs: int = _MIN_PIECE_DOCS) -> list[tuple[int, int]]:
    """Cut documents of the given sizes into consecutive pieces ``(start, end)``.

    Each piece takes about ``1 / (2 * n_process)`` of the text not yet given out, within
    ``min_docs`` to ``max_docs`` documents: large pieces first, small ones at the end, so the
    workers run out of work at about the same time. Below ``min_docs`` a piece would cost
    more per document than the balance saves (spaCy's batches: one document at a time takes
    20-45 % more CPU than 32, 8 no more).
    """
    pieces: list[tuple[int, int]] = []
    remaining = sum(sizes)
    start = 0
    while start < len(sizes):
        target = remaining / (2 * n_process)
        end = min(start + min_docs, len(sizes))
        taken = sum(sizes[start:end])
        while end < len(sizes) and end - start < max_docs and taken + sizes[end] <= target:
            taken += sizes[end]
            end += 1
        pieces.append((start, end))
        remaining -= taken
        start = end
    return pieces


@dataclass
class ParallelParser:
    """A parser whose work runs in ``n_process`` worker processes (see the module docstring).

    Parameters
    ----------
    factory
        Builds a parser from a configuration, in a worker and for small calls here
        (:func:`~aesi_lib.parse.backends.make_parser`; a module-level function, which the
        workers import by name).
    config
        The configuration; each worker builds its in-process parser (``n_process=1``).
    n_process
        Worker processes (at least 2).
    small_in_process
        Parse a call with less than ``small_chars`` of text in this process, with the
        in-process parser, while no pool of this configuration runs: starting the workers
        would take longer than the parse (the automatic process count, ``n_process=0``, of
        a caller that does not say how much it will parse).
    small_chars
        See ``small_in_process``.
    """

    factory: Callable[[Any], Any]
    config: Any
    n_process: int
    small_in_process: bool = False
    small_chars: int = 0
    _pool: _Pool | None = field(default=None, init=False, repr=False)
    _local: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.n_process < 2:
            raise ValueError("ParallelParser needs n_process >= 2; parse in-process instead")
        self.config = replace(self.config, n_process=1)

    @property
    def pool(self) -> _Pool:
        """This process's pool of workers for the configuration (started on first use)."""
        if self._pool is None or self._pool.broken:
            self._pool = _shared_pool(self.factory, self.config, self.n_process)
        return self._pool

    def _pool_running(self) -> bool:
        if self._pool is not None and not self._pool.broken:
            return True
        with _POOLS_LOCK:
            pool = _POOLS.get((self.factory, self.config, self.n_process))
        return pool is not None and not pool.broken

    def _in_process(self) -> Any:
        if self._local is None:
            self._local = self.factory(self.config)
        return self._local

    def load(self) -> ParallelParser:
        """Start the workers and wait until their parsers are loaded; returns the parser."""
        _ = self.pool.config_id()
        return self

    @property
    def config_id(self) -> str:
        """The in-process parser's ``config_id`` (computed by a worker when they run)."""
        if self.small_in_process and not self._pool_running():
            return self._in_process().config_id
        return self.pool.config_id()

    @property
    def worker_peak_rss_mib(self) -> dict[int, float]:
        """Peak resident memory of each worker process so far (pid -> MiB)."""
        usage = self._pool.usage if self._pool is not None else {}
        return {pid: mib for pid, (mib, _) in usage.items()}

    @property
    def worker_cpu_s(self) -> dict[int, float]:
        """CPU time each worker process has used so far, model loading included
        (pid -> seconds)."""
        usage = self._pool.usage if self._pool is not None else {}
        return {pid: cpu for pid, (_, cpu) in usage.items()}

    def parse(self, docs: Iterable[Document]) -> Iterator[ParsedDocument]:
        """Parse ``docs`` in the workers; yields one result per document, in order."""
        docs = list(docs)
        if not docs:
            return
        if self.small_in_process and not self._pool_running() \
                and sum(len(d.text) for d in docs) < self.small_chars:
            yield from self._in_process().parse(docs)
            return
        pool = self.pool
        pool.config_id()            # a worker that cannot load its parser raises here
        pieces = plan_pieces([len(d.text) for d in docs], self.n_process)
        futures = [pool.submit(docs[a:b]) for a, b in pieces]
        try:
            for future in futures:
                with _collector_paused():
                    parsed = [ParsedDocument(doc_id=doc_id,
                                             sentences=tuple(map(sentence_from_columns, s)))
                              for doc_id, s in future.result()]
                yield from parsed
        finally:
            # Interrupted (Ctrl-C, an error, the caller stopped early): pieces not yet
            # started are dropped, so shutting the pool down waits only for running ones.
            for future in futures:
                future.cancel()
