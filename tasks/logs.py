"""The logger of a step, whoever runs it.

Inside a Prefect flow or task run it is Prefect's run logger (its lines reach the Prefect API
and carry the run's name); run in process (``aesi_flows.in_process``) it is the ``aesi`` logger,
each line tagged with the step it comes from (:data:`RUNNING_STEP`), so that the command
line's log names the step either way.
"""

from __future__ import annotations

import contextvars
import logging
from typing import Any

RUNNING_STEP: contextvars.ContextVar[str] = contextvars.ContextVar("aesi_running_step",
                                                                  default="aesi")
"""The step the in-process executor is running in this context (a thread it starts copies
the context)."""


def step_logger() -> Any:
    """Prefect's run logger inside a flow or task run, else the ``aesi`` logger whose records
    carry the running step's name as ``task_run_name`` (what Prefect's records carry)."""
    from prefect.context import FlowRunContext, TaskRunContext

    if TaskRunContext.get() is not None or FlowRunContext.get() is not None:
        from prefect import get_run_logger

        return get_run_logger()
    return logging.LoggerAdapter(logging.getLogger("aesi"),
                                 {"task_run_name": RUNNING_STEP.get()})
