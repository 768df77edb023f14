"""experiments/objective_alignment.py: the normalized association of each sweep run's templates
under one W_T, beside its scores."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.sparse.linalg import aslinearoperator


def _two_blocks() -> np.ndarray:
    """Two 3-cliques joined by one weak edge."""
    W = np.zeros((6, 6))
    W[:3, :3] = W[3:, 3:] = 1.0
    W[2, 3] = W[3, 2] = 0.1
    np.fill_diagonal(W, 0.0)
    return W


def test_the_cut_along_the_blocks_has_the_larger_objective_and_the_ranks_follow_the_scores():
    from experiments import objective_alignment as bench
    W = _two_blocks()
    partitions = {"blocks": [0, 0, 0, 1, 1, 1], "one off": [0, 0, 1, 1, 1, 1],
                  "mixed": [0, 1, 0, 1, 0, 1]}
    scores = {"blocks": 0.5, "one off": 0.4, "mixed": 0.1}
    runs = [bench.Run("s", name, 0, np.array(labels), {"test-mapped": scores[name]})
            for name, labels in partitions.items()]
    table = bench.objective_table(aslinearoperator(W), W.sum(axis=1), 2, runs)

    objective = dict(zip(table["configuration"], table["objective"], strict=True))
    # Eqs. 4-5 by hand for the block cut: each block keeps 6 of its 6.1 degree.
    assert objective["blocks"] == pytest.approx(6 / 6.1)
    assert objective["blocks"] > objective["one off"] > objective["mixed"]
    overall, within = bench.rank_correlations(table, "test-mapped")
    assert overall == pytest.approx(1.0)
    assert np.isnan(within)          # one run per configuration: no within-configuration rank


def test_rank_correlations_within_configurations_average_their_own_ranks():
    from experiments import objective_alignment as bench
    table = pd.DataFrame({
        "sweep": "s", "configuration": ["a", "a", "a", "b", "b", "b"],
        "objective": [1.0, 2.0, 3.0, 1.0, 2.0, 3.0],
        "test-mapped": [0.1, 0.2, 0.3, 0.3, 0.2, 0.1]})
    overall, within = bench.rank_correlations(table, "test-mapped")
    assert within == pytest.approx(0.0)      # +1 in a, -1 in b
    assert overall == pytest.approx(0.0)


def test_a_sweep_folder_is_read_and_other_mentions_are_left_out(demo_seed, tmp_path, capsys):
    from experiments import objective_alignment as bench
    results = json.loads((demo_seed.caches.parent / "out" / "results.json").read_text())
    solved = pd.read_parquet(demo_seed.caches.parent / "out" / "assignments.parquet")
    sweep = tmp_path / "sweep"
    rng = np.random.default_rng(0)
    variants = {"solved": solved["template"].to_numpy(),
                "shuffled": rng.permutation(solved["template"].to_numpy()),
                "fewer mentions": solved["template"].to_numpy()[:-1]}
    test_mapped = {"solved": 0.3, "shuffled": 0.1, "fewer mentions": 0.2}
    rows = []
    for name, templates in variants.items():
        folder = sweep / "runs" / name / "seed-0"
        folder.mkdir(parents=True)
        pd.DataFrame({"template": templates}).to_parquet(folder / "assignments.parquet")
        rows.append({"configuration": name, "seed": 0,
                     "tst_test_lenient_f1": test_mapped[name],
                     "tst_dev_lenient_f1": 0.2, "dev_dev_lenient_f1": 0.1})
    pd.DataFrame(rows).to_parquet(sweep / "results.parquet")

    bench.main([str(sweep), "--features", results["artifacts"]["features"]])
    out = capsys.readouterr().out
    assert "sweep / fewer mentions" in out and "left out" in out
    assert "2 runs" in out
    table = out[out.index("configuration"):]
    # Sorted by the objective: the solved templates cut W_T better than a shuffle of them.
    assert table.index("shuffled") < table.index("solved")
    assert "ρ(objective, test-mapped): +1.00 over all runs" in out
    assert "ρ(objective, dev-mapped): +nan" in out          # the same score for both runs


def test_a_folder_that_is_not_a_sweep_is_refused_before_any_work(tmp_path, capsys):
    from experiments import objective_alignment as bench
    with pytest.raises(SystemExit):
        bench.main([str(tmp_path)])
    assert "is not an aesi sweep folder" in capsys.readouterr().err
    sweep = tmp_path / "sweep"
    (sweep / "runs").mkdir(parents=True)
    (sweep / "results.parquet").touch()
    with pytest.raises(SystemExit):
        bench.main([str(sweep), "--features", str(tmp_path / "missing.npz")])
    assert "missing.npz: no such feature file" in capsys.readouterr().err
    features = tmp_path / "features.npz"
    features.touch()
    with pytest.raises(SystemExit):
        bench.main([str(sweep), "--features", str(features), "--refine",
                    "--muc4-dir", str(tmp_path / "no-corpus")])
    err = capsys.readouterr().err
    assert "no-corpus" in err and "MUC-4 folder not found" in err


def test_refinement_reaches_the_block_cut_and_a_local_optimum_of_the_objective():
    from aesi_lib.model.ncut import normalized_association
    from experiments import objective_alignment as bench

    W = _two_blocks()
    labels, sweeps = bench.refine_to_local_optimum(aslinearoperator(W), W.sum(axis=1),
                                                   np.array([0, 0, 1, 1, 1, 1]), 2)
    assert labels.tolist() == [0, 0, 0, 1, 1, 1] and sweeps == 2     # the second moves none

    rng = np.random.default_rng(3)
    W = rng.random((30, 30))
    W = W + W.T
    np.fill_diagonal(W, rng.random(30))     # a diagonal too: moves must count it
    degrees, k = W.sum(axis=1), 4
    start = rng.integers(0, k, 30)
    labels, _ = bench.refine_to_local_optimum(aslinearoperator(W), degrees, start, k)
    best = normalized_association(aslinearoperator(W), degrees, labels, k)
    assert best > normalized_association(aslinearoperator(W), degrees, start, k)
    for item in range(30):                  # no single move raises ε any more
        for cluster in range(k):
            moved = labels.copy()
            moved[item] = cluster
            assert normalized_association(aslinearoperator(W), degrees, moved, k) <= best + 1e-12
