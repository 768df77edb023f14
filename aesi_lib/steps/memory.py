"""Freed heap handed back to the system after each step of a run.

A flow's process runs every step in turn, and the allocators under them keep what a step
freed for the next allocation instead of returning it: Arrow's pool (mimalloc), which every
Parquet read and write goes through, and glibc's arenas, which DuckDB's results and pandas'
strings come from. Kept, those pages grow with the corpus (about 1 KB a mention on MUC-4
after the entity table and the PMI) and sit under every later step, the solve's features
included (docs/benchmarks.md, "Scale curve").
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

import pyarrow


def release_freed_memory() -> None:
    """Return the pages that Arrow's memory pool and the C heap hold free to the system.

    Cheap next to a step (a walk over the free lists), safe while other threads allocate,
    and a no-op where the C library has no ``malloc_trim`` (macOS, musl)."""
    pyarrow.default_memory_pool().release_unused()
    trim = malloc_trim()
    if trim is not None:
        trim(0)


def malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim
    except AttributeError:
        return None
