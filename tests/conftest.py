"""Shared fixtures."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

from aesi_cli.environment import telemetry_off
from aesi_lib.corpus.muc4 import MUC4_DIR_ENV, resolve_muc4_dir
from aesi_lib.errors import InputError

#: Set (by ``.ci/run`` where ``../shared/data/muc4`` exists) to make a missing corpus fail the
#: MUC-4 tests instead of skipping them.
REQUIRE_MUC4_ENV = "AESI_REQUIRE_MUC4"

REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """Prefect's telemetry off, and under pytest-xdist the usable cores shared between the
    workers' BLAS threads.

    The tests call flows in this process, without the command line that switches telemetry
    off for its commands (``aesi_cli.main``), so they do it here, before a test module
    imports Prefect (whose client starts its analytics on import); values already in the
    environment win, as on the command line.

    Prefect's SDK (``prefect.main``, which sets up Prefect's logging) is imported here, once
    telemetry is off: its console log handler keeps the ``sys.stderr`` of the moment that
    set-up runs. Imported first by a test under ``capsys`` (one that calls ``aesi_cli.main``
    in this process), it kept a stream that closes with that test, and any later test's flow
    run logged into it: the write failed, Prefect's print-to-log patch turned the error report
    into another log record, and the test ended in a RecursionError (``tests/test_cli.py``
    before ``tests/test_flow_pipeline.py`` in one process). Here it keeps the session's
    stream.

    With one BLAS pool per worker as wide as the machine, two workers on two cores run four
    threads, and the small products of the tests' cuts spend more on waking and switching
    threads than they save (README, "Quick start"). Results do not depend on the thread count
    (README, "Reproducibility"). The child processes of a worker inherit the limit.
    """
    telemetry_off()
    import prefect.main  # noqa: F401 - see the docstring
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if not workers:
        return
    threads = max(1, len(os.sched_getaffinity(0)) // int(workers))
    threadpool_limits(threads)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, str(threads))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules that hold a test marked ``slow`` first, the others in their collected order.

    Under ``--dist loadfile`` a module is the unit a worker takes, and the workers take them in
    this order (``./scripts/test.sh`` passes ``--no-loadscope-reorder``, so that pytest-xdist
    keeps it; by default it puts the modules with the most tests first). The MUC-4 module's
    cold run is the longest of them: started late, it ran alone for minutes after the other
    worker had finished; started first, the other worker runs the rest of the suite beside
    it. Each module's tests stay together, and the sort is stable, so the workers'
    collections agree."""
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(scope="session")
def muc4_dir() -> Path:
    """The MUC-4 corpus folder. A folder named by ``$AESI_MUC4_DIR`` that does not exist fails
    the test (a path the user chose is never silently skipped); without the corpus the test is
    skipped, or fails under ``$AESI_REQUIRE_MUC4``."""
    try:
        found = resolve_muc4_dir()
    except InputError as exc:
        pytest.fail(f"{MUC4_DIR_ENV} names {exc.path}, which is not a folder")
    if found is None:
        reason = f"MUC-4 corpus not found at ${MUC4_DIR_ENV} or ../shared/data/muc4"
        if os.environ.get(REQUIRE_MUC4_ENV):
            pytest.fail(f"{reason}, and {REQUIRE_MUC4_ENV} says it must be there")
        pytest.skip(reason)
    return found


#: The project folders whose files are content-addressed (named by what made them), so that a
#: copy in another project is reused there as it would be in the project that wrote it.
CONTENT_ADDRESSED_CACHES = ("parse-cache", "context-vectors")


@dataclass(frozen=True)
class DemoSeed:
    """What one cold ``aesi run --demo`` leaves that other runs may start from: the demo's
    parse and context-vector caches, and a Prefect home whose database exists already; and
    what it wrote (``out``: the export of the default preset, seed 0)."""

    caches: Path
    prefect_home: Path
    out: Path

    def copy_to(self, project: Path | None = None, prefect_home: Path | None = None) -> None:
        """Give a new run the caches in its ``project`` folder and its own copy of the Prefect
        home at ``prefect_home`` (each skipped when None)."""
        if project is not None:
            shutil.copytree(self.caches, project)
        if prefect_home is not None:
            shutil.copytree(self.prefect_home, prefect_home)


@pytest.fixture(scope="session")
def demo_seed(tmp_path_factory) -> DemoSeed:
    """One cold ``aesi run --demo`` per session, for the tests of what happens around a run
    (signals, errors raised inside the solve): they start from its copy instead of parsing,
    embedding and creating the Prefect database again. The cold path is tested on its own.
    Under pytest-xdist the workers share one seed (made by whichever asks first)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent                  # the folder every worker's own folder is in
    root = base / "demo-seed"
    with open(base / "demo-seed.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "caches").is_dir():
            _make_demo_seed(root)
    return DemoSeed(caches=root / "caches", prefect_home=root / "prefect-home", out=root / "out")


def _make_demo_seed(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)     # what a failed attempt left
    root.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(root / "prefect-home"), "PYTHONPATH": str(REPO),
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"})
    done = subprocess.run(
        [sys.executable, "-m", "aesi_cli", "run", "--demo", "--project-dir",
         str(root / "project"), "--out", str(root / "out")],
        env=env, cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for name in CONTENT_ADDRESSED_CACHES:      # the renamed folder marks the seed complete
        shutil.copytree(root / "project" / name, root / "caches-partial" / name)
    (root / "caches-partial").rename(root / "caches")
