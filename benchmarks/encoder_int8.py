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

    .venv/bin/python benchmarks/encoder_int8.py --project-dir .aesi \\
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/encoder-int8.csv
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time

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


def quantised(encoder):
    """``encoder`` (a ``TransformerEncoder``), loaded, with its linear layers in int8."""
    import torch

    if not encoder.loaded:
        encoder._load()
    encoder._model = torch.ao.quantization.quantize_dynamic(
        encoder._model, {torch.nn.Linear}, dtype=torch.qint8)
    return encoder


def sentences_per_second(encoder, sentences: list[str]) -> float:
    started = time.perf_counter()
    encoder.encode(sentences)
    return len(sentences) / (time.perf_counter() - started)


def batch_dependence(encoder, sentences: list[str]) -> tuple[float, float]:
    """The largest coordinate difference and the least cosine between ``sentences`` encoded in
    one batch and one at a time."""
    together = encoder.encode(sentences)
    alone = np.vstack([encoder.encode([s]) for s in sentences])
    cosines = np.einsum("ij,ij->i", together, alone) / (
        np.linalg.norm(together, axis=1) * np.linalg.norm(alone, axis=1))
    return float(np.abs(together - alone).max()), float(cosines.min())


def main(argv: list[str] | None = None) -> int:
    parser = seeded_run_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--time-sentences", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch-sentences", type=int, default=64)
    parser.add_argument("--skip-scores", action="store_true",
                        help="measure speed, batches and vectors only (no solves)")
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    args = parser.parse_args(argv)

    corpus = muc4_corpus("encoder_int8", args.muc4_dir)
    store_path = project_store("encoder_int8", args.project_dir)
    project = store_path.parent
    config = RunConfig.from_dict(preset("default"))
    vectors, wordnet = load_lexicon(config)
    with Store(store_path, read_only=True) as store:
        table, features, _ = model_inputs(store, config, vectors, wordnet,
                                          context_cache=project / "context-vectors")
        sentences = store.sentence_texts(sorted(table["doc_id"].unique()))

    full = run_encoder(config.features, config.vectors_path)
    small = quantised(run_encoder(config.features, config.vectors_path))
    held = set(zip(table["doc_id"], table["sent_id"], strict=True))
    texts = [t for d, s, t in zip(sentences["doc_id"], sentences["sent_id"], sentences["text"],
                                  strict=True) if (d, s) in held][:args.time_sentences]
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
        context = mention_context_vectors(table, sentences, small, cache)
    print(f"int8 pass over {context.n_sentences} mention sentences: "
          f"{time.perf_counter() - started:.1f} s")
    rows_before = features.context_vectors[features.context_rows]
    rows_after = context.sentence[context.sentence_rows]
    cosines = np.einsum("ij,ij->i", rows_before, rows_after) / (
        np.linalg.norm(rows_before, axis=1) * np.linalg.norm(rows_after, axis=1))
    print(f"cosine of int8 and float32 sentence vectors, per mention: mean "
          f"{cosines.mean():.4f}, 1st percentile {np.percentile(cosines, 1):.4f}, "
          f"least {cosines.min():.4f}")
    if args.skip_scores:
        return 0
    int8_features = dataclasses.replace(features, **context.feature_arrays())

    commit = source_commit()
    rows = []
    for seed in args.seeds:
        model = dataclasses.replace(config.model, seed=seed)
        for name, inputs in (("default", features), ("int8 encoder", int8_features)):
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
