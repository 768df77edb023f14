"""Running a flow in this process, with no Prefect API.

A command whose user configured no Prefect API (``PREFECT_API_URL`` or the profile) runs its
flow's function here (:func:`run_flow`) instead of starting a Prefect server to report to: its
steps run by the in-process executor (``aesi_lib.steps.executor.Executor``, which
:func:`aesi_flows.common.flow_executor` gives a flow outside a Prefect flow run), with the cache,
retries and log names of the step's Prefect task, both being
``aesi_lib.steps.executor.run_step``; a run made here and one made under a Prefect server
share one cache. With a Dask cluster (``aesi run --dask``,
``aesi_lib.steps.executor.dask_cluster``) the steps that the flows spread (parse batches,
encoder batches, the feature build) run on its workers; the rest stays in this process.

Nothing here decides what a run does: the flows do, the same code under Prefect or here.
"""

from __future__ import annotations

import contextvars
from typing import Any

from aesi_lib.steps.logs import RUNNING_STEP

DASK_CLIENT: contextvars.ContextVar[Any] = contextvars.ContextVar("aesi_dask_client",
                                                                default=None)
"""The Dask client of the flow :func:`run_flow` runs in this context (None: no cluster)."""


def in_flow_run() -> bool:
    """Whether this code runs inside a Prefect flow run (else its steps run here)."""
    from prefect.context import FlowRunContext

    return FlowRunContext.get() is not None


def run_flow(flow: Any, dask: Any = None, **parameters: Any) -> Any:
    """The flow's function called with ``parameters`` in this process, its steps run by
    ``aesi_lib.steps.executor.Executor`` (the steps it spreads on the workers of the Dask
    client ``dask``, when one is given: ``aesi_lib.steps.executor.dask_cluster``); its return
    value. The log's lines outside a step name the flow."""
    token = RUNNING_STEP.set(flow.name)
    client = DASK_CLIENT.set(dask)
    try:
        return flow.fn(**parameters)
    finally:
        DASK_CLIENT.reset(client)
        RUNNING_STEP.reset(token)
