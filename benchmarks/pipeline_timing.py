"""End-to-end timing of the Prefect pipeline on MUC-4: cold, unchanged, +10 documents.

Three stages, each one ``aesi`` command in a fresh process (so every figure includes Python
start-up, imports and Prefect's temporary API server, as a user sees it):

1. ``aesi run`` on the full MUC-4 corpus with an empty project folder and parse cache;
2. the same command again with nothing changed (target: ≤ 20 s, no document parsed);
3. ``aesi update --docs new.jsonl`` with 10 new documents (target: ≤ 25% of the cold run and
   exactly 10 documents parsed). The 10 documents are the first TST4 messages in their original
   mixed-case version (``tst4/tst4-muc4.mixed-case``) under new ids: real texts that are in
   neither the store nor the parse cache.

Usage::

    .venv/bin/python benchmarks/pipeline_timing.py [--muc4-dir DIR] [--work DIR] [--keep]

"peak memory" is the ``aesi`` process's own; the parse worker processes it starts (one per
usable core for a large ingest, none for a few documents) have their own column.

Prints the stage table and the per-step table of every stage (Markdown) and writes them, with
the raw results, to ``<work>/pipeline_timing.json``. ``--work`` defaults to a new temporary
folder (removed afterwards unless ``--keep``); PREFECT_HOME is a fresh folder inside it, so
the cold run also pays for creating Prefect's database. Without ``--keep`` the project folder
and PREFECT_HOME are removed at the end; the tables and the logs of the commands stay.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aesi_commands import REPO, code_snapshot, command_environment

TARGETS = {"unchanged_s": 20.0, "update_share": 0.25, "cold_s": 300.0}


def new_documents(muc4_dir: Path, out: Path, n: int = 10) -> list[str]:
    """Write ``n`` TST4 messages (mixed-case originals) with new ids to a JSONL file."""
    from aesi_lib.corpus.muc4 import read_muc4_messages

    docs = read_muc4_messages(muc4_dir / "tst4" / "tst4-muc4.mixed-case", "new")[:n]
    if len(docs) < n:
        raise SystemExit(f"only {len(docs)} messages in the mixed-case TST4 file")
    ids = [f"NEW-{d.doc_id}" for d in docs]
    out.write_text("".join(json.dumps({"id": i, "text": d.text}) + "\n"
                           for i, d in zip(ids, docs, strict=True)))
    return ids


def run_stage(name: str, args: list[str], env: dict[str, str], cwd: Path, out: Path
              ) -> dict[str, Any]:
    """Run one ``aesi`` command; return its wall time and its results.json."""
    log = cwd / f"{name}.log"
    started = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "aesi_cli", *args], env=env, cwd=cwd,
                                stdout=fh, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    returncode = os.waitstatus_to_exitcode(status)
    if returncode != 0:
        raise SystemExit(f"stage {name} failed (exit {returncode}); see {log}:\n"
                         + log.read_text()[-3000:])
    results = json.loads((out / "results.json").read_text())
    print(f"{name}: {wall:.1f} s ({results['documents_parsed']} documents parsed)",
          flush=True)
    return {"wall_s": wall, "peak_rss_gb": usage.ru_maxrss / 2**20, "results": results,
            "log": str(log)}


def steps_table(stages: dict[str, dict[str, Any]]) -> str:
    names: list[str] = []
    for stage in stages.values():
        for step in stage["results"]["steps"]:
            if step not in names:
                names.append(step)
    header = "| step | " + " | ".join(stages) + " |"
    lines = [header, "|---" * (len(stages) + 1) + "|"]
    for step in names:
        cells = []
        for stage in stages.values():
            record = stage["results"]["steps"].get(step)
            cells.append("–" if record is None else
                         f"{record['seconds']:.1f} ({record['state'].lower()})")
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    cells = [f"{s['results']['timings']['total']:.1f}" for s in stages.values()]
    lines.append("| flow total | " + " | ".join(cells) + " |")
    cells = [f"{s['wall_s']:.1f}" for s in stages.values()]
    lines.append("| **end to end (process)** | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--muc4-dir", default=str(REPO.parent / "shared" / "data" / "muc4"))
    parser.add_argument("--work", help="working folder (default: a new temporary folder)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the project folder and PREFECT_HOME")
    parser.add_argument("--no-snapshot", action="store_true",
                        help="run the code in the repository as it is at each stage, instead "
                        "of a copy taken at the start (cache keys hold a fingerprint of "
                        "aesi_lib, so edits made while the benchmark runs would turn the "
                        "'unchanged' stage into a changed one)")
    args = parser.parse_args(argv)

    muc4 = Path(args.muc4_dir).resolve()
    if not muc4.is_dir():
        raise SystemExit(f"MUC-4 folder not found: {muc4}")
    work = Path(args.work or tempfile.mkdtemp(prefix="aesi-timing-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    project, out = work / "project", work / "out"
    for path in (project, out, work / "prefect-home"):
        shutil.rmtree(path, ignore_errors=True)
    code = REPO if args.no_snapshot else code_snapshot(work)
    env = command_environment(work, code)
    new_ids = new_documents(muc4, work / "new.jsonl")
    common = ["--project-dir", str(project), "--out", str(out)]

    stages = {
        "cold": run_stage("cold", ["run", "--muc4-dir", str(muc4), *common], env, work, out),
        "unchanged": run_stage("unchanged", ["run", "--muc4-dir", str(muc4), *common], env,
                               work, out),
        "+10 documents": run_stage("update", ["update", "--docs", str(work / "new.jsonl"),
                                              *common], env, work, out),
    }
    cold = stages["cold"]["wall_s"]
    unchanged, update = stages["unchanged"], stages["+10 documents"]
    checks = {
        "cold ≤ 300 s": cold <= TARGETS["cold_s"],
        "unchanged ≤ 20 s": unchanged["wall_s"] <= TARGETS["unchanged_s"],
        "unchanged parses nothing": unchanged["results"]["documents_parsed"] == 0,
        "update ≤ 25% of cold": update["wall_s"] <= TARGETS["update_share"] * cold,
        "update parses exactly 10": update["results"]["documents_parsed"] == 10,
        "update holds the 10 new documents": set(
            update["results"]["new_documents"]["summary"]) == set(new_ids),
    }
    r = stages["cold"]["results"]
    summary = [
        "| stage | end to end (s) | share of cold | documents parsed | entity mentions | "
        "peak memory (GB) | parse processes (peak GB each) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, stage in stages.items():
        res = stage["results"]
        summary.append(f"| {name} | {stage['wall_s']:.1f} | {stage['wall_s'] / cold:.0%} | "
                       f"{res['documents_parsed']} | {_mentions(res)} | "
                       f"{stage['peak_rss_gb']:.1f} | {_parse_processes(res)} |")
    text = "\n".join([
        f"MUC-4: {r['documents']} documents; machine: {os.cpu_count()} cores; "
        f"{time.strftime('%Y-%m-%d %H:%M')}",
        "", *summary, "", steps_table(stages), "",
        startup_table(unchanged, env, work), "",
        *(f"- {'ok' if ok else 'MISSED'}: {name}" for name, ok in checks.items()),
    ])
    print("\n" + text)
    (work / "pipeline_timing.json").write_text(json.dumps(
        {"stages": stages, "checks": checks, "table": text}, indent=1, default=str))
    (work / "pipeline_timing.md").write_text(text + "\n")
    if not args.keep:       # the heavy parts; the tables and logs stay
        for path in (project, out, work / "prefect-home", work / "code"):
            shutil.rmtree(path, ignore_errors=True)
    print(f"\ntables, raw results and logs in {work}")
    return 0 if all(checks.values()) else 1


def _seconds_to_run(code: str, env: dict[str, str], cwd: Path, repeats: int = 3) -> float:
    """The fastest of ``repeats`` fresh interpreters running ``code``, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True,
                       capture_output=True)
        best = min(best, time.perf_counter() - started)
    return best


def startup_table(unchanged: dict[str, Any], env: dict[str, str], cwd: Path) -> str:
    """Where the seconds of the unchanged run go: the interpreter, importing the command line
    and the flow (each the fastest of three fresh processes), the flow itself, and the rest
    (the printing, the end of the process)."""
    interpreter = _seconds_to_run("pass", env, cwd)
    cli = _seconds_to_run("import aesi_cli", env, cwd) - interpreter
    flow = _seconds_to_run("import aesi_flows.induce", env, cwd) - interpreter
    run = unchanged["results"]["timings"]["total"]
    rest = unchanged["wall_s"] - interpreter - flow - run
    rows = [("Python interpreter", interpreter),
            ("import aesi_cli (shares most of the next)", cli),
            ("import aesi_flows.induce (the flow, its tasks, the library)", flow),
            ("the flow run", run),
            ("the rest: printing, the end of the process", rest),
            ("**unchanged run, end to end**", unchanged["wall_s"])]
    return "\n".join(["| where the unchanged run's seconds go | s |", "|---|---|",
                      *(f"| {name} | {seconds:.1f} |" for name, seconds in rows)])


def _parse_processes(results: dict[str, Any]) -> str:
    """``"2 (0.42, 0.42)"``: the parse worker processes and their peak memory; ``"in-process"``
    when the command parsed in its own process, ``"–"`` when it parsed nothing."""
    ingest = results.get("ingest", {})
    workers = ingest.get("parse_process_peak_mib") or {}
    if workers:
        return f"{len(workers)} (" + ", ".join(
            f"{mib / 1024:.2f}" for mib in sorted(workers.values())) + ")"
    return "in-process" if ingest.get("parse_processes") == 1 else "–"


def _mentions(results: dict[str, Any]) -> str:
    try:
        import pandas as pd

        return str(len(pd.read_parquet(results["artifacts"]["entities"])))
    except (KeyError, OSError, ImportError):
        return "?"


if __name__ == "__main__":
    sys.exit(main())
