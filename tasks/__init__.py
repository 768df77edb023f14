"""The steps of a run as Prefect tasks: each ``aesi_lib.steps`` step wrapped once, with its cache
key, its retries and its logger.

Installed and imported as ``aesi_tasks`` (the folder is ``tasks/``). The steps themselves, the
files they write and their cache keys are declared in ``aesi_lib.steps``
(``aesi_lib.steps.declaration``); a flow under Prefect runs a step as the task
:func:`prefect_task` makes of it, the in-process executor (``aesi_flows.in_process``) runs the
same step without Prefect, by the same rules, into the same result store.

Importing this package changes no setting: Prefect's environment is set by whoever starts the
flows (the ``aesi`` command line, ``aesi_flows.cli.environment``; a deployment's ``job_variables``
in ``prefect.yaml``).
"""

from __future__ import annotations

import functools
from typing import Any

from prefect import Task, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from aesi_lib.steps.declaration import Step
from aesi_lib.steps.logs import logging_to


@functools.cache
def prefect_task(step: Step) -> Task[Any, Any]:
    """The Prefect task of ``step``: its function, logging to the task run's logger; a cached
    step's result persisted under its key (``Step.cache_key``, asking the task's result store
    whether a result is kept); a retried step's retries, delays, jitter and condition."""

    # What the function refers to travels with it to a Dask worker: a step and importable
    # functions, no context variable.
    @functools.wraps(step.fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        return logging_to(get_run_logger(), step.fn, *args, **kwargs)

    options: dict[str, Any] = {"name": step.name}
    if step.cached:
        options.update(persist_result=True, cache_key_fn=lambda context, parameters:
                       step.cache_key(parameters, getattr(context.result_store, "exists",
                                                          None)))
    else:
        options["cache_policy"] = NO_CACHE
    if step.retry is not None:
        retry = step.retry
        options.update(retries=retry.retries, retry_delay_seconds=list(retry.delays) or 0,
                       retry_jitter_factor=retry.jitter or None)
        if retry.condition is not None:
            options["retry_condition_fn"] = lambda _task, _run, state: retry.worth(
                state.data if isinstance(state.data, BaseException) else None)
    return task(**options)(run)
