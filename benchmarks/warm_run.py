"""Wall clock of a warm ``aesi run``: a project whose caches hold every step, run again with
nothing changed, as a user sees it (Python start-up, imports, the flow, the printing).

Usage::

    .venv/bin/python benchmarks/warm_run.py --project-dir DIR --out OUT --repeat 3 \
        [--code PATH ...] [-- extra aesi run arguments, e.g. --demo]

Each repetition is one ``python -m aesi_cli run --project-dir DIR --out OUT ...`` in a fresh
process, without ``PREFECT_API_URL`` (so the flow runs in the command's own process) and with
the rest of the environment as it is. The project must have had one full run with the same
arguments first (a run that parses a document is refused as not warm). ``--code`` names the
source trees whose ``aesi_lib``, ``cli``, ``flows`` and ``tasks`` the command imports
(``PYTHONPATH``, through links named as the tree installs them, :func:`import_path`; default
this repository); with several, the repetitions alternate between them (A B A B ...), so that
before and after are measured side by side on a shared machine. Their ``aesi_lib`` must be the
same: its fingerprint is part of every cache key, and another library would make the run cold.

Prints one line per run and, per code tree, the median and the minimum of the wall times and of
the flow's own total (``results.json``), and the median of the rest (start-up, imports,
printing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from aesi_commands import PACKAGES

REPO = Path(__file__).resolve().parents[1]


def import_path(code: Path, links: Path) -> tuple[str, Path]:
    """The command's module and the folder to put first on ``PYTHONPATH`` for the source tree
    ``code``: a tree that installs its folders under the project's own names (``aesi_cli``,
    ``aesi_flows``, ``aesi_tasks``; before ``aesi_cli`` the command line was
    ``aesi_flows.cli``) gets a folder of links under those names in ``links``; an older
    tree, whose names were ``flows`` and ``tasks``, is its own folder."""
    installs = (code / "pyproject.toml").read_text()
    if "aesi_flows" not in installs:
        return "flows.cli", code
    own_cli = "aesi_cli" in installs
    links.mkdir(parents=True, exist_ok=True)
    for name, folder in PACKAGES.items():
        if (own_cli or name != "aesi_cli") and not (links / name).is_symlink():
            (links / name).symlink_to(code / folder, target_is_directory=True)
    return ("aesi_cli" if own_cli else "aesi_flows.cli"), links


def run_once(code: Path, project: Path, out: Path, extra: list[str], log: Path
             ) -> dict[str, Any]:
    """One ``aesi run`` with the code of ``code``; its wall time and the flow's figures."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    tree = hashlib.sha1(str(code.resolve()).encode()).hexdigest()[:12]
    module, path = import_path(code, log.parent / f"code-{tree}")
    env["PYTHONPATH"] = str(path)
    args = [sys.executable, "-m", module, "run", "--project-dir", str(project),
            "--out", str(out), *extra]
    started = time.perf_counter()
    with log.open("w") as fh:
        done = subprocess.run(args, env=env, cwd=code, stdout=fh, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"aesi run failed (exit {done.returncode}); see {log}:\n"
                         + log.read_text()[-3000:])
    results = json.loads((out / "results.json").read_text())
    parsed = int(results.get("documents_parsed", 0))
    if parsed:
        raise SystemExit(f"not a warm run: {parsed} documents parsed (run the same command "
                         f"once first); see {log}")
    return {"wall_s": wall, "flow_s": float(results["timings"]["total"]), "log": str(log)}


def summary(runs: list[dict[str, Any]]) -> dict[str, float]:
    walls = [r["wall_s"] for r in runs]
    flows = [r["flow_s"] for r in runs]
    return {"median_s": statistics.median(walls), "min_s": min(walls),
            "flow_median_s": statistics.median(flows),
            "rest_median_s": statistics.median(w - f for w, f in zip(walls, flows,
                                                                      strict=True))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project-dir", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="runs per code tree")
    parser.add_argument("--code", type=Path, action="append",
                        help="source tree to run (repeatable; default this repository)")
    parser.add_argument("--logs", type=Path, help="folder of the runs' logs (default: --out's "
                        "parent folder, warm-run-logs)")
    parser.add_argument("extra", nargs=argparse.REMAINDER,
                        help="after --: further arguments of aesi run (e.g. --demo)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be 1 or more")
    extra = args.extra[1:] if args.extra[:1] == ["--"] else args.extra
    codes = [c.resolve() for c in (args.code or [REPO])]
    project, out = args.project_dir.resolve(), args.out.resolve()
    if not (project / "aesi.duckdb").is_file():
        raise SystemExit(f"{project} holds no aesi project: run `aesi run` there once first")
    logs = (args.logs or out.parent / "warm-run-logs").resolve()
    logs.mkdir(parents=True, exist_ok=True)

    runs: dict[Path, list[dict[str, Any]]] = {c: [] for c in codes}
    for i in range(args.repeat):
        for n, code in enumerate(codes):
            run = run_once(code, project, out, extra, logs / f"run-{i}-{n}.log")
            runs[code].append(run)
            print(f"{code}: run {i + 1}: {run['wall_s']:.1f} s wall, flow {run['flow_s']:.1f} s",
                  flush=True)
    print(f"\nwarm aesi run of {project} ({os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d %H:%M')}), {args.repeat} runs each\n")
    print("| code | median wall (s) | min wall (s) | median flow (s) | median rest (s) |")
    print("|---|---|---|---|---|")
    for code, done in runs.items():
        s = summary(done)
        print(f"| {code} | {s['median_s']:.1f} | {s['min_s']:.1f} | {s['flow_median_s']:.1f} "
              f"| {s['rest_median_s']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
