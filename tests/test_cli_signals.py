"""A run stopped by a signal leaves no process behind and says how to go on.

``aesi run --demo`` runs as a subprocess in its own session (like a terminal's foreground job),
with no ``PREFECT_API_URL``, so it runs its flow in its own process and starts no Prefect server
(``aesi_flows.in_process``);
``tests/paused_solve.py`` holds the solve after its first iteration and writes a marker, and the
test then sends the signal. Before the signal the test lists the run's processes (its process
group and every descendant); afterwards none of them may remain (a zombie, already dead, counts
as gone), and no server process that appeared during the run may be left naming the run as its
parent or re-parented to PID 1.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MARKER_TIMEOUT_S = 120
GONE_TIMEOUT_S = 15
#: What the command line of a Prefect server process holds (``prefect server start`` runs
#: uvicorn); a command with no API configured starts none.
SERVER_COMMANDS = ("uvicorn", "prefect server", "prefect.server")


def _processes() -> dict[int, dict[str, object]]:
    """pid -> {ppid, pgid, state, cmd} of every process (Linux /proc)."""
    found: dict[int, dict[str, object]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        found[int(entry.name)] = {"state": fields[0], "ppid": int(fields[1]),
                                  "pgid": int(fields[2]), "cmd": cmd.strip()}
    return found


def _alive(pid: int) -> bool:
    proc = _processes().get(pid)
    return proc is not None and proc["state"] != "Z"


def _servers() -> dict[int, dict[str, object]]:
    """Live Prefect server processes (Prefect's own, under uvicorn)."""
    return {pid: p for pid, p in _processes().items() if p["state"] != "Z"
            and _is_server(str(p["cmd"]))}


def _is_server(command: str) -> bool:
    return any(part in command for part in SERVER_COMMANDS)


def _leaked_servers(root: int, before: set[int]) -> dict[int, str]:
    """Servers that appeared during the run and outlived it: one naming the run as its parent,
    or one re-parented to PID 1 (other sessions' servers, e.g. of tests running beside this
    one, keep their living parents)."""
    return {pid: str(p["cmd"]) for pid, p in _servers().items() if pid not in before
            and (f"--parent-pid {root} " in f"{p['cmd']} " or p["ppid"] == 1)}


def _run_processes(root: int) -> dict[int, str]:
    """The process group of ``root`` and all its descendants (in any session)."""
    procs = _processes()
    members = {pid for pid, p in procs.items() if p["pgid"] == root} | {root}
    grew = True
    while grew:
        children = {pid for pid, p in procs.items() if p["ppid"] in members} - members
        members |= children
        grew = bool(children)
    return {pid: str(procs[pid]["cmd"]) for pid in members if pid in procs}


@pytest.fixture
def paused_run(tmp_path, demo_seed):
    """Start ``aesi run --demo`` held inside its solve; yields (process, its processes, out).
    The run starts from the session's demo caches and Prefect home (``demo_seed``)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc")
    demo_seed.copy_to(tmp_path / "project", tmp_path / "prefect-home")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "prefect-home"), "PYTHONPATH": str(REPO),
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"})
    marker = tmp_path / "solve-paused"
    before = set(_servers())
    out = {"stdout": tmp_path / "stdout.txt", "stderr": tmp_path / "stderr.txt"}
    with out["stdout"].open("w") as so, out["stderr"].open("w") as se:
        proc = subprocess.Popen(
            [sys.executable, str(REPO / "tests" / "paused_solve.py"), str(marker), "120",
             "run", "--demo", "--project-dir", str(tmp_path / "project"), "--out",
             str(tmp_path / "out")],
            env=env, cwd=tmp_path, stdout=so, stderr=se, start_new_session=True)
    try:
        deadline = time.monotonic() + MARKER_TIMEOUT_S
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert marker.exists(), out["stderr"].read_text()[-3000:]
        members = _run_processes(proc.pid)
        servers = [pid for pid, cmd in members.items() if _is_server(cmd)]
        assert servers == [], members              # the flow runs in the command's process
        yield {"proc": proc, "members": members, "out": out, "before": before}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _all_gone(run: dict) -> None:
    deadline = time.monotonic() + GONE_TIMEOUT_S
    while time.monotonic() < deadline and any(_alive(pid) for pid in run["members"]):
        time.sleep(0.2)
    left = {pid: cmd for pid, cmd in run["members"].items() if _alive(pid)}
    assert left == {}, left
    assert _leaked_servers(run["proc"].pid, run["before"]) == {}


def _signal_and_wait(run: dict, send) -> tuple[int, str, str]:
    sizes = {name: path.stat().st_size for name, path in run["out"].items()}
    send(run["proc"].pid)
    code = run["proc"].wait(timeout=60)
    # Sizes are in bytes, and the log before the signal may hold non-ASCII characters.
    after = {name: path.read_bytes()[sizes[name]:].decode() for name, path in run["out"].items()}
    return code, after["stdout"], after["stderr"]


def test_ctrl_c_prints_one_line_and_exits_130(paused_run):
    code, stdout, stderr = _signal_and_wait(
        paused_run, lambda pid: os.killpg(pid, signal.SIGINT))    # a terminal's Ctrl-C
    assert code == 130
    assert stderr == "aesi: interrupted; rerun the same command to resume\n"
    assert stdout == ""
    _all_gone(paused_run)


def test_sigterm_cleans_up_and_exits_143(paused_run):
    code, stdout, stderr = _signal_and_wait(paused_run, lambda pid: os.kill(pid, signal.SIGTERM))
    assert code == 143
    assert stderr.splitlines()[-1] == "aesi: terminated; rerun the same command to resume"
    assert "Traceback" not in stderr + stdout
    _all_gone(paused_run)


def test_sigkill_leaves_no_process_behind(paused_run):
    code, _, _ = _signal_and_wait(paused_run, lambda pid: os.kill(pid, signal.SIGKILL))
    assert code == -signal.SIGKILL
    _all_gone(paused_run)


PARSE_STOP_S = 10.0
"""How soon a signal ends a command in the middle of parsing a large document (the parse of
the test's documents takes over 40 s; before the workers were stopped on a signal, the
command waited for it to finish, and then retried it)."""


def _large_corpus(folder: Path) -> Path:
    """Two documents of 900,000 characters (under the default length limit) and a small one."""
    from aesi_lib.corpus.demo import load_demo_corpus

    folder.mkdir()
    texts = [d.text for d in load_demo_corpus().documents]
    text = "\n\n".join(texts)
    large = ("\n\n".join([text] * (900_000 // len(text) + 1)))[:900_000]
    for name in ("large-1", "large-2"):
        (folder / f"{name}.txt").write_text(large)
    (folder / "small.txt").write_text(texts[0])
    return folder


@pytest.fixture
def parsing_run(tmp_path, demo_seed):
    """``aesi run --docs`` on large documents, held while its two parse worker processes
    parse; yields as :func:`paused_run` does."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc")
    demo_seed.copy_to(prefect_home=tmp_path / "prefect-home")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "prefect-home"), "PYTHONPATH": str(REPO),
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"})
    before = set(_servers())
    out = {"stdout": tmp_path / "stdout.txt", "stderr": tmp_path / "stderr.txt"}
    with out["stdout"].open("w") as so, out["stderr"].open("w") as se:
        proc = subprocess.Popen(
            [sys.executable, "-m", "aesi_cli", "run", "--docs",
             str(_large_corpus(tmp_path / "docs")), "--parse-processes", "2",
             "--project-dir", str(tmp_path / "project"), "--out", str(tmp_path / "out")],
            env=env, cwd=tmp_path, stdout=so, stderr=se, start_new_session=True)
    try:
        deadline = time.monotonic() + MARKER_TIMEOUT_S
        workers: list[int] = []
        while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = [pid for pid, cmd in _run_processes(proc.pid).items()
                       if "aesi_lib.parse.parallel" in cmd and _alive(pid)]
        assert len(workers) == 2, out["stderr"].read_text()[-3000:]
        time.sleep(5)                       # the workers load their models and parse
        assert proc.poll() is None and "parsed 3 documents" not in out["stderr"].read_text()
        members = _run_processes(proc.pid)
        yield {"proc": proc, "members": members, "workers": workers, "out": out,
               "before": before}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.parametrize(("send", "code", "line"), [
    (lambda pid: os.killpg(pid, signal.SIGINT), 130,
     "aesi: interrupted; rerun the same command to resume"),
    (lambda pid: os.kill(pid, signal.SIGTERM), 143,
     "aesi: terminated; rerun the same command to resume"),
], ids=["ctrl-c", "sigterm"])
def test_a_signal_stops_the_parse_workers_at_once_and_nothing_is_retried(parsing_run, send,
                                                                         code, line):
    sent = time.monotonic()
    exit_code, stdout, stderr = _signal_and_wait(parsing_run, send)
    seconds = time.monotonic() - sent
    assert exit_code == code
    assert seconds < PARSE_STOP_S, (seconds, stderr[-3000:])
    assert stderr.splitlines()[-1] == line
    for noise in ("Traceback", "Retry", "Logging error", "ParseWorkerError", "ParsePoolClosed"):
        assert noise not in stdout + stderr, (noise, stderr[-3000:])
    _all_gone(parsing_run)
    assert not any(_alive(pid) for pid in parsing_run["workers"])
