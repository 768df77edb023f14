"""Run ``aesi`` with the solve paused after its first iteration, so a test can kill it there.

Usage: ``python tests/paused_solve.py MARKER SECONDS aesi-arguments...``. The solve step calls
``aesi_lib.run.pipeline.run_induction`` with a progress callback; this wrapper writes MARKER
after the first iteration and then sleeps SECONDS, inside the running solve. It patches the
running process only: the library and the tasks carry no hook for tests.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from aesi_cli import main
from aesi_lib.run import pipeline


def _paused(marker: Path, seconds: float):
    induce = pipeline.run_induction

    def run_induction(features: Any, config: Any, progress: Any = None,
                      previous: Any = None, on_stage: Any = None) -> Any:
        def paused_progress(iteration: int, terms: dict[str, Any]) -> None:
            if progress is not None:
                progress(iteration, terms)
            marker.write_text(f"solve paused after iteration {iteration}\n")
            time.sleep(seconds)

        return induce(features, config, progress=paused_progress, previous=previous,
                      on_stage=on_stage)

    return run_induction


if __name__ == "__main__":
    marker, seconds, *argv = sys.argv[1:]
    pipeline.run_induction = _paused(Path(marker), float(seconds))
    sys.exit(main(argv))
