"""Throughput of the per-document work (parse and the encoder pass) without Dask and on a
local Dask cluster of 1 and 2 workers.

Writes the first ``--docs`` MUC-4 messages as a JSONL corpus, then runs ``aesi run --docs``
on it cold (a new project each time, nothing cached) under each runner, in rounds that
alternate the runners so that load from other processes hits them alike. Each run's
``results.json`` gives the seconds of the per-document steps: ``parse+store``, and the
encoder pass (``embed-batches`` on Dask, then ``context-vectors``, which reads the vectors the
workers wrote; without Dask ``context-vectors`` alone). Prints, per runner, the median over
the rounds of those seconds and of documents a second, and whether every run gave the same
labels.

    .venv/bin/python benchmarks/dask_throughput.py [--docs 200] [--rounds 2] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
from aesi_commands import code_snapshot, command_environment

from aesi_lib.corpus.sources import load_corpus
from aesi_lib.markdown import markdown_table

#: name, extra ``aesi run`` arguments.
RUNNERS = (
    ("without Dask (parse processes, encoder in the flow)", []),
    ("local Dask cluster, 1 worker", ["--dask", "--dask-workers", "1"]),
    ("local Dask cluster, 2 workers", ["--dask", "--dask-workers", "2"]),
)
PER_DOCUMENT_STEPS = ("parse+store", "embed-batches", "context-vectors")


def write_corpus(path: Path, n_docs: int, muc4_dir: str | None) -> int:
    """The first ``n_docs`` MUC-4 messages as JSONL at ``path``; returns how many."""
    docs = load_corpus(muc4_dir).documents[:n_docs]
    with path.open("w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps({"id": doc.doc_id, "text": doc.text}) + "\n")
    return len(docs)


def timed_run(work: Path, env: dict[str, str], corpus: Path, name: str, extra: list[str],
              round_: int) -> dict[str, float]:
    """One cold ``aesi run`` and its per-document seconds."""
    folder = work / f"{round_}-{len(extra)}-{extra[-1] if extra else 'none'}"
    done = subprocess.run(
        [sys.executable, "-m", "aesi_cli", "run", "--docs", str(corpus), "--project-dir",
         str(folder / "project"), "--out", str(folder / "out"), *extra],
        env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"dask_throughput: {name} failed:\n{done.stderr[-3000:]}")
    results = json.loads((folder / "out" / "results.json").read_text())
    steps = results["steps"]
    labels = pd.read_parquet(folder / "out" / "assignments.parquet")[["template", "slot"]]
    return {"parse": steps["parse+store"]["seconds"],
            "encode": sum(steps[s]["seconds"] for s in PER_DOCUMENT_STEPS[1:] if s in steps),
            "labels": hash(labels.to_numpy().tobytes())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=200, help="MUC-4 messages (default 200)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each runner (default 2)")
    parser.add_argument("--muc4-dir", help="the MUC-4 folder (default: as aesi run finds it)")
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as scratch:
        work = Path(args.work or scratch)
        work.mkdir(parents=True, exist_ok=True)
        env = command_environment(work, code_snapshot(work))
        corpus = work / "corpus.jsonl"
        n_docs = write_corpus(corpus, args.docs, args.muc4_dir)
        runs: dict[str, list[dict[str, float]]] = {name: [] for name, _ in RUNNERS}
        for round_ in range(args.rounds):
            for name, extra in RUNNERS:
                runs[name].append(timed_run(work, env, corpus, name, extra, round_))
                last = runs[name][-1]
                print(f"round {round_}: {name}: parse {last['parse']:.1f} s, encode "
                      f"{last['encode']:.1f} s", flush=True)
    rows = []
    for name, timings in runs.items():
        parse = statistics.median(t["parse"] for t in timings)
        encode = statistics.median(t["encode"] for t in timings)
        rows.append([name, f"{parse:.1f}", f"{encode:.1f}", f"{parse + encode:.1f}",
                     f"{n_docs / (parse + encode):.1f}"])
    print(markdown_table(("runner", "parse+store s", "encoder pass s", "per-document work s",
                          "documents/s"), rows))
    same = len({t["labels"] for timings in runs.values() for t in timings}) == 1
    print(f"{n_docs} documents, median of {args.rounds} rounds; the same labels in every run: "
          f"{'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
