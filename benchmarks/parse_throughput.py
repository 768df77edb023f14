"""Parse throughput on the MUC-4 texts: bare spaCy vs. aesi's parse + casing + entities.

Both sides use the same model with the same components (aesi's side with memoised stand-ins
for two of them, :mod:`aesi_lib.parse.memo_components`); the bare side only runs
``nlp.pipe`` on the raw texts in this one process, aesi's side runs the parser
:func:`~aesi_lib.parse.backends.make_parser` builds (casing, paragraph breaks, conversion to
the neutral format), by default in one worker process per usable core
(:mod:`aesi_lib.parse.parallel`; ``--processes 1``: in this process), through the parse cache
(cold: every document is parsed and stored) and extracts the entities, in batches of 50 as the
flow's ingest does (two batches in flight with worker processes). The corpus is processed
in alternating chunks (bare chunk, aesi chunk, ...) so that load from other processes on the
machine hits both sides alike. A second pass through the (now warm) cache shows what an
unchanged re-run costs. ``--check`` also parses every message in this process, untimed, with
spaCy's own attribute ruler and lemmatizer instead of aesi's memoised stand-ins, and compares
the parses (and their cache bytes) with the cold run's.

Usage::

    .venv/bin/python benchmarks/parse_throughput.py [--limit N] [--muc4-dir DIR]
        [--processes N] [--check]

Prints a Markdown table, the ratio of aesi's throughput to bare single-process ``nlp.pipe``,
and the peak memory of this process and of each parse worker process.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aesi_lib.corpus.muc4 import read_muc4_messages
from aesi_lib.corpus.types import Document
from aesi_lib.entities import extract_entities
from aesi_lib.parse.backends import ParserConfig, make_parser, usable_cores
from aesi_lib.parse.cache import encode_parse, parse_with_cache
from aesi_lib.parse.casing import DEFAULT_CASING
from aesi_lib.parse.spacy_backend import (
    DEFAULT_SPACY_MODEL,
    SpacyParser,
    load_spacy_pipeline,
)
from aesi_lib.parse.types import ParsedDocument

DEFAULT_MUC4 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "muc4"
TEXT_FILES = {
    "dev": "dev/dev-muc3-*",
    "tst1": "tst1/tst1-muc3",
    "tst2": "tst2/tst2-muc4",
    "tst3": "tst3/tst3-muc4",
    "tst4": "tst4/tst4-muc4",
}


def load_messages(muc4_dir: Path) -> list[Document]:
    """All MUC-4 messages in split order (DEV, TST1 ... TST4)."""
    docs: list[Document] = []
    for split, pattern in TEXT_FILES.items():
        for path in sorted(muc4_dir.glob(pattern)):
            docs += read_muc4_messages(path, split)
    return docs


def aesi_chunk(parser: Any, chunk: list[Document], cache_dir: str, batch_size: int,
               in_flight: int) -> tuple[list[ParsedDocument], int, int]:
    """aesi's side of one chunk, as ``parse_batch_step`` runs in the flow: each batch of
    ``batch_size`` documents through the parse cache, then its entities; ``in_flight``
    batches at a time (threads). Returns the parses, how many were parsed, the entities."""

    def one_batch(batch: list[Document]) -> tuple[list[ParsedDocument], int, int]:
        parsed, stats = parse_with_cache(parser, batch, cache_dir)
        return parsed, stats.parsed, sum(len(extract_entities(p)) for p in parsed)

    batches = [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    with ThreadPoolExecutor(max_workers=in_flight) as pool:
        results = list(pool.map(one_batch, batches))
    return ([p for r in results for p in r[0]], sum(r[1] for r in results),
            sum(r[2] for r in results))


def peak_rss_mib() -> float:
    """Peak resident set size of this process (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--muc4-dir", type=Path, default=DEFAULT_MUC4)
    ap.add_argument("--limit", type=int, default=None, help="only the first N messages")
    ap.add_argument("--model", default=DEFAULT_SPACY_MODEL)
    ap.add_argument("--casing", default=DEFAULT_CASING)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--chunk", type=int, default=100, help="messages per alternating chunk")
    ap.add_argument("--ingest-batch", type=int, default=50,
                    help="documents per parse batch inside aesi's chunk (the flow's default)")
    ap.add_argument("--processes", type=int, default=usable_cores(),
                    help="aesi's parse processes (default: the usable cores, "
                    f"{usable_cores()} here; 1: in this process)")
    ap.add_argument("--spacy-processes", type=int, default=0, metavar="N",
                    help="also time spaCy's own multiprocessing, bare nlp.pipe(n_process=N) "
                    "over all messages in one call, after the alternating chunks: what N "
                    "processes can gain on this machine (0: skip)")
    ap.add_argument("--check", action="store_true",
                    help="compare the parses with those of one in-process parser (untimed)")
    args = ap.parse_args(argv)

    t_start = time.perf_counter()
    load_start = os.getloadavg()[0]
    docs = load_messages(args.muc4_dir)[: args.limit]
    words = sum(len(d.text.split()) for d in docs)

    # spaCy's own components on the bare side; aesi's parser uses the memoised stand-ins of
    # the attribute ruler and the lemmatizer (aesi_lib.parse.memo_components).
    bare_nlp = load_spacy_pipeline(args.model, paragraph_breaks=False, memoised=False)
    # Loaded outside the timed region, like bare_nlp (with several processes: the workers
    # started and their models loaded).
    config = ParserConfig(model=args.model, casing=args.casing,
                          batch_size=args.batch_size, n_process=args.processes)
    parser = make_parser(config)
    parser.load()
    # Warm-up of both pipelines (first-call allocations, truecaser lexicon).
    for _ in bare_nlp.pipe([d.text for d in docs[:2]]):
        pass
    list(parser.parse(docs[:2]))

    # As the flow's ingest: two batches in flight when parsing in worker processes (so the
    # workers parse the next batch while one batch's entities are extracted), one at a time
    # when parsing in-process.
    in_flight = 2 if getattr(parser, "worker_peak_rss_mib", None) is not None else 1
    bare_s = aesi_s = 0.0
    # CPU seconds: of this process while each side runs, and of the parse workers (as of
    # their last reply, which follows their last piece).
    bare_cpu = aesi_cpu = 0.0
    workers_cpu_before = sum(getattr(parser, "worker_cpu_s", {}).values())
    n_entities = n_parsed = 0
    cold_parses = []
    with tempfile.TemporaryDirectory(prefix="aesi-parse-cache-") as cache_dir:
        for lo in range(0, len(docs), args.chunk):
            chunk = docs[lo:lo + args.chunk]
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in bare_nlp.pipe((d.text for d in chunk), batch_size=args.batch_size):
                pass
            t1, c1 = time.perf_counter(), time.process_time()
            parsed, n_cold, n_chunk_entities = aesi_chunk(parser, chunk, cache_dir,
                                                          args.ingest_batch, in_flight)
            n_parsed += n_cold
            n_entities += n_chunk_entities
            t2 = time.perf_counter()
            bare_cpu += c1 - c0
            aesi_cpu += time.process_time() - c1
            if args.check:
                cold_parses += parsed
            bare_s += t1 - t0
            aesi_s += t2 - t1
        rss_first = peak_rss_mib()

        t0 = time.perf_counter()
        parsed, stats = parse_with_cache(parser, docs, cache_dir)
        n_entities_2 = sum(len(extract_entities(p)) for p in parsed)
        warm_s = time.perf_counter() - t0
        cache_mib = sum(f.stat().st_size for f in Path(cache_dir).rglob("*") if f.is_file())
        cache_mib /= 2**20
    spacy_mp_s = None
    if args.spacy_processes:
        t0 = time.perf_counter()
        for _ in bare_nlp.pipe((d.text for d in docs), batch_size=args.batch_size,
                               n_process=args.spacy_processes):
            pass
        spacy_mp_s = time.perf_counter() - t0
    workers = getattr(parser, "worker_peak_rss_mib", {})
    workers_cpu = sum(getattr(parser, "worker_cpu_s", {}).values()) - workers_cpu_before
    total_s = time.perf_counter() - t_start
    load_end = os.getloadavg()[0]
    same = None
    if args.check:
        # In this process, with spaCy's own attribute ruler and lemmatizer: the check covers
        # the worker processes and the memoised components at once.
        single = SpacyParser(model=args.model, casing=args.casing,
                             batch_size=args.batch_size, memoised=False)
        reference = list(single.parse(docs))
        same = (reference == cold_parses and [encode_parse(p) for p in reference]
                == [encode_parse(p) for p in cold_parses])

    processes = len(workers) or 1
    where = (f"{processes} worker processes" if workers else "this process")
    print(f"{len(docs)} MUC-4 messages, {words} words (whitespace-separated), model "
          f"{args.model}, casing={args.casing}, batch_size={args.batch_size}; "
          f"bare `nlp.pipe` in this process, aesi in {where}; {usable_cores()} usable cores\n")
    print("| run | seconds | words/s | documents parsed | |E| |")
    print("|---|---|---|---|---|")
    print(f"| bare `nlp.pipe` | {bare_s:.1f} | {words / bare_s:,.0f} | {len(docs)} | - |")
    if spacy_mp_s is not None:
        print(f"| bare `nlp.pipe`, n_process={args.spacy_processes} (one call, after) | "
              f"{spacy_mp_s:.1f} | {words / spacy_mp_s:,.0f} | {len(docs)} | - |")
    print(f"| aesi parse + casing + entities, cold cache | {aesi_s:.1f} | {words / aesi_s:,.0f} | "
          f"{n_parsed} | {n_entities} |")
    print(f"| aesi, second run (warm cache) | {warm_s:.1f} | {words / warm_s:,.0f} | "
          f"{stats.parsed} (reused {stats.reused}) | {n_entities_2} |")
    print()
    print(f"- throughput ratio aesi ({processes} process{'es' if processes > 1 else ''}) / "
          f"bare single-process `nlp.pipe`: {bare_s / aesi_s:.2f}")
    if spacy_mp_s is not None:
        print(f"- spaCy's own {args.spacy_processes} processes / bare single-process "
              f"`nlp.pipe`: {bare_s / spacy_mp_s:.2f} (timed once, not alternated)")
    print(f"- peak RSS of this process after the cold run: {rss_first:.0f} MiB; at the end: "
          f"{peak_rss_mib():.0f} MiB")
    print(f"- CPU seconds, cold run: bare {bare_cpu:.1f}; aesi {aesi_cpu + workers_cpu:.1f} "
          f"(this process {aesi_cpu:.1f}, parse workers {workers_cpu:.1f}): aesi uses "
          f"{(aesi_cpu + workers_cpu) / bare_cpu:.2f}x the CPU of bare `nlp.pipe`")
    print(f"- load average (1 min) at the start / end: {load_start:.1f} / {load_end:.1f} on "
          f"{os.cpu_count()} cores (other processes share them)")
    if workers:
        print("- peak RSS of each parse worker process: "
              + ", ".join(f"{mib:.0f} MiB" for mib in sorted(workers.values())))
    if same is not None:
        print(f"- parses identical to one in-process parser's (and their cache bytes): {same}")
    print(f"- cache size: {cache_mib:.1f} MiB for {len(docs)} documents")
    print(f"- total wall time of the benchmark: {total_s:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
