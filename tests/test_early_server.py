"""The temporary Prefect server that ``aesi run``, ``update`` and ``sweep`` launch first thing
under ``--dask`` without a Prefect API of the user's
(``flows.cli.environment.launch_early_server``): launched before the command imports Prefect,
its flows or the model, used by the flow (no second server), stopped on every way out (an
error, the end of the run), and not launched where the command may not need it; without
``--dask`` a command runs its flow in its own process and launches none. At exit the garbage
collector is frozen (``flows.cli.main``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from aesi_lib.errors import ApiUnreachableError
from flows.cli.environment import SERVER_LOG, launch_early_server, prefect_api
from flows.cli.server import TemporaryServer

REPO = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "prefect-home"), "PYTHONPATH": str(REPO),
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"})
    return env


def _launches(tmp_path: Path, *argv: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    done = subprocess.run([sys.executable, str(REPO / "tests" / "server_launches.py"), *argv],
                          env=_env(tmp_path), cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    return done, json.loads(done.stdout.strip().splitlines()[-1])


def test_the_server_is_launched_before_the_imports_and_stopped_after_an_error(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    done, report = _launches(tmp_path, "run", "--demo", "--dask", "--project-dir",
                             str(project), "--out", str(tmp_path / "out"), "--keep-runs", "-1")
    assert report["code"] == 2
    assert done.stderr == "aesi: error: --keep-runs must be 0 or more, not -1\n"
    assert report["launches"] == [{"imported": [], "alive_after": False}]
    assert (project / SERVER_LOG).is_file()
    assert not (tmp_path / "out").exists()


def test_a_dask_run_uses_the_server_launched_at_its_start_and_stops_it(tmp_path, demo_seed):
    project = tmp_path / "project"
    demo_seed.copy_to(project, tmp_path / "prefect-home")
    done, report = _launches(tmp_path, "run", "--demo", "--dask", "--dask-threads",
                             "--project-dir", str(project), "--out", str(tmp_path / "out"))
    assert report["code"] == 0, done.stderr[-3000:]
    assert report["launches"] == [{"imported": [], "alive_after": False}]   # one server
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["flow_run_id"] is not None


def test_a_run_without_dask_launches_no_server(tmp_path, demo_seed):
    project = tmp_path / "project"
    demo_seed.copy_to(project, tmp_path / "prefect-home")
    done, report = _launches(tmp_path, "run", "--demo", "--project-dir", str(project),
                             "--out", str(tmp_path / "out"))
    assert report == {"code": 0, "launches": []}, done.stderr[-3000:]
    assert "no Prefect API configured: the flow runs in this process" in done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["flow_run_id"] is None
    assert not (project / SERVER_LOG).exists()


def test_no_server_is_launched_for_a_new_project_before_its_checks(tmp_path):
    """No project folder yet: nothing is launched first (a failing check would leave the
    folder made for the server's log); such a run starts its server after its checks."""
    done, report = _launches(tmp_path, "run", "--demo", "--dask", "--project-dir",
                             str(tmp_path / "new"), "--out", str(tmp_path / "out"),
                             "--keep-runs", "-1")
    assert report == {"code": 2, "launches": []}
    assert not (tmp_path / "new").exists()


def test_no_early_server_where_the_command_may_not_need_one(tmp_path, monkeypatch):
    from tests.test_project_lock import hold_lock

    assert launch_early_server(tmp_path / "missing") is None
    assert not (tmp_path / "missing").exists()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    assert launch_early_server(project) is None
    monkeypatch.delenv("PREFECT_API_URL")
    holder = hold_lock(project, 60)
    try:
        assert launch_early_server(project) is None     # the command says who holds it
    finally:
        holder.kill()
        holder.wait()
    assert not (project / SERVER_LOG).exists()


def test_an_api_named_by_the_profile_stops_the_early_server(tmp_path):
    """A profile's PREFECT_API_URL is read only with Prefect's settings, after the launch."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/api"
    server = TemporaryServer(tmp_path / SERVER_LOG)
    server.launch()
    process = server.process
    assert process is not None
    try:
        with temporary_settings({PREFECT_API_URL: url}), pytest.raises(ApiUnreachableError):
            with prefect_api(tmp_path, server=server):
                pass
        assert not server.launched
        assert process.poll() is not None
    finally:
        server.stop()


def test_the_garbage_collector_is_frozen_at_exit_after_a_command():
    code = ("import atexit, gc, sys\n"
            "if sys.argv[1] == 'command':\n"
            "    from flows.cli import main\n"
            "    main(['config'])\n"
            "atexit._run_exitfuncs()\n"
            "print(gc.get_freeze_count(), file=sys.stderr)\n")
    counts = [int(subprocess.run([sys.executable, "-c", code, arg], capture_output=True,
                                 text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
                                 check=True).stderr.split()[-1]) for arg in ("none", "command")]
    assert counts[0] == 0 and counts[1] > 0
