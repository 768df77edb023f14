"""Seconds and memory of the context-vector step's own work on a finished run's tables.

Loads the newest entity table of a project (the MUC-4 one after ``./scripts/run.sh``) and the
stored sentences of its documents, then runs
:func:`aesi_lib.lexicon.mention_context.mention_context_vectors` through the project's vector
cache (every document cached after a run, so no model is loaded and the figures are the
bookkeeping around the encoder, not the encoder). It reports the seconds of one untraced call,
the peak of the Python and NumPy allocations of a second call under ``tracemalloc`` (the
traced call is much slower), the peak resident memory the calls added (Linux: VmHWM, reset
after loading the tables), and checksums of the arrays (equal checksums: identical output, so
two versions of the code can be compared).

Usage::

    .venv/bin/python benchmarks/context_memory.py [--project-dir .aesi]
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from solver_scale import vm_kib  # noqa: E402

from aesi_lib.lexicon.encoder import make_encoder  # noqa: E402
from aesi_lib.lexicon.mention_context import mention_context_vectors  # noqa: E402
from aesi_lib.store import Store  # noqa: E402


def checksum(*arrays: np.ndarray | None) -> str:
    """The first 12 hex digits of the SHA-256 of the arrays' bytes."""
    digest = hashlib.sha256()
    for array in arrays:
        if array is not None:
            digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:12]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project-dir", type=Path, default=REPO / ".aesi")
    ap.add_argument("--encoder", default="minilm", help="features.encoder of the run")
    args = ap.parse_args(argv)
    files = glob.glob(str(args.project_dir / "tables" / "entities-*.parquet"))
    if not files:
        ap.error(f"no entity table under {args.project_dir / 'tables'}: run ./scripts/run.sh "
                 "(or aesi run --project-dir DIR) first")
    table = pd.read_parquet(max(files, key=os.path.getmtime))
    doc_ids = sorted(table["doc_id"].unique())
    with Store(args.project_dir / "aesi.duckdb", read_only=True) as store:
        sentences = store.sentence_texts(doc_ids)
    encoder = make_encoder(args.encoder)
    cache = args.project_dir / "context-vectors"
    loaded = vm_kib("VmRSS") / 1024
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")               # VmHWM starts again from the current RSS

    start = time.perf_counter()
    context = mention_context_vectors(table, sentences, encoder, cache)
    seconds = time.perf_counter() - start
    tracemalloc.start()
    mention_context_vectors(table, sentences, encoder, cache)
    traced_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(f"{len(table)} mentions, {context.n_sentences} mention sentences, {len(doc_ids)} "
          f"documents ({context.embedded} embedded now); tables loaded: {loaded:.0f} MiB "
          "resident\n")
    print("| seconds | traced peak (MiB) | resident peak added (MiB) | sentence vectors and "
          "rows (sha256) |")
    print("|---|---|---|---|")
    print(f"| {seconds:.2f} | {traced_peak:.1f} | {vm_kib('VmHWM') / 1024 - loaded:.0f} | "
          f"{checksum(context.sentence, context.sentence_rows)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
