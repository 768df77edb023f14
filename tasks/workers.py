"""Where a task ran, for the run summary: which Dask worker or thread."""

from __future__ import annotations

import threading


def worker_name() -> str:
    """Where a task runs: the Dask worker's address, else the thread's name."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return threading.current_thread().name
