"""The temporary Prefect server: launched without waiting, it runs the command's start-up work
while it boots, answers, and is stopped."""

from __future__ import annotations

import httpx

from flows.cli.server import TemporaryServer


def test_work_given_to_start_runs_once_while_the_server_boots(tmp_path):
    server = TemporaryServer(tmp_path / "server.log")
    calls: list[bool] = []

    def while_starting() -> None:
        # The server process exists but has not answered yet: this work overlaps its boot.
        calls.append(server.process is not None and server.process.poll() is None)

    try:
        server.launch()
        assert server.launched
        url = server.wait(timeout=120, while_starting=while_starting)
        assert httpx.get(f"{url}/health", timeout=5).status_code == 200
        process = server.process
    finally:
        server.stop()
    assert calls == [True]
    assert not server.launched and process is not None and process.poll() is not None
