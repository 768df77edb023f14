"""The temporary Prefect API server of one ``aesi`` command, which cannot outlive it.

Prefect's own temporary server (``SubprocessASGIServer`` in ``prefect.server.api.server``) is a
plain child ``uvicorn`` process stopped by an ``atexit`` hook: a command killed with SIGKILL, or
with SIGTERM (Python's default action skips ``atexit``), leaves it running, re-parented to PID 1
(~230 MB), and a Ctrl-C in a terminal reaches it too (same process group), so the run's last
state and log messages have no server to go to. :class:`TemporaryServer` starts the same
application (``prefect.server.api.server:create_app``, no UI, ephemeral services) itself:

* in a new session, so that a terminal's Ctrl-C reaches aesi only, which then reports the
  interruption to the server and stops it;
* through :func:`serve` (``python -m flows.cli.server``), which asks the kernel for SIGTERM when
  its parent dies (Linux ``prctl(PR_SET_PDEATHSIG)``) and also watches its parent's pid from a
  thread (any POSIX system): a SIGKILLed aesi takes its server with it within a second.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from aesi_lib.errors import AesiError

PR_SET_PDEATHSIG = 1
WATCH_INTERVAL_S = 0.5
SHUTDOWN_GRACE_S = 8.0
"""Seconds the orphaned server gets to shut down cleanly before it exits anyway."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TemporaryServer:
    """A Prefect API server for the life of this process.

    Parameters
    ----------
    log_path : file that receives the server's output (its errors, when it fails to start).
    """

    def __init__(self, log_path: str | Path) -> None:
        self.log_path = Path(log_path)
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    @property
    def launched(self) -> bool:
        """Whether the server process was started and not stopped since."""
        return self.process is not None

    def launch(self) -> None:
        """Start the server process and return at once, before it answers (:meth:`wait`).

        A command launches it first thing, so that the server boots while the command imports
        its flows and checks its options. The server reads Prefect's settings (environment,
        profile) itself, as any Prefect process does; it does not import Prefect here.
        """
        if self.process is not None:
            return
        if self._log is None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("ab")
            atexit.register(self.stop)
        env = {**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1",
               "PREFECT__SERVER_FINAL": "1"}
        env.pop("PREFECT_API_URL", None)
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flows.cli.server", "--port", str(self.port),
             "--parent-pid", str(os.getpid())],
            env=env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)

    def wait(self, timeout: float = 120.0,
             while_starting: Callable[[], object] | None = None) -> str:
        """Wait until the launched server answers (launching it first if needed); returns its
        API URL.

        ``while_starting`` runs once, in this process, while the server process boots (for
        example the imports of the flows the command will run: the two overlap on two cores).
        A server that exits before it answers (another process took its port first) is
        launched again on another port, twice at most.

        Raises
        ------
        AesiError
            The server exited or did not answer within ``timeout`` seconds (with the end of its
            log).
        """
        import httpx

        if not self.launched:
            self.launch()
        deadline = time.monotonic() + timeout
        for attempt in range(3):
            if attempt:
                self.process = None
                self.launch()
            process = self.process
            assert process is not None
            if while_starting is not None:
                while_starting()
                while_starting = None
            with httpx.Client(timeout=2) as client:
                while time.monotonic() < deadline and process.poll() is None:
                    with contextlib.suppress(httpx.HTTPError):
                        if client.get(f"{self.api_url}/health").status_code == 200:
                            return self.api_url
                    time.sleep(0.1)
            if process.poll() is None:
                break                   # alive but silent: timed out
        self.stop()
        tail = " | ".join(self.log_path.read_text(errors="replace").strip().splitlines()[-3:])
        raise AesiError(f"the temporary Prefect server did not start within {timeout:.0f} s "
                        f"(log {self.log_path}: {tail or 'empty'}); start one with `prefect "
                        "server start` and set PREFECT_API_URL")

    def start(self, timeout: float = 120.0,
              while_starting: Callable[[], object] | None = None) -> str:
        """:meth:`launch` and :meth:`wait`: start the server and wait until it answers."""
        self.launch()
        return self.wait(timeout, while_starting)

    def stop(self, grace: float = 10.0) -> None:
        """Stop the server (SIGTERM to its session, SIGKILL after ``grace`` s). Idempotent."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        elif process is not None:
            process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None


def _die_with_parent(parent: int) -> None:
    """SIGTERM to this process when ``parent`` dies; exit at once if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os._exit(0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_INTERVAL_S)
        os.kill(os.getpid(), signal.SIGTERM)     # uvicorn shuts down cleanly ...
        time.sleep(SHUTDOWN_GRACE_S)
        os._exit(0)                               # ... or not at all

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def serve(port: int, parent: int) -> None:
    """Run Prefect's API application on 127.0.0.1:``port`` until SIGTERM or ``parent`` dies."""
    _die_with_parent(parent)
    import uvicorn

    uvicorn.run("prefect.server.api.server:create_app", factory=True, host="127.0.0.1",
                port=port, log_level="error", lifespan="on")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--parent-pid", type=int, required=True)
    options = parser.parse_args()
    serve(options.port, options.parent_pid)
