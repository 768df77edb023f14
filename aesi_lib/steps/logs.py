"""The logger of a step, whoever runs it.

Whoever runs a step may hand it a logger for its lines (:data:`STEP_LOGGER`: Prefect's run
logger, so that they reach the Prefect API and carry the run's name, ``aesi_tasks``); run in
process (``aesi_flows.in_process``) it is the ``aesi`` logger, each line tagged with the step it
comes from (:data:`RUNNING_STEP`), so that the command line's log names the step either way.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from typing import Any

RUNNING_STEP: contextvars.ContextVar[str] = contextvars.ContextVar("aesi_running_step",
                                                                  default="aesi")
"""The step the in-process executor is running in this context (a thread it starts copies
the context)."""

STEP_LOGGER: contextvars.ContextVar[Any] = contextvars.ContextVar("aesi_step_logger",
                                                                 default=None)
"""The logger whoever runs the step in this context gives it (None: :func:`step_logger`'s
own)."""


def step_logger() -> Any:
    """The logger :data:`STEP_LOGGER` holds, else the ``aesi`` logger whose records carry the
    running step's name as ``task_run_name`` (what Prefect's records carry)."""
    given = STEP_LOGGER.get()
    if given is not None:
        return given
    return logging.LoggerAdapter(logging.getLogger("aesi"),
                                 {"task_run_name": RUNNING_STEP.get()})


def logging_to(logger: Any, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with the lines of the steps it runs going to ``logger`` (None:
    :func:`step_logger`'s own)."""
    token = STEP_LOGGER.set(logger)
    try:
        return fn(*args, **kwargs)
    finally:
        STEP_LOGGER.reset(token)
