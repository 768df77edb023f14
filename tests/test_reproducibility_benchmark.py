"""benchmarks/reproducibility.py: another machine's sentence vectors go where the pass put this
machine's, and the recorded encoder calls replay the pass."""

from __future__ import annotations

import numpy as np
from benchmark_modules import load_benchmark


def test_replayed_encoder_calls_give_the_pass_vectors_in_its_rows(demo_seed, tmp_path):
    bench = load_benchmark("reproducibility")
    bench.pack(demo_seed.caches.parent / "project", tmp_path)
    features = bench.unpack(tmp_path)

    vectors = bench.encode(tmp_path, threads=None)
    assert vectors.shape[0] == int(np.load(tmp_path / "features.npz")["context_rows"].max()) + 1
    np.save(tmp_path / "vectors-replayed.npy", vectors)
    replayed = bench.with_sentence_vectors(features, tmp_path, tmp_path / "vectors-replayed.npy")
    # The same model on the same texts in the same calls: equal up to the last bits (the
    # thread count may differ from the pass's).
    np.testing.assert_allclose(replayed.context_vectors, features.context_vectors, atol=1e-6)

    # Every sentence's own vector goes to its mentions: a vector that names its row lands
    # on the mentions of that row.
    named = np.zeros_like(vectors)
    named[:, 0] = np.arange(1, len(vectors) + 1)
    np.save(tmp_path / "vectors-named.npy", named)
    rows = bench.with_sentence_vectors(features, tmp_path, tmp_path / "vectors-named.npy")
    np.testing.assert_array_equal(rows.context_vectors[:, 0],
                                  np.load(tmp_path / "features.npz")["context_rows"] + 1)
