"""The project lock (``aesi_lib.project_lock``): a second writer learns at once that a project
is in use, and by whom, or waits for it; the holder's process takes it again without waiting
for itself; the kernel releases it however the holder ends. The command line's line and
``--wait``: tests/test_cli_failures.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aesi_lib.errors import ProjectLockedError
from aesi_lib.project_lock import LOCK_FILE, check_not_in_use, lock_holder, project_lock

REPO = Path(__file__).resolve().parents[1]

AT_ONCE_S = 1.0


def hold_lock(project: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process that holds the lock of ``project`` for ``seconds``; returns once it
    holds it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n"
         "from aesi_lib.project_lock import project_lock\n"
         "with project_lock(sys.argv[1], 'aesi update'):\n"
         "    print('held', flush=True)\n"
         "    time.sleep(float(sys.argv[2]))\n", str(project), str(seconds)],
        env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "held\n"
    return proc


def test_a_second_writer_is_refused_at_once_with_the_holder(tmp_path):
    project = tmp_path / "project"
    holder = hold_lock(project, 30)
    try:
        started = time.monotonic()
        with pytest.raises(ProjectLockedError) as refused, project_lock(project, "aesi run"):
            pytest.fail("took a lock another process holds")
        assert time.monotonic() - started < AT_ONCE_S
        message = str(refused.value)
        assert message.startswith(f"{project}: the project is in use by another aesi process "
                                  f"(pid {holder.pid}, aesi update, since ")
        assert message.endswith("wait for it to finish, rerun with --wait to start when it "
                                "has, or give another --project-dir")
        with pytest.raises(ProjectLockedError):
            check_not_in_use(project)
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    project = tmp_path / "project"
    holder = hold_lock(project, 60)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    check_not_in_use(project)
    with project_lock(project, "aesi run") as path:
        assert path == project.resolve() / LOCK_FILE
        assert lock_holder(project).startswith(f"pid {os.getpid()}, aesi run, since ")


def test_wait_queues_behind_the_holder(tmp_path):
    project = tmp_path / "project"
    holder = hold_lock(project, 2)
    told: list[str] = []
    started = time.monotonic()
    with project_lock(project, "aesi update", wait=True, on_wait=told.append):
        waited = time.monotonic() - started
    assert waited > 1.0
    assert len(told) == 1 and told[0].startswith(f"pid {holder.pid}, aesi update")
    holder.wait()


def test_the_holders_own_process_takes_it_again_at_once(tmp_path):
    project = tmp_path / "project"
    with project_lock(project, "aesi run"):
        check_not_in_use(project)
        with project_lock(project, "aesi-induce flow"):       # the flow inside the command
            pass
        # Still held after the inner block: another process is refused.
        done = subprocess.run(
            [sys.executable, "-c", "import sys\nfrom aesi_lib.project_lock import "
             "check_not_in_use\ncheck_not_in_use(sys.argv[1])", str(project)],
            env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
        assert done.returncode == 1 and "ProjectLockedError" in done.stderr
    check_not_in_use(project)


def test_checking_a_new_project_creates_nothing(tmp_path):
    check_not_in_use(tmp_path / "new")
    assert not (tmp_path / "new").exists()
