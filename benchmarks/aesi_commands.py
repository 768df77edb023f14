"""What the end-to-end benchmarks share: a snapshot of the code and the environment in which
their ``aesi`` commands run.

Cache keys hold a fingerprint of ``aesi_lib``, so a benchmark runs a copy of the code taken
at its start (edits made meanwhile would turn a cached stage into a new one), with a fresh
PREFECT_HOME of its own. The ``aesi`` commands turn Prefect's telemetry off themselves
(``aesi_cli.environment.telemetry_off``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Each package as the commands import it, and its folder in the repository.
PACKAGES = {"aesi_lib": "aesi_lib", "aesi_cli": "cli", "aesi_flows": "flows",
            "aesi_tasks": "tasks"}


def code_snapshot(work: Path) -> Path:
    """Copy the packages into ``work/code`` (replacing an older copy); return that folder."""
    code = work / "code"
    shutil.rmtree(code, ignore_errors=True)
    for package, folder in PACKAGES.items():
        shutil.copytree(REPO / folder, code / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return code


def command_environment(work: Path, code: Path) -> dict[str, str]:
    """This process's environment without its PREFECT_ settings, with ``work/prefect-home``
    as PREFECT_HOME and ``code`` first on the import path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"PREFECT_HOME": str(work / "prefect-home"), "PYTHONPATH": str(code)})
    return env
