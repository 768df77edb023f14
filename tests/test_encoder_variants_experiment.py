"""experiments/encoder_variants.py: what the encoder benchmarks share."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from experiments import encoder_variants as variants


def _inputs(table: pd.DataFrame, sentences: pd.DataFrame, features=None):
    return variants.DefaultInputs(corpus=None, config=None, table=table, features=features,
                                  sentences=sentences)


def test_mention_texts_are_the_sentences_that_hold_a_mention_in_the_stores_order():
    table = pd.DataFrame({"doc_id": ["b", "a", "a"], "sent_id": [0, 2, 2]})
    sentences = pd.DataFrame({"doc_id": ["a", "a", "a", "b", "b"],
                              "sent_id": [0, 1, 2, 0, 1],
                              "text": ["a0", "a1", "a2", "b0", "b1"]})
    inputs = _inputs(table, sentences)
    assert inputs.mention_texts(10) == ["a2", "b0"]
    assert inputs.mention_texts(1) == ["a2"]


def test_mention_vectors_give_each_mention_its_sentences_row():
    features = SimpleNamespace(context_vectors=np.array([[1.0, 0.0], [0.0, 1.0]]),
                               context_rows=np.array([1, 1, 0]))
    inputs = _inputs(pd.DataFrame(), pd.DataFrame(), features)
    np.testing.assert_array_equal(inputs.mention_vectors(), [[0, 1], [0, 1], [1, 0]])


def test_row_cosines_pair_each_row_with_its_own():
    before = np.array([[1.0, 0.0], [0.0, 2.0]])
    after = np.array([[3.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(variants.row_cosines(before, after), [1.0, np.sqrt(0.5)])


def test_the_cosine_summary_names_the_mean_the_first_percentile_and_the_least():
    cosines = np.linspace(0.5, 1.0, 101)
    assert variants.cosine_summary(cosines) == (
        "mean 0.7500, 1st percentile 0.5050, least 0.5000")


def test_the_int8_benchmarks_batch_dependence_compares_one_batch_with_one_at_a_time():
    from experiments import encoder_int8

    class ByBatchSize:
        """Each sentence's vector is (1, batch size - 1): alone, (1, 0)."""

        def encode(self, sentences):
            return np.array([[1.0, len(sentences) - 1.0]] * len(sentences))

    largest, least = encoder_int8.batch_dependence(ByBatchSize(), ["a", "b"])
    assert largest == 1.0
    assert abs(least - np.sqrt(0.5)) < 1e-12


def test_the_variant_parser_takes_the_shared_options_with_their_defaults():
    args = variants.variant_parser("x").parse_args(["--rows", "r.csv", "--seeds", "3", "4"])
    assert (args.time_sentences, args.rounds, args.skip_scores, args.rows, args.seeds) == (
        2000, 2, False, "r.csv", [3, 4])
