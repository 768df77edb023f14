"""ONNX Runtime against torch for the MiniLM encoder pass: speed, and how far the vectors lie.

On the CPU the product runs all-MiniLM-L6-v2 in ONNX Runtime (``aesi_lib.lexicon.onnx_graph``),
from a graph torch traces once. This benchmark encodes the first ``--sentences`` mention
sentences of a finished run's project (the MUC-4 one after ``./scripts/run.sh``) with the
product's :class:`~aesi_lib.lexicon.encoder.TransformerEncoder` on each runtime, the two in
turns for ``--rounds`` rounds, both loaded and warmed up first and the vector cache not used.
It prints each round's seconds and their ratio, how far the vectors lie apart (the least
cosine, the largest coordinate difference), and whether each runtime gives a sentence the
same vector alone as in its batch.

Usage::

    .venv/bin/python benchmarks/encoder_onnx.py [--project-dir .aesi] [--sentences 2000]
        [--rounds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from encoder_throughput import mention_sentences  # noqa: E402

from aesi_lib.lexicon.encoder import TransformerEncoder  # noqa: E402

#: Sentences encoded one at a time for the batch check.
ALONE = 64


def batch_difference(encoder: TransformerEncoder, texts: list[str]) -> float:
    """The largest coordinate difference between ``texts`` encoded together and one at a
    time."""
    together = encoder.encode(texts)
    alone = np.vstack([encoder.encode([text]) for text in texts])
    return float(np.abs(together - alone).max())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project-dir", type=Path, default=REPO / ".aesi")
    ap.add_argument("--sentences", type=int, default=2000,
                    help="how many mention sentences, in document order (0: all)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    if not (args.project_dir / "aesi.duckdb").is_file():
        ap.error(f"no store at {args.project_dir / 'aesi.duckdb'}: run ./scripts/run.sh "
                 "(or aesi run --project-dir DIR) first")
    texts = [t.strip() for t in mention_sentences(args.project_dir, args.sentences)]
    if not texts:
        ap.error(f"{args.project_dir}: no sentence holds a mention")
    import onnxruntime

    torch_encoder = TransformerEncoder(runtime="torch")
    onnx_encoder = TransformerEncoder()
    for encoder in (torch_encoder, onnx_encoder):
        encoder.encode(texts[:64])          # load and warm up
    print(f"{len(texts)} mention sentences of {args.project_dir}, {onnx_encoder.threads} "
          f"threads, batches of {onnx_encoder.batch_size}, onnxruntime "
          f"{onnxruntime.__version__}\n")
    print("| round | torch (s) | ONNX Runtime (s) | speed-up |")
    print("|---|---|---|---|")
    for round_ in range(1, args.rounds + 1):
        start = time.perf_counter()
        reference = torch_encoder.encode(texts)
        torch_s = time.perf_counter() - start
        start = time.perf_counter()
        vectors = onnx_encoder.encode(texts)
        onnx_s = time.perf_counter() - start
        print(f"| {round_} | {torch_s:.1f} | {onnx_s:.1f} | {torch_s / onnx_s:.2f}× |")
    cosine = (reference * vectors).sum(axis=1)
    print(f"\nvectors: least cosine {cosine.min():.7f}, mean {cosine.mean():.7f}; largest "
          f"coordinate difference {np.abs(reference - vectors).max():.2e}")
    sample = texts[:ALONE]
    print(f"a sentence alone against in its batch ({len(sample)} sentences), largest "
          f"coordinate difference: torch {batch_difference(torch_encoder, sample):.2e}, "
          f"ONNX Runtime {batch_difference(onnx_encoder, sample):.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
