"""Run ``aesi`` and report, as JSON on the last line of stdout, each launch of its temporary
Prefect server: which of the command's heavy modules were imported by then, and whether the
server process was still alive once the command had returned.

Usage: ``python tests/server_launches.py aesi-arguments...``. It wraps
``TemporaryServer.launch`` in the running process only: the command line carries no hook for
tests.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from flows.cli import main
from flows.cli.server import TemporaryServer

HEAVY_MODULES = ("prefect", "flows.induce", "flows.update", "aesi_lib.model", "pandas")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:           # a zombie is gone too
        return fh.read().rsplit(")", 1)[1].split()[0] != "Z"


if __name__ == "__main__":
    launches: list[dict[str, Any]] = []
    launch = TemporaryServer.launch

    def recorded_launch(self: TemporaryServer) -> None:
        launch(self)
        assert self.process is not None
        if any(r["pid"] == self.process.pid for r in launches):
            return
        launches.append({"pid": self.process.pid,
                         "imported": [m for m in HEAVY_MODULES if m in sys.modules]})

    TemporaryServer.launch = recorded_launch      # type: ignore[method-assign]
    code = main(sys.argv[1:])
    for record in launches:
        record["alive_after"] = _alive(record.pop("pid"))
    print(json.dumps({"code": code, "launches": launches}), flush=True)
    sys.exit(code)
