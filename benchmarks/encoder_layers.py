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

    .venv/bin/python benchmarks/encoder_layers.py --project-dir .aesi --layers 2 3 4 \\
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/encoder-layers.csv
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from typing import Any

import numpy as np
import pandas as pd
from muc4_inputs import muc4_corpus, project_store, seeded_run_parser

from aesi_lib.fingerprint import source_commit
from aesi_lib.lexicon.encoder import run_encoder
from aesi_lib.lexicon.mention_context import mention_context_vectors
from aesi_lib.run.config import RunConfig
from aesi_lib.run.experiments import RECORD_COLUMNS, results_table, score_row, summarize
from aesi_lib.run.pipeline import assignments_frame, load_lexicon, model_inputs, run_induction
from aesi_lib.run.presets import preset
from aesi_lib.store import Store


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


def sentences_per_second(encoder: Any, sentences: list[str]) -> float:
    started = time.perf_counter()
    encoder.encode(sentences)
    return len(sentences) / (time.perf_counter() - started)


def row_cosines(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The cosine of each row of ``before`` with the same row of ``after``."""
    return np.einsum("ij,ij->i", before, after) / (
        np.linalg.norm(before, axis=1) * np.linalg.norm(after, axis=1))


def main(argv: list[str] | None = None) -> int:
    parser = seeded_run_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--time-sentences", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--skip-scores", action="store_true",
                        help="measure speed and vectors only (no solves)")
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    args = parser.parse_args(argv)

    corpus = muc4_corpus("encoder_layers", args.muc4_dir)
    store_path = project_store("encoder_layers", args.project_dir)
    project = store_path.parent
    config = RunConfig.from_dict(preset("default"))
    vectors, wordnet = load_lexicon(config)
    with Store(store_path, read_only=True) as store:
        table, features, _ = model_inputs(store, config, vectors, wordnet,
                                          context_cache=project / "context-vectors")
        sentences = store.sentence_texts(sorted(table["doc_id"].unique()))

    full = run_encoder(config.features, config.vectors_path)
    shallow = {k: first_layers(run_encoder(config.features, config.vectors_path), k)
               for k in args.layers}
    held = set(zip(table["doc_id"], table["sent_id"], strict=True))
    texts = [t for d, s, t in zip(sentences["doc_id"], sentences["sent_id"], sentences["text"],
                                  strict=True) if (d, s) in held][:args.time_sentences]
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

    rows_before = features.context_vectors[features.context_rows]
    variants = {"default": features}
    for k, encoder in shallow.items():
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as cache:
            context = mention_context_vectors(table, sentences, encoder, cache)
        cosines = row_cosines(rows_before, context.sentence[context.sentence_rows])
        print(f"{k} layers: pass over {context.n_sentences} mention sentences "
              f"{time.perf_counter() - started:.1f} s; cosine with 6 layers' vectors, per "
              f"mention: mean {cosines.mean():.4f}, 1st percentile "
              f"{np.percentile(cosines, 1):.4f}, least {cosines.min():.4f}", flush=True)
        variants[f"first {k} layers"] = dataclasses.replace(features,
                                                            **context.feature_arrays())
    if args.skip_scores:
        return 0

    commit = source_commit()
    rows = []
    for seed in args.seeds:
        model = dataclasses.replace(config.model, seed=seed)
        for name, inputs in variants.items():
            result = run_induction(inputs, model)
            row = score_row(assignments_frame(table, result), corpus.eval_keys,
                            corpus.map_keys)
            rows.append({"configuration": name, "seed": seed, "commit": commit,
                         "config_digest": "", **row})
            print(f"seed {seed}  {name}: test-mapped {row['tst_test_lenient_f1']:.3f}, "
                  f"dev-mapped {row['tst_dev_lenient_f1']:.3f}", flush=True)
    frame = pd.DataFrame(rows)
    print(results_table(summarize(frame)))
    if args.rows:
        frame[list(RECORD_COLUMNS)].to_csv(args.rows, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
