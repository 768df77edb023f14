"""The MiniLM encoder with int8 dynamic quantisation: its speed, its vectors and its scores.

Issue 49 names int8 dynamic quantisation of the encoder's linear layers
(``torch.ao.quantization.quantize_dynamic``) as a way to a faster cold run, measured before
at 1.37x on the encoder pass with its F1 never measured. This benchmark measures all three on
a finished MUC-4 run of the default (``./scripts/run.sh``):

* **speed**: the first ``--time-sentences`` mention sentences encoded by the float32 model
  and by its int8 copy, in turns (``--rounds`` each), the models loaded and warmed up first;
* **batches**: the first ``--batch-sentences`` mention sentences encoded together and one at
  a time by each model: how much a sentence's vector depends on the sentences batched with it;
* **vectors**: every mention sentence encoded by the int8 model (a temporary cache, so the
  project's is untouched) against the float32 vectors of the project's cache: the cosine of
  each pair;
* **scores**: the default solved with each set of context vectors for every seed and scored
  as the sweep scores it (``aesi_lib.run.experiments.score_row``), with everything else the
  same features.

The per-seed rows go to ``--rows`` (the columns of a sweep's ``results.csv``), the record of
docs/experiments/encoder-int8.md::

    .venv/bin/python -m experiments.encoder_int8 --project-dir .aesi \\
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/encoder-int8.csv
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from typing import Any

import numpy as np

from aesi_lib.lexicon.mention_context import mention_context_vectors
from experiments.encoder_variants import (
    cosine_summary,
    default_inputs,
    row_cosines,
    score_variants,
    sentences_per_second,
    variant_parser,
)


def quantised(encoder: Any) -> Any:
    """``encoder`` (a ``TransformerEncoder``), loaded, with its linear layers in int8."""
    import torch

    if not encoder.loaded:
        encoder._load()
    encoder._model = torch.ao.quantization.quantize_dynamic(
        encoder._model, {torch.nn.Linear}, dtype=torch.qint8)
    return encoder


def batch_dependence(encoder: Any, sentences: list[str]) -> tuple[float, float]:
    """The largest coordinate difference and the least cosine between ``sentences`` encoded in
    one batch and one at a time."""
    together = encoder.encode(sentences)
    alone = np.vstack([encoder.encode([s]) for s in sentences])
    return float(np.abs(together - alone).max()), float(row_cosines(together, alone).min())


def main(argv: list[str] | None = None) -> int:
    parser = variant_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--batch-sentences", type=int, default=64)
    args = parser.parse_args(argv)

    inputs = default_inputs("encoder_int8", args)
    full = inputs.encoder("torch")
    small = quantised(inputs.encoder("torch"))
    texts = inputs.mention_texts(args.time_sentences)
    for encoder in (full, small):
        encoder.encode(texts[:64])                  # warm-up
    rates: dict[str, list[float]] = {"float32": [], "int8": []}
    for _ in range(args.rounds):
        rates["float32"].append(sentences_per_second(full, texts))
        rates["int8"].append(sentences_per_second(small, texts))
    for name, values in rates.items():
        print(f"{name}: {' / '.join(f'{v:.1f}' for v in values)} sentences/s over "
              f"{len(texts)} sentences")
    ratios = [b / a for a, b in zip(rates["float32"], rates["int8"], strict=True)]
    print(f"int8 / float32 by round: {' / '.join(f'{r:.2f}' for r in ratios)}")
    for name, encoder in (("float32", full), ("int8", small)):
        largest, least = batch_dependence(encoder, texts[:args.batch_sentences])
        print(f"{name}, {min(len(texts), args.batch_sentences)} sentences in one batch and "
              f"one at a time: largest difference {largest:.2e}, least cosine {least:.6f}")

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as cache:
        context = mention_context_vectors(inputs.table, inputs.sentences, small, cache)
    print(f"int8 pass over {context.n_sentences} mention sentences: "
          f"{time.perf_counter() - started:.1f} s")
    cosines = row_cosines(inputs.mention_vectors(), context.sentence[context.sentence_rows])
    print(f"cosine of int8 and float32 sentence vectors, per mention: "
          f"{cosine_summary(cosines)}")
    if not args.skip_scores:
        int8_features = dataclasses.replace(inputs.features, **context.feature_arrays())
        score_variants(inputs, {"default": inputs.features, "int8 encoder": int8_features},
                       args.seeds, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
