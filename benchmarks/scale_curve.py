"""The whole flow on MUC-4 ×1, ×2 and ×4: seconds and peak memory per step, their growth
exponents, and a projection to 10^7 mentions.

Each scale is one cold ``aesi run --docs corpus.jsonl`` in a fresh process, with an empty
project folder (parse cache included) and a fresh PREFECT_HOME. The ×k corpus holds every
MUC-4 message (all five sets) k times under new ids; copy c > 0 of a message ends with one
more line, ``Copy c.``, so that no copy is a duplicate text (aesi parses identical texts once
and caches vectors per document text: without the line, ×2 would cost what ×1 does). The
corpus has no key, so nothing is scored; the evaluation step is not part of the curve.

Per step: the seconds the flow recorded (``results.json``) and the peak resident memory of
the ``aesi`` process and its children (parse worker processes) while the step ran, sampled
from ``/proc`` every 0.2 s (so Linux only) and placed in steps by the times of the log's
``Finished in state`` lines. The growth exponent b of a step is the least-squares slope of
log(seconds) on log(mentions) over the scales; b ≤ 1.1 means the step grows at most about
linearly. Steps shorter than 1 s at ×1 get none (their time is start-up and noise). A step's
peak memory is that of the whole process while the step ran (what earlier steps left in
memory included).

Plain copies repeat MUC-4's vocabulary: the number of distinct predicates and head words (the
units of W_T and the rows of W_H) would stay that of ×1, where a real corpus ten times larger
brings new words. So the copies grow their vocabulary as news does (``--heaps``, on by
default): the Heaps' law exponent β of the base corpus (distinct words V against running words
N, V ∝ N^β, fitted over its growing prefixes) says how many new words the corpus ×(c+1) has
beyond ×c, V₁ · ((c+1)^β - c^β), and copy c renames that many of the base's rarest words
(all their occurrences, case kept) into new words of the same length (each consonant moved c
places along the alphabet's consonants), so the rare end of the vocabulary (names, rare
nouns and verbs) grows and the common words stay. ``--no-heaps`` gives plain copies.
Each run records its distinct predicates and head words. The projection to 10^7 mentions
(``--project-to``) extends each step's time curve (the power law) from the largest scale and
its peak memory along the least-squares line (a fixed part plus a part per mention).

``--base-docs N`` takes the first N MUC-4 messages as the unit that is copied, so that a
curve to ×8 fits in a short session.

Usage::

    .venv/bin/python benchmarks/scale_curve.py [--scales 1,2,4,8] [--muc4-dir DIR]
        [--base-docs N] [--no-heaps] [--work DIR] [--keep] [--from-json FILE]

Prints the tables (Markdown) and writes them, with the raw results, to
``<work>/scale_curve.json`` and ``scale_curve.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from aesi_commands import REPO, code_snapshot, command_environment

MIN_SECONDS_FOR_EXPONENT = 1.0
SAMPLE_EVERY_S = 0.2
FINISHED = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \w+ (\S+): Finished in state")
RUN_SUFFIX = re.compile(r"-[0-9a-f]{3}$")
# Task runs whose time the flow records under another step's name.
STEP_OF_TASK = {"parse-batch": "parse+store", "store-batch": "parse+store",
                "stored-documents": "parse+store"}


WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
CONSONANTS = "bcdfghjklmnpqrstvwxyz"


def heaps_exponent(texts: list[str], points: int = 20) -> float:
    """β of Heaps' law V ∝ N^β: the least-squares slope of log(distinct words) on
    log(running words) over ``points`` growing prefixes of ``texts`` (words lower-cased)."""
    seen: set[str] = set()
    running, curve = 0, []
    every = max(1, len(texts) // points)
    for i, text in enumerate(texts, 1):
        words = [w.lower() for w in WORD.findall(text)]
        seen.update(words)
        running += len(words)
        if i % every == 0 or i == len(texts):
            curve.append((running, len(seen)))
    return growth_exponent([float(n) for n, _ in curve], [float(v) for _, v in curve])


def renamed_word(word: str, shift: int) -> str:
    """``word`` with each consonant moved ``shift`` places along :data:`CONSONANTS` (case
    kept; vowels and other characters stay): a new word of the same length and shape."""
    out = []
    for ch in word:
        low = ch.lower()
        if low in CONSONANTS:
            moved = CONSONANTS[(CONSONANTS.index(low) + shift) % len(CONSONANTS)]
            out.append(moved.upper() if ch.isupper() else moved)
        else:
            out.append(ch)
    return "".join(out)


def rarest_words(texts: list[str]) -> list[str]:
    """The distinct lower-cased words of ``texts``, rarest first (ties alphabetical)."""
    counts: dict[str, int] = {}
    for text in texts:
        for w in WORD.findall(text):
            counts[w.lower()] = counts.get(w.lower(), 0) + 1
    return sorted(counts, key=lambda w: (counts[w], w))


def grown_copy(text: str, renamed: set[str], shift: int) -> str:
    """``text`` with every occurrence of the words in ``renamed`` (lower-cased) renamed."""
    return WORD.sub(lambda m: renamed_word(m.group(0), shift)
                    if m.group(0).lower() in renamed else m.group(0), text)


def write_corpus(muc4_dir: Path, copies: int, out: Path, base_docs: int | None = None,
                 heaps: bool = True) -> dict[str, Any]:
    """Write the ×``copies`` corpus (see the module docstring) as JSONL; return its size and,
    with ``heaps``, the exponent and the words renamed in each copy."""
    from aesi_lib.corpus.muc4 import load_muc4_corpus

    documents = [d for split in load_muc4_corpus(muc4_dir) for d in split.documents]
    documents = documents[:base_docs] if base_docs else documents
    texts = [d.text for d in documents]
    beta = heaps_exponent(texts) if heaps else None
    order = rarest_words(texts) if heaps else []
    renamed_counts = []
    with open(out, "w") as fh:
        for c in range(copies):
            renamed: set[str] = set()
            if beta is not None and c > 0:
                n_new = round(len(order) * ((c + 1) ** beta - c ** beta))
                renamed = set(order[:n_new])
            renamed_counts.append(len(renamed))
            for doc in documents:
                text = doc.text if c == 0 else f"{grown_copy(doc.text, renamed, c)}\n\nCopy {c}."
                fh.write(json.dumps({"id": f"{doc.doc_id}-x{c}", "text": text}) + "\n")
    return {"documents": copies * len(documents), "heaps_beta": beta,
            "base_words": len(order) or None, "renamed_per_copy": renamed_counts}


def _tree_rss_bytes(root: int) -> int:
    """Resident memory of ``root`` and every process below it, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            statm = Path(entry.path, "statm").read_text()
        except OSError:             # the process ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        parents[int(entry.name)] = int(fields[1])
        rss[int(entry.name)] = int(statm.split()[1]) * page
    below, todo = {root}, [root]
    while todo:
        pid = todo.pop()
        for child, parent in parents.items():
            if parent == pid and child not in below:
                below.add(child)
                todo.append(child)
    return sum(rss.get(pid, 0) for pid in below)


def run_scale(copies: int, corpus: Path, env: dict[str, str], work: Path) -> dict[str, Any]:
    """One cold run of the ×``copies`` corpus; wall time, per-step seconds and peak memory."""
    project, out, log = work / f"project-x{copies}", work / f"out-x{copies}", \
        work / f"x{copies}.log"
    for path in (project, out, work / "prefect-home"):
        shutil.rmtree(path, ignore_errors=True)
    samples: list[tuple[float, int]] = []
    started = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "aesi_cli", "run", "--docs", str(corpus),
             "--project-dir", str(project), "--out", str(out)],
            env=env, cwd=work, stdout=fh, stderr=subprocess.STDOUT)
        done = threading.Event()

        def sample() -> None:
            while not done.wait(SAMPLE_EVERY_S):
                samples.append((time.time(), _tree_rss_bytes(proc.pid)))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        returncode = proc.wait()
        done.set()
        sampler.join()
    wall = time.perf_counter() - started
    if returncode != 0:
        raise SystemExit(f"×{copies} failed (exit {returncode}); see {log}:\n"
                         + log.read_text()[-3000:])
    results = json.loads((out / "results.json").read_text())
    mentions = _mentions(results)
    vocabulary = _vocabulary(results)
    peaks = step_peaks(log.read_text().splitlines(), samples)
    steps = {name: {"seconds": record["seconds"], "state": record["state"],
                    "peak_gb": peaks.get(name)}
             for name, record in results["steps"].items()}
    shutil.rmtree(project, ignore_errors=True)
    print(f"×{copies}: {wall:.1f} s, {results['documents']} documents, {mentions} mentions",
          flush=True)
    return {"copies": copies, "wall_s": wall, "documents": results["documents"],
            "mentions": mentions, **vocabulary, "flow_s": results["timings"]["total"],
            "steps": steps,
            "peak_gb": max((m for _, m in samples), default=0) / 2**30, "log": str(log)}


def step_peaks(log_lines: list[str], samples: list[tuple[float, int]]) -> dict[str, float]:
    """Peak memory (GB) per step: the samples between the previous ``Finished`` line of the
    log and the step's own, the task runs of one step (parse and store batches) together."""
    ends: list[tuple[float, str]] = []
    for line in log_lines:
        match = FINISHED.match(line)
        if match:
            when = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
            task = RUN_SUFFIX.sub("", match.group(2))
            ends.append((when, STEP_OF_TASK.get(task, task)))
    peaks: dict[str, float] = {}
    previous = -math.inf
    for when, step in ends:
        window = [rss for t, rss in samples if previous < t <= when]
        if window:
            peaks[step] = max(peaks.get(step, 0.0), max(window) / 2**30)
        previous = when
    return peaks


def growth_exponent(sizes: list[float], values: list[float]) -> float:
    """Least-squares slope of log(value) on log(size)."""
    xs, ys = [math.log(s) for s in sizes], [math.log(v) for v in values]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
            / sum((x - mx) ** 2 for x in xs))


def linear_projection(sizes: list[float], values: list[float], at: float) -> float:
    """``a + s · at`` with ``a``, ``s`` the least-squares line through (size, value).

    Memory has a large fixed part (the interpreter, the libraries, the encoder's model)
    that a power law would read as slow growth: the part that grows is the per-mention
    data, so a line projects it."""
    mx, my = sum(sizes) / len(sizes), sum(values) / len(values)
    slope = (sum((x - mx) * (y - my) for x, y in zip(sizes, values, strict=True))
             / sum((x - mx) ** 2 for x in sizes))
    return my + slope * (at - mx)


def tables(runs: list[dict[str, Any]], project_to: float, measured: str | None = None,
           memory_target: float = 24.0) -> str:
    """The Markdown tables of ``runs``; ``measured`` (default: now) dates them. The flow's
    memory at ``project_to`` mentions is its largest step's, checked against
    ``memory_target`` (GB: one machine of issue 49)."""
    sizes = [float(r["mentions"]) for r in runs]
    names = [n for n in runs[0]["steps"] if all(n in r["steps"] for r in runs)]
    head = " / ".join(f"×{r['copies']}" for r in runs)
    lines = [f"| step | {head} (s) | b (time) | {head} (peak GB) | b (memory) | "
             f"at {project_to:.0e} mentions |",
             "|---" * 6 + "|"]
    worst = 0.0
    # The run's memory at the projected size is that of its largest step: a line through the
    # process's peaks would mix steps (the parse's peak at ×1, the solve's at ×8).
    largest: tuple[float, str] | None = None
    for name in names:
        seconds = [r["steps"][name]["seconds"] for r in runs]
        peaks = [r["steps"][name]["peak_gb"] for r in runs]
        b_time = (growth_exponent(sizes, seconds)
                  if seconds[0] >= MIN_SECONDS_FOR_EXPONENT else None)
        b_mem = (growth_exponent(sizes, peaks) if all(p for p in peaks) else None)
        if b_mem is not None:
            largest = max(largest or (0.0, ""),
                          (linear_projection(sizes, peaks, project_to), name))
        if b_time is not None:
            worst = max(worst, b_time)
        projected = "–"
        if b_time is not None:
            t = seconds[-1] * (project_to / sizes[-1]) ** b_time
            m = linear_projection(sizes, peaks, project_to) if b_mem is not None else None
            projected = f"{t / 3600:.1f} h" + (f", {m:.0f} GB" if m is not None else "")
        lines.append(
            f"| {name} | " + " / ".join(f"{s:.1f}" for s in seconds)
            + f" | {_fmt(b_time)} | "
            + " / ".join("–" if p is None else f"{p:.2f}" for p in peaks)
            + f" | {_fmt(b_mem)} | {projected} |")
    flow = [r["flow_s"] for r in runs]
    walls = [r["wall_s"] for r in runs]
    b_flow = growth_exponent(sizes, flow)
    b_peak = growth_exponent(sizes, [r["peak_gb"] for r in runs])
    lines.append("| **flow** | " + " / ".join(f"{s:.1f}" for s in flow)
                 + f" | {_fmt(b_flow)} | "
                 + " / ".join(f"{r['peak_gb']:.2f}" for r in runs) + " | "
                 + f"{_fmt(b_peak)} | "
                 + f"{flow[-1] * (project_to / sizes[-1]) ** b_flow / 3600:.1f} h"
                 + (f", {largest[0]:.0f} GB ({largest[1]})" if largest else "") + " |")
    lines.append("| end to end (process) | " + " / ".join(f"{s:.1f}" for s in walls)
                 + f" | {_fmt(growth_exponent(sizes, walls))} | | | |")
    sizes_line = ", ".join(
        f"×{r['copies']}: {r['documents']} documents, {r['mentions']} mentions"
        + (f", {r['predicates']} predicates, {r['heads']} head words" if "heads" in r else "")
        for r in runs)
    growth = runs[-1].get("corpus", {})
    vocabulary_line = (
        f"Vocabulary growth: Heaps' exponent β = {growth['heaps_beta']:.3f} of the base "
        f"({growth['base_words']} distinct words); words renamed in copies 1–"
        f"{len(growth['renamed_per_copy']) - 1}: "
        + ", ".join(str(n) for n in growth["renamed_per_copy"][1:])
        if growth.get("heaps_beta") is not None else "Plain copies: no vocabulary growth.")
    return "\n".join([
        f"{sizes_line}; machine: {os.cpu_count()} cores; "
        f"{measured or time.strftime('%Y-%m-%d %H:%M')}",
        "", vocabulary_line, "", *lines, "",
        f"- {'ok' if worst <= 1.1 else 'MISSED'}: every step's time exponent ≤ 1.1 "
        f"(largest {worst:.2f})",
        *([f"- {'ok' if largest[0] <= memory_target else 'MISSED'}: the peak at "
           f"{project_to:.0e} mentions, its largest step's ({largest[1]}), is "
           f"{largest[0]:.0f} GB, target ≤ {memory_target:g} GB"] if largest else [])])


def _fmt(b: float | None) -> str:
    return "–" if b is None else f"{b:.2f}"


def _vocabulary(results: dict[str, Any]) -> dict[str, int]:
    """The distinct predicates and head words of a run's entity table."""
    import pandas as pd

    table = pd.read_parquet(results["artifacts"]["entities"], columns=["predicate", "head"])
    return {"predicates": int(table["predicate"].nunique()),
            "heads": int(table["head"].str.lower().nunique())}


def _mentions(results: dict[str, Any]) -> int:
    import pandas as pd

    return len(pd.read_parquet(results["artifacts"]["entities"], columns=["doc_id"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--muc4-dir", default=str(REPO.parent / "shared" / "data" / "muc4"))
    parser.add_argument("--scales", default="1,2,4,8",
                        help="copies per run (default 1,2,4,8)")
    parser.add_argument("--base-docs", type=int,
                        help="copy the first N MUC-4 messages (default: all of them)")
    parser.add_argument("--no-heaps", dest="heaps", action="store_false",
                        help="plain copies: no vocabulary growth")
    parser.add_argument("--project-to", type=float, default=1e7,
                        help="mentions of the projection column (default 1e7)")
    parser.add_argument("--memory-target", type=float, default=24.0,
                        help="GB the projected peak should stay within (default 24)")
    parser.add_argument("--work", help="working folder (default: a new temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the corpora and exports")
    parser.add_argument("--from-json", metavar="FILE",
                        help="print the tables of the raw results of an earlier run "
                        "(its scale_curve.json) instead of running")
    args = parser.parse_args(argv)
    if args.from_json:
        recorded = json.loads(Path(args.from_json).read_text())
        print(tables(recorded["runs"], args.project_to, recorded.get("measured"),
                     args.memory_target))
        return 0
    try:
        scales = sorted({int(s) for s in args.scales.split(",")})
    except ValueError:
        raise SystemExit(f"--scales: whole numbers separated by commas, not {args.scales!r}"
                         ) from None
    if len(scales) < 2 or scales[0] < 1:
        raise SystemExit("--scales: at least two scales, each at least 1")
    muc4 = Path(args.muc4_dir).resolve()
    if not muc4.is_dir():
        raise SystemExit(f"MUC-4 folder not found: {muc4}")
    if not Path("/proc/self/statm").exists():
        raise SystemExit("this benchmark reads memory from /proc (Linux)")
    work = Path(args.work or tempfile.mkdtemp(prefix="aesi-scale-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    code = code_snapshot(work)
    env = command_environment(work, code)
    runs = []
    for copies in scales:
        corpus = work / f"muc4-x{copies}.jsonl"
        corpus_info = write_corpus(muc4, copies, corpus, args.base_docs, args.heaps)
        runs.append({**run_scale(copies, corpus, env, work), "corpus": corpus_info})
        if not args.keep:
            corpus.unlink()
            shutil.rmtree(work / f"out-x{copies}", ignore_errors=True)
    measured = time.strftime("%Y-%m-%d %H:%M")
    text = tables(runs, args.project_to, measured, args.memory_target)
    print("\n" + text)
    record = {"runs": runs, "measured": measured, "table": text}
    (work / "scale_curve.json").write_text(json.dumps(record, indent=1))
    (work / "scale_curve.md").write_text(text + "\n")
    shutil.rmtree(code, ignore_errors=True)
    shutil.rmtree(work / "prefect-home", ignore_errors=True)
    print(f"\ntables, raw results and logs in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
