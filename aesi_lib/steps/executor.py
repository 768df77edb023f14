"""Running the steps of a run: each step's cache, retries and log name, the same for whoever
runs it, and the in-process executor of a run's steps (:class:`Executor`).

:func:`run_step` runs a step (``aesi_lib.steps.declaration.Step``) in this thread: a cached
step is answered from a :class:`ResultStore` when it holds the result of the step's key
(``Step.cache_key``) and its result is kept there when it runs; a failure is tried again as
the step's retry policy says. The in-process :class:`Executor` (a flow run by
``aesi_flows.in_process``, ``SchemaInducer``) and the Prefect task of a step
(``aesi_tasks.prefect_task``, which leaves the retries to Prefect) both call it, with the
project's store, so a run made in process and one made under a Prefect server share one
cache.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import logging
import pickle
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aesi_lib.files import replacing
from aesi_lib.steps.declaration import Step
from aesi_lib.steps.logs import RUNNING_STEP
from aesi_lib.steps.memory import release_freed_memory

COMPLETED = "Completed"
CACHED = "Cached"

log = logging.getLogger("aesi")


class ResultStore:
    """The results of cached steps in ``folder``: one file a key, ``<key>.pickle``, written
    whole (a temporary file renamed), so a result that exists is complete.

    A result is a small value (paths of the files a step wrote, scores), never the arrays
    themselves."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.pickle"

    def exists(self, key: str) -> bool:
        """Whether a result is kept under ``key``."""
        return self._path(key).is_file()

    def read(self, key: str) -> Any:
        """The result kept under ``key``."""
        return pickle.loads(self._path(key).read_bytes())

    def write(self, key: str, value: Any) -> None:
        """Keep ``value`` under ``key``."""
        with replacing(self._path(key), unique=True) as partial:
            partial.write_bytes(pickle.dumps(value))


def run_step(step: Step, args: tuple[Any, ...], kwargs: dict[str, Any],
             store: ResultStore | None = None, name: str | None = None,
             retries: bool = True) -> tuple[Any, str]:
    """Run ``step`` on ``args`` and ``kwargs`` in this thread; its value and its state
    (:data:`COMPLETED`, or :data:`CACHED` when ``store`` held the result of its key).

    Parameters
    ----------
    step : Step
    args, kwargs : its arguments.
    store : where a cached step's results are kept (None: none is kept or read).
    name : the step's name in the log (default: the step's name; a flow that runs one step
        several times names each run).
    retries : try a failure again as the step's retry policy says (False: whoever calls
        this retries, as Prefect does).

    Raises
    ------
    Exception
        The step's last error, once its retries are spent or its condition refuses one.
    """
    bound = inspect.signature(step.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    token = RUNNING_STEP.set(name or step.name)
    try:
        key = (step.cache_key(dict(bound.arguments), store.exists)
               if store is not None else None)
        if key is not None and store.exists(key):
            return store.read(key), CACHED
        retry = step.retry if retries else None
        attempt = 0
        while True:
            try:
                value = step.fn(*bound.args, **bound.kwargs)
                break
            except Exception as error:
                if retry is None or attempt >= retry.retries or not retry.worth(error):
                    raise
                delay = retry.delay(attempt)
                attempt += 1
                log.warning("%s failed (%s: %s); retry %d of %d in %.0f s",
                            name or step.name, type(error).__name__, error, attempt,
                            retry.retries, delay)
                time.sleep(delay)
        if key is not None:
            store.write(key, value)
        return value, COMPLETED
    finally:
        RUNNING_STEP.reset(token)


def step_value(step: Step, args: tuple[Any, ...], store: ResultStore | None = None) -> Any:
    """:func:`run_step`'s value alone: what a Dask worker sends back for a spread step."""
    return run_step(step, args, {}, store)[0]


@contextlib.contextmanager
def step_threads(threads: int, store: ResultStore | None = None
                 ) -> Iterator[Callable[..., Future[Any]]]:
    """A ``submit(step, *args, **kwargs)`` that runs steps in ``threads`` threads of this
    process (:func:`run_step`) and returns a future of each one's value, for the ``with``
    block; the threads are waited for when it ends."""
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="aesi-step")

    def submit(step: Step, *args: Any, **kwargs: Any) -> Future[Any]:
        context = contextvars.copy_context()
        return pool.submit(context.run, lambda: run_step(step, args, kwargs, store)[0])
    try:
        yield submit
    except BaseException:
        # An error or a signal: the steps not started yet are dropped, not run.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


@contextlib.contextmanager
def dask_cluster(address: str | None = None, n_workers: int = 2, processes: bool = True
                 ) -> Iterator[Any]:
    """A Dask client for the ``with`` block: of the scheduler at ``address``
    (``tcp://host:8786``), or of a local cluster of ``n_workers`` single-threaded workers
    (processes, or threads of this process) that ends with the block."""
    from distributed import Client, LocalCluster

    if address:
        with Client(address) as client:
            yield client
        return
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=processes,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


class Executor:
    """Runs the steps of a run in this process and records, per step, its final state
    (``Completed``, ``Cached``, ...) and the seconds it took: what ``results.json`` reports
    under ``steps``.

    ``result_storage`` (the project's ``step-results`` folder) is where the cached steps keep
    their results, whoever runs them (None: none is kept). ``cluster``, a Dask client, takes
    the steps declared ``spread`` (parse batches, encoder batches, the feature build: ``aesi
    run --dask``); without one they run here too. After each step the process hands the heap its
    allocators hold free back to the system (:func:`aesi_lib.steps.memory.release_freed_memory`),
    so that no step runs on top of the pages the steps before it freed.

    The flows' executor under a Prefect flow run (``aesi_flows.common.PrefectSteps``) runs
    each step as its Prefect task instead, with the same records.
    """

    def __init__(self, result_storage: str | Path | None = None, cluster: Any = None) -> None:
        self.records: dict[str, dict[str, Any]] = {}
        self.result_storage = Path(result_storage) if result_storage is not None else None
        self.cluster = cluster
        self._result_store = (ResultStore(self.result_storage)
                              if self.result_storage is not None else None)

    run_id: str | None = None
    """The id of the Prefect flow run the steps report to (None: none)."""

    @property
    def spreads(self) -> bool:
        """Whether the steps that may be spread run on a cluster."""
        return self.cluster is not None

    def whole(self, value: Any) -> Any:
        """``value`` as a step's argument to be passed whole (a corpus, a batch's parses):
        itself here; Prefect's ``quote`` under a flow run, which keeps Prefect from walking
        into it."""
        return value

    def run(self, name: str, step: Step, *args: Any, **kwargs: Any) -> Any:
        """``step(*args, **kwargs)``, recorded as ``name``: on a worker of the cluster for a
        step declared ``spread`` when there is one (a ``worker`` in its value is recorded
        with it), else here; its value."""
        if step.spread and self.spreads:
            return self._recorded(name, lambda: self._on_worker(name, step, args, kwargs))
        return self.run_here(name, step, *args, **kwargs)

    def run_here(self, name: str, step: Step, *args: Any, **kwargs: Any) -> Any:
        """``step(*args, **kwargs)`` in this process whatever its declaration, recorded as
        ``name``; its value."""
        return self._recorded(name, lambda: self._call(name, step, args, kwargs))

    def call(self, step: Step, *args: Any, **kwargs: Any) -> Any:
        """``step(*args, **kwargs)`` here, as a part of a step that records itself; its
        value."""
        return self._call(step.name, step, args, kwargs, announce=False)[0]

    def _recorded(self, name: str, run: Callable[[], tuple[Any, str]]) -> Any:
        started = time.perf_counter()
        value, state = run()
        self.records[name] = {"state": state, "seconds": time.perf_counter() - started}
        if isinstance(value, dict) and "worker" in value:
            self.records[name]["worker"] = value["worker"]
        release_freed_memory()
        return value

    def _call(self, name: str, step: Step, args: tuple[Any, ...], kwargs: dict[str, Any],
              announce: bool = True) -> tuple[Any, str]:
        started = time.perf_counter()
        value, state = run_step(step, args, kwargs, self._store(step), name)
        if announce:
            logging.LoggerAdapter(log, {"task_run_name": name}).info(
                "%s in %.1f s", state, time.perf_counter() - started)
        return value, state

    def _on_worker(self, name: str, step: Step, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> tuple[Any, str]:
        return self.cluster.submit(run_step, step, args, kwargs, self._store(step), name,
                                   pure=False).result()

    @contextlib.contextmanager
    def threads(self, threads: int) -> Iterator[Callable[..., Any]]:
        """A ``submit(step, *args)`` for the ``with`` block that runs steps ``threads`` at a
        time and returns a future of each (``.result()``): a step declared ``spread`` on the
        cluster's workers when there is one, the others in threads of this process."""
        with step_threads(threads, self._result_store) as here:
            def submit(step: Step, *args: Any) -> Any:
                if step.spread and self.spreads:
                    return self._on_cluster(step, args)
                return here(step, *args)
            yield submit

    def spread(self, step: Step, calls: list[tuple[Any, ...]]) -> Iterator[Any]:
        """The values of ``step`` (declared ``spread``) on each argument tuple of ``calls``,
        submitted at once to the cluster (:attr:`spreads`), as they finish."""
        from distributed import as_completed

        for future in as_completed([self._on_cluster(step, args) for args in calls]):
            yield future.result()

    def _on_cluster(self, step: Step, args: tuple[Any, ...]) -> Any:
        """A future of ``step``'s value on ``args``, run by a worker of the cluster."""
        return self.cluster.submit(step_value, step, args, self._store(step), pure=False)

    def _store(self, step: Step) -> ResultStore | None:
        return self._result_store if step.cached else None

    def add(self, name: str, state: str, seconds: float, **extra: Any) -> None:
        """Record a step the run ran itself (not through :meth:`run`)."""
        self.records[name] = {"state": state, "seconds": seconds, **extra}
        release_freed_memory()

    def ran(self) -> list[str]:
        """The steps that did work (neither answered from the cache nor skipped)."""
        return [name for name, r in self.records.items()
                if r["state"] not in (CACHED, "Skipped")]
