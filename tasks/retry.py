"""The retry policy of the steps that can fail for passing reasons: reading input files,
parsing (memory pressure), writing to the DuckDB store (another process holding the lock for a
moment). User errors (bad input, a missing model) fail the same way every time and are not
retried."""

from __future__ import annotations

from typing import Any

from prefect.tasks import exponential_backoff

from aesi_lib.errors import AesiError, StoreLockedError


def worth_retrying(task: Any, task_run: Any, state: Any) -> bool:
    """Retry a failure unless it is a user error (bad input, missing model): those fail the
    same way every time. A locked store is worth waiting for."""
    error = state.data if isinstance(state.data, BaseException) else None
    return not isinstance(error, AesiError) or isinstance(error, StoreLockedError)


RETRY = {"retries": 2, "retry_delay_seconds": exponential_backoff(backoff_factor=2),
          "retry_jitter_factor": 0.5, "retry_condition_fn": worth_retrying}
