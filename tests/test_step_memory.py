"""The heap a step freed goes back to the system before the next step
(aesi_lib.steps.memory)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import aesi_lib.steps.executor as executor
from aesi_lib.steps.executor import Executor
from aesi_lib.steps.memory import malloc_trim, release_freed_memory


def _resident_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_what_an_arrow_table_held_is_given_back():
    release_freed_memory()
    before = _resident_mib()
    strings = pa.array([f"mention {i} of a long news message" for i in range(1_500_000)])
    shuffled = pa.table({"s": strings}).take(np.random.default_rng(0).permutation(len(strings)))
    held = _resident_mib() - before
    assert held > 50, f"the table took only {held:.0f} MiB: nothing to measure"
    del strings, shuffled
    release_freed_memory()
    # Without the release, Arrow's pool keeps all of it.
    assert _resident_mib() - before < 0.25 * held


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_glibc_trim_is_found_on_linux():
    assert malloc_trim() is not None


def test_every_recorded_step_releases_freed_memory(monkeypatch):
    releases = []
    monkeypatch.setattr(executor, "release_freed_memory", lambda: releases.append(1))
    steps = Executor()
    steps.add("parse+store", "Completed", 1.5, batches=3)
    steps.add("embed-batches", "Skipped", 0.0)
    assert len(releases) == 2
    assert steps.records["parse+store"] == {"state": "Completed", "seconds": 1.5, "batches": 3}
