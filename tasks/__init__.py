"""The steps of a run as Prefect tasks: each ``aesi_lib.steps`` step wrapped once, with its cache,
its retries and its logger.

Installed and imported as ``aesi_tasks`` (the folder is ``tasks/``). The steps themselves, the
files they write and their cache keys are declared in ``aesi_lib.steps``
(``aesi_lib.steps.declaration``); a flow under Prefect runs a step as the task
:func:`prefect_task` makes of it, the in-process executor (``aesi_flows.in_process``) runs the
same step without Prefect; both through ``aesi_lib.steps.executor.run_step``, into the same
result store.

Importing this package changes no setting: Prefect's environment is set by whoever starts the
flows (the ``aesi`` command line, ``aesi_cli.environment``; a deployment's ``job_variables``
in ``prefect.yaml``).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from prefect import Task, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.states import Completed

from aesi_lib.steps.declaration import Step
from aesi_lib.steps.executor import CACHED, ResultStore, run_step
from aesi_lib.steps.logs import logging_to

#: The parameter of a step's Prefect task that names the folder of its results (None: none
#: kept), before the step's own.
RESULTS_PARAMETER = "step_results"


@functools.cache
def prefect_task(step: Step) -> Task[Any, Any]:
    """The Prefect task of ``step``: its function run by ``run_step``, logging to the task
    run's logger; a cached step answered from and kept in the result store whose folder the
    first parameter (:data:`RESULTS_PARAMETER`) names, the task run then in the state
    ``Cached``; a retried step's retries, delays, jitter and condition left to Prefect."""

    # What the function refers to travels with it to a Dask worker: a step and importable
    # functions, no context variable.
    def run(step_results: str | None, *args: Any, **kwargs: Any) -> Any:
        store = ResultStore(step_results) if step_results is not None else None
        value, state = logging_to(get_run_logger(), run_step, step, args, kwargs, store,
                                  retries=False)
        return Completed(name=CACHED, data=value) if state == CACHED else value

    functools.update_wrapper(run, step.fn)
    signature = inspect.signature(step.fn)
    run.__signature__ = signature.replace(parameters=[  # type: ignore[attr-defined]
        inspect.Parameter(RESULTS_PARAMETER, inspect.Parameter.POSITIONAL_OR_KEYWORD),
        *signature.parameters.values()])
    options: dict[str, Any] = {"name": step.name, "cache_policy": NO_CACHE,
                               "persist_result": False}
    if step.retry is not None:
        retry = step.retry
        options.update(retries=retry.retries, retry_delay_seconds=list(retry.delays) or 0,
                       retry_jitter_factor=retry.jitter or None)
        if retry.condition is not None:
            options["retry_condition_fn"] = lambda _task, _run, state: retry.worth(
                state.data if isinstance(state.data, BaseException) else None)
    return task(**options)(run)
