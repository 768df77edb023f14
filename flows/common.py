"""What the flows share beyond the step graph (``aesi_lib.steps.graph``): the executor a flow's
steps run by (in process, or as Prefect tasks under a flow run), the project lock and the log
of a flow run, and the task runners.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from prefect.futures import as_completed
from prefect.task_runners import ThreadPoolTaskRunner
from prefect.utilities.annotations import quote

from aesi_flows.in_process import DASK_CLIENT, in_flow_run
from aesi_lib.project_lock import project_lock
from aesi_lib.steps.declaration import Step
from aesi_lib.steps.executor import Executor
from aesi_lib.steps.logs import logging_to, step_logger
from aesi_tasks import prefect_task

FlowFunction = TypeVar("FlowFunction", bound=Callable[..., Any])


def holds_project_lock(command: str) -> Callable[[FlowFunction], FlowFunction]:
    """Decorate a flow's function (below ``@flow``) so that its run holds the project lock of
    its ``project_dir`` (``aesi_lib.project_lock``): one writer at a time in a project. When
    another process holds it, the run waits (a scheduled update queues behind an ad-hoc run)
    and logs so. The command line takes the lock before it starts the flow (without waiting,
    unless ``--wait``), so in its process this takes it again at once. Under Prefect, the
    flow's own lines (``aesi_lib.steps.logs.step_logger``) go to the flow run's logger."""

    def decorate(fn: FlowFunction) -> FlowFunction:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def locked(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            project_dir = bound.arguments["project_dir"]

            def waiting(holder: str) -> None:
                step_logger().info("waiting for the other aesi process in %s (%s) to "
                                   "finish", project_dir, holder)

            with project_lock(project_dir, command, wait=True, on_wait=waiting):
                return fn(*args, **kwargs)

        return logs_to_flow_run(locked)  # type: ignore[return-value]

    return decorate


def logs_to_flow_run(fn: FlowFunction) -> FlowFunction:
    """Decorate a flow's function (below ``@flow``) so that, under Prefect, the lines the flow
    and its steps log outside a task run (``aesi_lib.steps.logs.step_logger``) go to the flow
    run's logger; in process they stay the ``aesi`` logger's."""

    @functools.wraps(fn)
    def logged(*args: Any, **kwargs: Any) -> Any:
        logger = None
        if in_flow_run():
            from prefect import get_run_logger

            logger = get_run_logger()
        return logging_to(logger, fn, *args, **kwargs)

    return logged  # type: ignore[return-value]


def flow_executor(result_storage: Path | None = None) -> Executor:
    """The executor of a flow's steps: under a Prefect flow run, :class:`PrefectSteps` (each
    step a task run of the flow's task runner); otherwise the in-process
    ``aesi_lib.steps.executor.Executor``, whose spread steps go to the Dask client
    :func:`aesi_flows.in_process.run_flow` was given (``aesi run --dask``). ``result_storage``
    (the project's ``step-results`` folder) is where the cached steps keep their results,
    whoever starts the flow: the command line, a deployment's worker or a notebook all find
    the same cache."""
    if in_flow_run():
        return PrefectSteps(result_storage)
    return Executor(result_storage, cluster=DASK_CLIENT.get())


class PrefectSteps(Executor):
    """The executor of a flow's steps under a Prefect flow run: each step runs as its Prefect
    task (``aesi_tasks.prefect_task``), in the flow's thread, or, for a step declared
    ``spread`` when the flow's task runner is a Dask cluster (``--dask``) and for the batches
    of :meth:`threads`, submitted to the task runner; with the records of ``Executor``."""

    @property
    def run_id(self) -> str | None:  # type: ignore[override]
        from prefect.runtime import flow_run

        run_id = flow_run.id
        return str(run_id) if run_id else None

    @property
    def spreads(self) -> bool:
        runner = _flow_task_runner()
        return runner is not None and not isinstance(runner, ThreadPoolTaskRunner)

    def whole(self, value: Any) -> Any:
        return quote(value)

    def _call(self, name: str, step: Step, args: tuple[Any, ...], kwargs: dict[str, Any],
              announce: bool = True) -> tuple[Any, str]:
        final = prefect_task(step)(self._results(step), *args, return_state=True, **kwargs)
        return final.result(), final.name     # result() raises the task's exception

    def _on_worker(self, name: str, step: Step, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> tuple[Any, str]:
        future = prefect_task(step).submit(self._results(step), *args, **kwargs)
        value = future.result()         # raises the task's exception when it failed
        return value, future.state.name

    @contextmanager
    def threads(self, threads: int) -> Iterator[Callable[..., Any]]:
        """The flow's task runner, or a runner of ``threads`` threads where the flow runs its
        tasks in threads and asks for more than one."""
        if threads < 2 or not isinstance(_flow_task_runner(), ThreadPoolTaskRunner):
            yield lambda step, *args: prefect_task(step).submit(self._results(step), *args)
            return
        with ThreadPoolTaskRunner(max_workers=threads) as runner:
            def submit(step: Step, *args: Any) -> Any:
                task = prefect_task(step)
                names = list(inspect.signature(task.fn).parameters)
                return runner.submit(task, dict(zip(names, (self._results(step), *args),
                                                    strict=False)))
            yield submit

    def spread(self, step: Step, calls: list[tuple[Any, ...]]) -> Iterator[Any]:
        for future in as_completed([prefect_task(step).submit(self._results(step), *args)
                                    for args in calls]):
            yield future.result()

    def _results(self, step: Step) -> str | None:
        """The result folder the Prefect task of ``step`` is given (None: nothing kept)."""
        store = self._store(step)
        return str(store.folder) if store is not None else None


def _flow_task_runner() -> Any:
    """The task runner of the flow run this is called in (None outside one)."""
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    return context.task_runner if context is not None else None


# ---------------------------------------------------------------------------------------------
# Task runners
# ---------------------------------------------------------------------------------------------


def default_task_runner() -> ThreadPoolTaskRunner:
    """One worker thread: parse batches run one after another (one spaCy model in memory)
    while the flow thread stores finished batches. On a small machine, several threads that
    each load a model and parse compete for the same cores and only add memory. (A large
    ingest parses in processes of its own, fed from two threads:
    ``aesi_lib.steps.graph.ingest``.)"""
    return ThreadPoolTaskRunner(max_workers=1)


def dask_task_runner(address: str | None = None, n_workers: int = 2,
                     processes: bool = True) -> Any:
    """prefect-dask's ``DaskTaskRunner``: on the cluster at ``address`` (``tcp://host:8786``),
    or on a temporary local cluster of ``n_workers`` single-threaded workers."""
    from prefect_dask import DaskTaskRunner

    if address:
        return DaskTaskRunner(address=address)
    return DaskTaskRunner(cluster_kwargs={"n_workers": n_workers, "threads_per_worker": 1,
                                          "processes": processes,
                                          "dashboard_address": None})
