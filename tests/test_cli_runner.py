"""How a command runs its flow (``aesi_cli.environment.flow_runner``): in its own process when
no Prefect API is configured, its spread steps on a Dask cluster's workers under ``--dask``,
and as a Prefect flow run only when an API is configured, which must answer. At exit the
garbage collector is frozen (``aesi_cli.main``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from aesi_lib.errors import ApiUnreachableError

REPO = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "prefect-home"), "PYTHONPATH": str(REPO),
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"})
    return env


def _aesi(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aesi_cli", *argv], env=_env(tmp_path),
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)


def _children_named(pid: int, word: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid and word in cmd:
                found.append(cmd)
    return found


def test_a_run_on_a_local_dask_cluster_runs_in_process_and_spreads_its_batches(tmp_path,
                                                                             demo_seed):
    """``--dask`` without a Prefect API: no server, the parse and encoder batches on the
    cluster's workers, the labels of a run without Dask."""
    project = tmp_path / "project"
    demo_seed.copy_to(project, tmp_path / "prefect-home")
    done = _aesi(tmp_path, "run", "--demo", "--dask", "--dask-threads", "--batch-size", "10",
                 "--project-dir", str(project), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "no Prefect API configured: the flow runs in this process" in done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["flow_run_id"] is None
    workers = results["ingest"]["workers"]
    assert len(workers) >= 1 and all(w.startswith("inproc://") for w in workers)
    assert results["steps"]["parse+store"]["batches"] == 4
    # The seed's vector cache holds every document: the batches read it on the workers.
    assert results["steps"]["embed-batches"]["batches"] == 4
    assert results["steps"]["build-features"]["worker"].startswith("inproc://")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "out" / "assignments.parquet"),
                                  pd.read_parquet(demo_seed.out / "assignments.parquet"))


def test_a_configured_api_that_does_not_answer_stops_the_command_before_the_flow(tmp_path):
    """The profile's API is found with Prefect's settings and must answer."""
    import argparse

    from prefect.settings import PREFECT_API_URL, temporary_settings

    from aesi_cli.environment import flow_runner

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/api"
    with temporary_settings({PREFECT_API_URL: url}), pytest.raises(ApiUnreachableError):
        with flow_runner(argparse.Namespace(dask=None), "aesi_flows.extract", "extract_flow"):
            pytest.fail("the flow must not be reached")


def test_a_run_starts_no_server_process(tmp_path, demo_seed):
    project = tmp_path / "project"
    demo_seed.copy_to(project, tmp_path / "prefect-home")
    proc = subprocess.Popen([sys.executable, "-m", "aesi_cli", "run", "--demo",
                             "--project-dir", str(project), "--out", str(tmp_path / "out")],
                            env=_env(tmp_path), cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    servers: list[str] = []
    while proc.poll() is None:
        servers += _children_named(proc.pid, "uvicorn") + _children_named(proc.pid, "server")
        time.sleep(0.2)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr[-3000:]
    assert servers == []
    assert json.loads((tmp_path / "out" / "results.json").read_text())["flow_run_id"] is None


def test_the_garbage_collector_is_frozen_at_exit_after_a_command():
    code = ("import atexit, gc, sys\n"
            "if sys.argv[1] == 'command':\n"
            "    from aesi_cli import main\n"
            "    main(['config'])\n"
            "atexit._run_exitfuncs()\n"
            "print(gc.get_freeze_count(), file=sys.stderr)\n")
    counts = [int(subprocess.run([sys.executable, "-c", code, arg], capture_output=True,
                                 text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
                                 check=True).stderr.split()[-1]) for arg in ("none", "command")]
    assert counts[0] == 0 and counts[1] > 0
