"""MiniLM with fewer layers: the speed, the vectors and the scores of its first k layers.

Issue 49 asks for a cold MUC-4 flow of at most 150 s on 2 cores, and the encoder pass is most
of it. A forward pass costs the same in each of MiniLM's 6 transformer layers, so a sentence
vector pooled after the first k layers costs about k/6 of the pass. A larger encoder
(all-mpnet-base-v2, docs/experiments/encoder-mpnet.md) scored no better than MiniLM, so the
question is how far down the scores hold. This benchmark measures, on a finished MUC-4 run of
the default (``./scripts/run.sh``), for each k of ``--layers``:

* **speed**: the first ``--time-sentences`` mention sentences encoded by the whole model and
  by its first k layers, in turns (``--rounds`` each), the models loaded and warmed up first;
* **vectors**: every mention sentence encoded by the first k layers (a temporary cache, so
  the project's is untouched) against the whole model's vectors of the project's cache: the
  cosine of each mention's pair;
* **scores**: the default solved with each set of context vectors for every seed and scored
  as the sweep scores it (``aesi_lib.run.experiments.score_row``), with everything else the
  same features.

The pooling (the mean of the word-piece states, unit length) is the product's; only the
layers it pools after change. The per-seed rows go to ``--rows`` (the columns of a sweep's
``results.csv``), the record of docs/experiments/encoder-layers.md::

    .venv/bin/python -m experiments.encoder_layers --project-dir .aesi --layers 2 3 4 \\
        --time-sentences 1000 --seeds 0 1 2 3 4 5 6 7 8 9 \\
        --rows docs/experiments/encoder-layers.csv
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from typing import Any

from aesi_lib.lexicon.mention_context import mention_context_vectors
from experiments.encoder_variants import (
    cosine_summary,
    default_inputs,
    row_cosines,
    score_variants,
    sentences_per_second,
    variant_parser,
)


def first_layers(encoder: Any, layers: int) -> Any:
    """``encoder`` (a ``TransformerEncoder``), loaded, with only the first ``layers`` of its
    model's transformer layers: its pooling then takes the states after layer ``layers``."""
    if not encoder.loaded:
        encoder._load()
    stack = encoder._model.encoder.layer
    if not 1 <= layers <= len(stack):
        raise ValueError(f"the model has {len(stack)} layers; {layers} is not among them")
    encoder._model.encoder.layer = stack[:layers]
    encoder._model.config.num_hidden_layers = layers
    return encoder


def main(argv: list[str] | None = None) -> int:
    parser = variant_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args(argv)

    inputs = default_inputs("encoder_layers", args)
    full = inputs.encoder("torch")
    shallow = {k: first_layers(inputs.encoder("torch"), k) for k in args.layers}
    texts = inputs.mention_texts(args.time_sentences)
    for encoder in (full, *shallow.values()):
        encoder.encode(texts[:64])                  # warm-up
    rates: dict[str, list[float]] = {"6 layers": []} | {f"{k} layers": [] for k in shallow}
    for _ in range(args.rounds):
        rates["6 layers"].append(sentences_per_second(full, texts))
        for k, encoder in shallow.items():
            rates[f"{k} layers"].append(sentences_per_second(encoder, texts))
    for name, values in rates.items():
        ratios = [v / w for v, w in zip(values, rates["6 layers"], strict=True)]
        print(f"{name}: {' / '.join(f'{v:.1f}' for v in values)} sentences/s over "
              f"{len(texts)} sentences; against 6 layers "
              f"{' / '.join(f'{r:.2f}x' for r in ratios)}", flush=True)

    variants = {"default": inputs.features}
    for k, encoder in shallow.items():
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as cache:
            context = mention_context_vectors(inputs.table, inputs.sentences, encoder, cache)
        cosines = row_cosines(inputs.mention_vectors(),
                              context.sentence[context.sentence_rows])
        print(f"{k} layers: pass over {context.n_sentences} mention sentences "
              f"{time.perf_counter() - started:.1f} s; cosine with 6 layers' vectors, per "
              f"mention: {cosine_summary(cosines)}", flush=True)
        variants[f"first {k} layers"] = dataclasses.replace(inputs.features,
                                                            **context.feature_arrays())
    if not args.skip_scores:
        score_variants(inputs, variants, args.seeds, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
