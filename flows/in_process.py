"""Running a flow and its tasks in this process, with no Prefect API.

A command whose user configured no Prefect API (``PREFECT_API_URL`` or the profile) runs its
flow's function here (:func:`run_flow`) instead of starting a Prefect server to report to:
each step (``aesi_lib.steps``) runs as :class:`aesi_flows.common.Steps` calls it, with the rules
its Prefect task would follow:

* **cache**, **retries** and **logs**: as ``aesi_lib.steps.executor.run_step`` runs every step,
  its Prefect task included (``aesi_tasks.prefect_task``): a cached step is answered from the
  project's result store (``step-results``), its result kept there when it runs, so a run
  made here and one made under a Prefect server share one cache; a failure is retried as the
  step's policy says (``aesi_lib.steps.retry``); its lines name it
  (``aesi_lib.steps.logs.step_logger``);
* **placement**: with a Dask cluster (``aesi run --dask``, :func:`dask_cluster`), the steps
  that the flows spread (parse batches, encoder batches, the feature build) run on its
  workers, each through :func:`run_task` there; the rest stays in this process.

Nothing here decides what a run does: the flows do, the same code under Prefect or here.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aesi_lib.steps.declaration import Step
from aesi_lib.steps.executor import ResultStore, run_step
from aesi_lib.steps.logs import RUNNING_STEP

DASK_CLIENT: contextvars.ContextVar[Any] = contextvars.ContextVar("aesi_dask_client",
                                                                default=None)
"""The Dask client of the flow :func:`run_flow` runs in this context (None: no cluster)."""


def in_flow_run() -> bool:
    """Whether this code runs inside a Prefect flow run (else its tasks run here)."""
    from prefect.context import FlowRunContext

    return FlowRunContext.get() is not None


def plain(value: Any) -> Any:
    """``value`` without Prefect's annotations (``quote``, ``unmapped``): what the task's
    function receives."""
    from prefect.utilities.annotations import BaseAnnotation

    return value.unwrap() if isinstance(value, BaseAnnotation) else value


def run_task(task: Step, args: tuple[Any, ...], kwargs: dict[str, Any],
             result_storage: Path | None = None, name: str | None = None
             ) -> tuple[Any, str]:
    """Run the step ``task`` on ``args`` and ``kwargs`` in this thread, without a Prefect API
    (``aesi_lib.steps.executor.run_step``, its results kept in ``result_storage``; None: not
    kept); its value and the state a flow run would record (``Completed``, or ``Cached``).
    Prefect's annotations (``quote``) are taken off the arguments."""
    return run_step(task, tuple(plain(a) for a in args),
                    {k: plain(v) for k, v in kwargs.items()},
                    ResultStore(result_storage) if result_storage is not None else None, name)


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
