"""How close the MiniLM encoder pass runs to what this machine's CPU can compute.

Takes the first ``--sentences`` mention sentences of a finished run's project (the MUC-4 one
after ``./scripts/run.sh``), in document order, and encodes them with the product's
:class:`aesi_lib.lexicon.encoder.TransformerEncoder` on torch (the model loaded and warmed up
first, the cache not used; the product's CPU runtime, ONNX Runtime, is timed against it by
``encoder_onnx.py``). It prints sentences and word pieces per second and the GFLOP/s they imply,
beside the GFLOP/s of torch on one large float32 matrix product of the model's shapes with
the same threads: the ceiling a transformer of this size could approach here. Word pieces
count as the tokenizer gives them (special tokens included, padding not); FLOPs per piece
are 2 per weight of the encoder layers plus the attention products (4 · length · width per
layer), the embedding lookups not counted.

With ``--caps 32,48,64`` it times nothing: it counts the word pieces of the mention sentences
(``--sentences 0``: all of them) and prints, for each cap on a sentence's pieces, the share of
sentences it would cut and the share of pieces it would keep. At these lengths the forward
pass costs about the same per piece (the attention term above is a few per cent of a
piece's FLOPs), so the share kept bounds what a cap could save of the encoder pass.

Usage::

    .venv/bin/python benchmarks/encoder_throughput.py [--project-dir .aesi] [--sentences 2000]
        [--caps 32,48,64,96,128]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aesi_lib.lexicon.encoder import TransformerEncoder  # noqa: E402
from aesi_lib.store import Store  # noqa: E402


def mention_texts(table: pd.DataFrame, sentences: pd.DataFrame, limit: int = 0) -> list[str]:
    """The texts of the first ``limit`` rows of ``sentences`` (``doc_id``, ``sent_id``,
    ``text``, in their order) that hold a mention of the entity table ``table`` (0: all)."""
    held = set(zip(table["doc_id"], table["sent_id"], strict=True))
    texts = [text for doc, sent, text in zip(sentences["doc_id"], sentences["sent_id"],
                                             sentences["text"], strict=True)
             if (doc, sent) in held]
    return texts[:limit] if limit else texts


def mention_sentences(project_dir: Path, limit: int) -> list[str]:
    """The texts of the first ``limit`` sentences that hold a mention (0: all), in document
    order."""
    with Store(project_dir / "aesi.duckdb", read_only=True) as store:
        return mention_texts(store.entity_table(), store.sentence_texts(store.document_ids()),
                             limit)


def layer_flops_per_piece(model, length: float) -> float:
    """FLOPs per word piece of the encoder layers at the mean sequence ``length``."""
    weights = sum(p.numel() for name, p in model.named_parameters()
                  if name.startswith("encoder.") and p.dim() == 2)
    config = model.config
    attention = 4 * length * config.hidden_size * config.num_hidden_layers
    return 2 * weights + attention


def matmul_gflops(rows: int, inner: int, cols: int, repeats: int = 50) -> float:
    import torch

    a, b = torch.randn(rows, inner), torch.randn(inner, cols)
    for _ in range(3):
        a @ b
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    return 2 * rows * inner * cols * repeats / (time.perf_counter() - start) / 1e9


def print_piece_caps(texts: list[str], encoder: TransformerEncoder, caps: list[int]) -> None:
    """The share of sentences each cap on word pieces cuts and the share of pieces it keeps."""
    import numpy as np

    encoder._load()
    lengths = np.array([len(ids) for ids in encoder._tokenizer(
        texts, truncation=True, max_length=encoder.recipe.max_length)["input_ids"]])
    print(f"{len(texts)} mention sentences, {lengths.sum()} word pieces: mean "
          f"{lengths.mean():.1f}, median {np.median(lengths):.0f}, 90th percentile "
          f"{np.percentile(lengths, 90):.0f}, longest {lengths.max()}\n")
    print("| cap (word pieces) | sentences cut | word pieces kept |")
    print("|---|---|---|")
    for cap in caps:
        kept = np.minimum(lengths, cap).sum() / lengths.sum()
        print(f"| {cap} | {(lengths > cap).mean():.1%} | {kept:.1%} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project-dir", type=Path, default=REPO / ".aesi")
    ap.add_argument("--sentences", type=int, default=2000,
                    help="how many mention sentences, in document order (0: all)")
    ap.add_argument("--caps", type=lambda text: [int(c) for c in text.split(",")],
                    help="count word pieces under these caps instead of timing the encoder")
    args = ap.parse_args(argv)
    if not (args.project_dir / "aesi.duckdb").is_file():
        ap.error(f"no store at {args.project_dir / 'aesi.duckdb'}: run ./scripts/run.sh "
                 "(or aesi run --project-dir DIR) first")
    texts = mention_sentences(args.project_dir, args.sentences)
    if not texts:
        ap.error(f"{args.project_dir}: no sentence holds a mention")
    encoder = TransformerEncoder(runtime="torch")
    if args.caps:
        print_piece_caps(texts, encoder, args.caps)
        return 0
    encoder.encode(texts[:64])          # load and warm up
    start = time.perf_counter()
    encoder.encode(texts)
    seconds = time.perf_counter() - start
    pieces = sum(len(ids) for ids in encoder._tokenizer(
        texts, truncation=True, max_length=encoder.recipe.max_length)["input_ids"])
    import torch

    per_piece = layer_flops_per_piece(encoder._model, pieces / len(texts))
    hidden = encoder._model.config.hidden_size
    ceiling = matmul_gflops(2048, hidden, encoder._model.config.intermediate_size)
    print(f"{len(texts)} mention sentences of {args.project_dir}, {pieces} word pieces "
          f"({pieces / len(texts):.1f} a sentence), {torch.get_num_threads()} torch threads, "
          f"batches of {encoder.batch_size}\n")
    print("| seconds | sentences/s | word pieces/s | MFLOP a piece | encoder GFLOP/s | "
          "one large matrix product, GFLOP/s | share of it |")
    print("|---|---|---|---|---|---|---|")
    achieved = pieces * per_piece / seconds / 1e9
    print(f"| {seconds:.1f} | {len(texts) / seconds:.0f} | {pieces / seconds:.0f} | "
          f"{per_piece / 1e6:.1f} | {achieved:.0f} | {ceiling:.0f} | {achieved / ceiling:.0%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
