"""Running a flow and its tasks in this process, with no Prefect API.

A command whose user configured no Prefect API (``PREFECT_API_URL`` or the profile) runs its
flow's function here (:func:`run_flow`) instead of starting a Prefect server to report to:
each step (``aesi_lib.steps``) runs as :class:`aesi_flows.common.Steps` calls it, with the rules
its Prefect task would follow:

* **cache**: a cached step (``aesi_lib.steps.declaration.Step.cache_key``) is answered from
  the same result store its Prefect task writes (``aesi_tasks.prefect_task``; the project's
  ``prefect-results`` folder, records named by the key), and its result is written there
  when it runs; a run made here and one made under a Prefect server share one cache;
* **retries**: the step's retries, delays and retry condition (``aesi_lib.steps.retry``);
* **logs**: the step's lines name it (``aesi_lib.steps.logs.step_logger``);
* **placement**: with a Dask cluster (``aesi run --dask``, :func:`dask_cluster`), the steps
  that the flows spread (parse batches, encoder batches, the feature build) run on its
  workers, each through :func:`run_task` there; the rest stays in this process.

Nothing here decides what a run does: the flows do, the same code under Prefect or here.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aesi_lib.steps.declaration import Step
from aesi_lib.steps.logs import RUNNING_STEP

log = logging.getLogger("aesi")

DASK_CLIENT: contextvars.ContextVar[Any] = contextvars.ContextVar("aesi_dask_client",
                                                                default=None)
"""The Dask client of the flow :func:`run_flow` runs in this context (None: no cluster)."""

COMPLETED = "Completed"
CACHED = "Cached"


def in_flow_run() -> bool:
    """Whether this code runs inside a Prefect flow run (else its tasks run here)."""
    from prefect.context import FlowRunContext

    return FlowRunContext.get() is not None


def plain(value: Any) -> Any:
    """``value`` without Prefect's annotations (``quote``, ``unmapped``): what the task's
    function receives."""
    from prefect.utilities.annotations import BaseAnnotation

    return value.unwrap() if isinstance(value, BaseAnnotation) else value


def _result_store(result_storage: Path | None) -> Any:
    from prefect.filesystems import LocalFileSystem
    from prefect.results import ResultStore

    if result_storage is None:
        return ResultStore()
    return ResultStore(result_storage=LocalFileSystem(basepath=str(result_storage)))


def run_task(task: Step, args: tuple[Any, ...], kwargs: dict[str, Any],
             result_storage: Path | None = None, name: str | None = None
             ) -> tuple[Any, str]:
    """Run the step ``task`` on ``args`` and ``kwargs`` in this thread, without a Prefect API;
    its value and the state a flow run would record (``Completed``, or ``Cached`` when its
    result store already held the result of its cache key).

    Parameters
    ----------
    task : Step
        Its function, cache key and retries are used as the Prefect task of it
        (``aesi_tasks.prefect_task``) uses them.
    args, kwargs : its arguments, Prefect annotations (``quote``) allowed.
    result_storage : the folder of its persisted results (None: Prefect's default).
    name : the step's name in the log (default: the step's name).

    Raises
    ------
    Exception
        The step's last error, once its retries are spent or its condition refuses one.
    """
    args = tuple(plain(a) for a in args)
    kwargs = {k: plain(v) for k, v in kwargs.items()}
    bound = inspect.signature(task.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    token = RUNNING_STEP.set(name or task.name)
    try:
        store = _result_store(result_storage) if task.cached else None
        key = (task.cache_key(dict(bound.arguments), store.exists)
               if store is not None else None)
        if key is not None and store.exists(key):
            return store.read(key).result, CACHED
        attempt = 0
        retry = task.retry
        while True:
            try:
                value = task.fn(*bound.args, **bound.kwargs)
                break
            except Exception as error:
                if retry is None or attempt >= retry.retries or not retry.worth(error):
                    raise
                delay = retry.delay(attempt)
                attempt += 1
                log.warning("%s failed (%s: %s); retry %d of %d in %.0f s",
                            name or task.name, type(error).__name__, error, attempt,
                            retry.retries, delay)
                time.sleep(delay)
        if key is not None:
            store.write(key=key, obj=value)
        return value, COMPLETED
    finally:
        RUNNING_STEP.reset(token)


@contextlib.contextmanager
def task_threads(threads: int, result_storage: Path | None = None
                 ) -> Iterator[Callable[..., Future[Any]]]:
    """A ``submit(task, *args, **kwargs)`` that runs tasks in ``threads`` threads of this
    process (:func:`run_task`) and returns a future of each one's value, for the ``with``
    block; the threads are waited for when it ends."""
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="aesi-task")

    def submit(task: Any, *args: Any, **kwargs: Any) -> Future[Any]:
        context = contextvars.copy_context()
        return pool.submit(context.run, lambda: run_task(task, args, kwargs,
                                                         result_storage)[0])
    try:
        yield submit
    except BaseException:
        # An error or a signal: the tasks not started yet are dropped, not run.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def task_value(task: Step, args: tuple[Any, ...], result_storage: Path | None = None) -> Any:
    """:func:`run_task`'s value alone: what a Dask worker sends back for a spread step."""
    return run_task(task, args, {}, result_storage)[0]


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


def run_flow(flow: Any, dask: Any = None, **parameters: Any) -> Any:
    """The flow's function called with ``parameters`` in this process, its tasks run by
    :func:`run_task` (the steps it spreads on the workers of the Dask client ``dask``, when
    one is given); its return value. The log's lines outside a task name the flow."""
    token = RUNNING_STEP.set(flow.name)
    client = DASK_CLIENT.set(dask)
    try:
        return flow.fn(**parameters)
    finally:
        DASK_CLIENT.reset(client)
        RUNNING_STEP.reset(token)
