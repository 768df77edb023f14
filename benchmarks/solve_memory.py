"""Seconds and memory of the default solve on a finished run's features; prints a Markdown table.

Loads the newest feature file of a project (the MUC-4 one after ``./scripts/run.sh``), then
solves the default model once per seed in this process and reports, per seed, the solve's
seconds and a checksum of its template and slot labels (equal checksums: identical labels,
so two versions of the code can be compared label for label), and the peak resident memory
the solves added to the loaded features (Linux: VmHWM, reset after loading).

Usage::

    .venv/bin/python benchmarks/solve_memory.py [--project-dir .aesi] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from solver_scale import vm_kib  # noqa: E402

from aesi_lib.model.feature_files import load_features  # noqa: E402
from aesi_lib.model.induction import induce  # noqa: E402
from aesi_lib.run.config import RunConfig  # noqa: E402
from aesi_lib.run.presets import preset  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project-dir", type=Path, default=REPO / ".aesi")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = ap.parse_args(argv)
    files = glob.glob(str(args.project_dir / "features" / "features-*.npz"))
    if not files:
        ap.error(f"no feature file under {args.project_dir / 'features'}: run ./scripts/run.sh "
                 "(or aesi run --project-dir DIR) first")
    path = max(files, key=os.path.getmtime)
    features, _ = load_features(path)
    model = RunConfig.from_dict(preset("default")).model
    loaded = vm_kib("VmRSS") / 1024
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")               # VmHWM starts again from the current RSS
    print(f"{Path(path).name}: {features.n_entities} mentions; features loaded: "
          f"{loaded:.0f} MiB resident\n")
    print("| seed | solve (s) | labels (sha256, first 12) |")
    print("|---|---|---|")
    for seed in args.seeds:
        start = time.perf_counter()
        result = induce(features, replace(model, seed=seed))
        seconds = time.perf_counter() - start
        digest = hashlib.sha256(
            np.asarray(result.template_labels, dtype=np.int64).tobytes()
            + np.asarray(result.slot_labels, dtype=np.int64).tobytes()).hexdigest()[:12]
        print(f"| {seed} | {seconds:.2f} | {digest} |")
    print(f"\npeak memory added by the solves: {vm_kib('VmHWM') / 1024 - loaded:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
