"""Where a step ran, for the run summary: which Dask worker or thread."""

from __future__ import annotations

import sys
import threading


def worker_name() -> str:
    """Where a step runs: the Dask worker's address, else the thread's name. A process that
    has not imported ``distributed`` is no Dask worker (importing it to ask takes 0.3 s)."""
    if "distributed" not in sys.modules:
        return threading.current_thread().name
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return threading.current_thread().name
