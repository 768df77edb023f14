"""What the benchmarks of encoder variants share (``encoder_int8.py``, ``encoder_layers.py``):
the default's inputs from a finished MUC-4 run, its mention sentences, a pass's speed, the
cosines of two sets of vectors, and the seeds' scores of each variant's features."""

from __future__ import annotations

import argparse
import dataclasses
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.corpus.sources import Corpus
from aesi_lib.fingerprint import source_commit
from aesi_lib.lexicon.encoder import run_encoder
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.parts import DEFAULT_PARTS, ModelParts
from aesi_lib.run.config import RunConfig
from aesi_lib.run.experiments import RECORD_COLUMNS, results_table, score_row, summarize
from aesi_lib.run.pipeline import assignments_frame, run_induction
from aesi_lib.store import Store
from benchmarks.encoder_throughput import mention_texts
from experiments.muc4_inputs import default_project_inputs, project_store, seeded_run_parser


@dataclass(frozen=True)
class DefaultInputs:
    """The default's features on a finished MUC-4 run, with what a variant needs to differ
    from them in its context vectors alone."""

    corpus: Corpus
    config: RunConfig
    table: pd.DataFrame
    features: EntityFeatures
    sentences: pd.DataFrame          # doc_id, sent_id, text of the table's documents

    def encoder(self, runtime: str | None = None) -> Any:
        """A new copy of the run's encoder (not loaded until it encodes); ``runtime="torch"``
        for a variant that changes torch's model."""
        return run_encoder(self.config.features, self.config.vectors_path, runtime=runtime)

    def mention_texts(self, limit: int) -> list[str]:
        """The first ``limit`` sentences that hold a mention, in the store's order."""
        return mention_texts(self.table, self.sentences, limit)

    def mention_vectors(self) -> np.ndarray:
        """Each mention's sentence vector in the default's features, shape (|E|, d)."""
        return self.features.context_vectors[self.features.context_rows]


def variant_parser(description: str) -> argparse.ArgumentParser:
    """``muc4_inputs.seeded_run_parser`` with what every encoder variant's benchmark takes:
    ``--time-sentences``, ``--rounds``, ``--skip-scores`` and ``--rows``."""
    parser = seeded_run_parser(description)
    parser.add_argument("--time-sentences", type=int, default=2000,
                        help="the mention sentences each speed round encodes")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--skip-scores", action="store_true",
                        help="measure speed and vectors only (no solves)")
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    return parser


def default_inputs(script: str, args: argparse.Namespace) -> DefaultInputs:
    """The inputs of the project ``args.project_dir`` and the corpus of ``args.muc4_dir`` (the
    arguments of ``muc4_inputs.seeded_run_parser``); the default's context vectors come from
    the project's cache."""
    corpus, config, table, features = default_project_inputs(script, args)
    with Store(project_store(script, args.project_dir), read_only=True) as store:
        sentences = store.sentence_texts(sorted(table["doc_id"].unique()))
    return DefaultInputs(corpus, config, table, features, sentences)


def sentences_per_second(encoder: Any, sentences: list[str]) -> float:
    started = time.perf_counter()
    encoder.encode(sentences)
    return len(sentences) / (time.perf_counter() - started)


def row_cosines(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The cosine of each row of ``before`` with the same row of ``after``."""
    return np.einsum("ij,ij->i", before, after) / (
        np.linalg.norm(before, axis=1) * np.linalg.norm(after, axis=1))


def cosine_summary(cosines: np.ndarray) -> str:
    """``mean …, 1st percentile …, least …`` of ``cosines``."""
    return (f"mean {cosines.mean():.4f}, 1st percentile {np.percentile(cosines, 1):.4f}, "
            f"least {cosines.min():.4f}")


def score_variants(inputs: DefaultInputs, variants: dict[str, EntityFeatures],
                   seeds: list[int], rows_path: str | None,
                   parts: ModelParts = DEFAULT_PARTS) -> pd.DataFrame:
    """The default's model solved on each variant's features for every seed, with the model's
    ``parts`` (``aesi_lib.model.parts``), scored as the sweep scores it
    (``aesi_lib.run.experiments.score_row``); prints a line a solve and the summary table,
    and writes the per-seed rows (a sweep's ``results.csv`` columns) to ``rows_path`` when
    given."""
    commit = source_commit()
    rows = []
    for seed in seeds:
        model = dataclasses.replace(inputs.config.model, seed=seed)
        for name, features in variants.items():
            result = run_induction(features, model, parts=parts)
            row = score_row(assignments_frame(inputs.table, result), inputs.corpus.eval_keys,
                            inputs.corpus.map_keys)
            rows.append({"configuration": name, "seed": seed, "commit": commit,
                         "config_digest": "", **row})
            print(f"seed {seed}  {name}: test-mapped {row['tst_test_lenient_f1']:.3f}, "
                  f"dev-mapped {row['tst_dev_lenient_f1']:.3f}", flush=True)
    frame = pd.DataFrame(rows)
    print(results_table(summarize(frame)))
    if rows_path:
        frame[list(RECORD_COLUMNS)].to_csv(rows_path, index=False)
    return frame
