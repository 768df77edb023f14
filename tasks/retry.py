"""The retry policy of the steps that can fail for passing reasons: reading input files,
parsing (memory pressure), writing to the DuckDB store (another process holding the lock for a
moment). User errors (bad input, a missing model) fail the same way every time, a full disk or
an I/O error (``aesi_lib.errors.write_fault``) does not pass in seconds, and parse workers that
were stopped because the command is ending (``ParsePoolClosed``: Ctrl-C, SIGTERM) must not be
started again: none of these is retried."""

from __future__ import annotations

from typing import Any

from prefect.tasks import exponential_backoff

from aesi_lib.errors import AesiError, StoreLockedError, write_fault
from aesi_lib.parse.parallel import ParsePoolClosed


def worth_retrying(task: Any, task_run: Any, state: Any) -> bool:
    """Retry a failure unless it is a user error (bad input, missing model), a write the
    machine refused (full disk, I/O error) or parse workers stopped on purpose. A locked store
    is worth waiting for."""
    error = state.data if isinstance(state.data, BaseException) else None
    if isinstance(error, StoreLockedError):
        return True
    return not (isinstance(error, AesiError | ParsePoolClosed)
                or write_fault(error) is not None)


RETRY = {"retries": 2, "retry_delay_seconds": exponential_backoff(backoff_factor=2),
         "retry_jitter_factor": 0.5, "retry_condition_fn": worth_retrying}
