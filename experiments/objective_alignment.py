"""Does the paper's objective prefer the template partitions that score better?

The templates of the runs of one or more ``aesi sweep`` folders are scored by the normalized
association of Eqs. 4-5 (``aesi_lib.model.ncut.normalized_association``) under one W_T: Eq. 1
with the options of ``--preset``, built from the feature file of the last ``aesi run`` (which
its ``out/results.json`` names) or from ``--features``. Beside each run stand its
selection-split scores from the sweep's ``results.parquet``. If the objective tracked the score,
the better cuts would be the better templates, and a better optimiser (more discretisations,
more members) would buy F1; a rank correlation near zero or below says the choice between the
nearby partitions is not the objective's. Consensus templates are the cut of the members'
co-association, not of W_T: the question is whether W_T itself prefers them. Rows that change
only the slots (the type weight of W_H, the class count) share the templates, and so the
objective, of the run they vary, while their scores differ: leave them out of a question about
templates with ``--configurations``.

After a MUC-4 run of the default (``./scripts/run.sh``) and the sweeps of the README::

    .venv/bin/python -m experiments.objective_alignment sweep-weights sweep-ablations

With ``--refine`` (and the MUC-4 keys), each run's templates are then moved greedily, one
predicate unit at a time, to a local optimum of the same objective
(:func:`refine_to_local_optimum`), and scored again: does a better cut of W_T make better
templates? ``--configurations`` restricts either part to the named rows::

    .venv/bin/python -m experiments.objective_alignment sweep-weights --refine \
        --configurations default

Only runs over the same mentions as the feature file are read (the rows of a configuration
that changes the entity rules, such as -event nouns, are left out with a line that says so),
and only runs with at most ``n_templates`` templates, so that the objective of every run has
the same k.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse.linalg import LinearOperator
from scipy.stats import spearmanr

from aesi_lib.model.ncut import normalized_association

REPO = Path(__file__).resolve().parents[1]

#: The sweep's score columns read beside the objective.
SCORES = {"tst_test_lenient_f1": "test-mapped", "tst_dev_lenient_f1": "dev-mapped",
          "dev_dev_lenient_f1": "DEV"}


@dataclass(frozen=True)
class Run:
    """One sweep run: its configuration, seed, template labels, scores and export folder."""

    sweep: str
    configuration: str
    seed: int
    templates: np.ndarray
    scores: dict[str, float]
    folder: Path | None = None


def objective_table(W: LinearOperator, degrees: np.ndarray, k: int, runs: list[Run]
                    ) -> pd.DataFrame:
    """The normalized association (Eqs. 4-5) of each run's templates under one graph.

    Parameters
    ----------
    W : LinearOperator of shape (E, E)
        W_T of the runs' mentions.
    degrees : ndarray of shape (E,)
        ``W·1``.
    k : int
        The template count the objective divides by (every run has at most k templates).
    runs : list of Run
        Each with E template labels in [0, k).

    Returns
    -------
    DataFrame with one row per run: sweep, configuration, seed, objective, and the scores.
    """
    rows = []
    for run in runs:
        objective = normalized_association(W, degrees, run.templates, k)
        rows.append({"sweep": run.sweep, "configuration": run.configuration, "seed": run.seed,
                     "objective": objective, **run.scores})
    return pd.DataFrame(rows)


def refine_to_local_optimum(W: LinearOperator, degrees: np.ndarray, labels: np.ndarray,
                            k: int, max_sweeps: int = 50) -> tuple[np.ndarray, int]:
    """Greedy single moves that raise the normalized association ε(X) of Eqs. 4-5.

    Weighted kernel k-means in its incremental form (Dhillon, Guan and Kulis, "Kernel k-means,
    spectral clustering and normalized cuts", KDD 2004): each item in turn, in order of
    decreasing degree, moves to the cluster that raises ε most, until a sweep moves none (a
    local optimum: no single move raises ε) or ``max_sweeps`` sweeps. Matrix-free: one product
    ``W X`` at the start, one column ``W e_u`` per move, and the diagonal of W once.

    Parameters
    ----------
    W : LinearOperator of shape (U, U)
        Symmetric, nonnegative (here the tied W_T, ``Gᵀ W_T G``).
    degrees : ndarray of shape (U,)
        ``W·1``.
    labels : ndarray of shape (U,), int in [0, k)
        The start.
    k : int
    max_sweeps : int

    Returns
    -------
    labels : ndarray of shape (U,)
    sweeps : int
        Sweeps made, the last of which moved nothing unless ``max_sweeps`` stopped it.
    """
    n = W.shape[0]
    labels = np.asarray(labels, dtype=np.int64).copy()
    d = np.asarray(degrees, dtype=np.float64)
    X = np.zeros((n, k))
    X[np.arange(n), labels] = 1.0
    S = np.asarray(W @ X)                     # S[u, l]: u's affinity to cluster l
    A = np.einsum("ul,ul->l", X, S)
    D = X.T @ d
    diagonal = np.empty(n)
    for start in range(0, n, 256):
        block = np.arange(start, min(start + 256, n))
        E = np.zeros((n, len(block)))
        E[block, np.arange(len(block))] = 1.0
        diagonal[block] = np.asarray(W @ E)[block, np.arange(len(block))]

    def ratio(a: np.ndarray, dd: np.ndarray) -> np.ndarray:
        return np.divide(a, dd, out=np.zeros_like(a), where=dd > 0)

    order = np.argsort(-d, kind="stable")
    tol = 1e-12 * max(float(ratio(A, D).sum()), 1.0)
    for sweep in range(1, max_sweeps + 1):
        moved = 0
        for u in order:
            a = labels[u]
            current = ratio(A, D)
            A_a, D_a = A[a] - 2 * S[u, a] + diagonal[u], D[a] - d[u]
            leave = (A_a / D_a if D_a > 0 else 0.0) - current[a]
            A_to, D_to = A + 2 * S[u] + diagonal[u], D + d[u]
            gain = ratio(A_to, D_to) - current + leave
            gain[a] = 0.0
            b = int(np.argmax(gain))
            if gain[b] <= tol:
                continue
            column = np.asarray(W @ np.eye(n, 1, -u)).reshape(-1)
            A[a], D[a], A[b], D[b] = A_a, D_a, A_to[b], D_to[b]
            S[:, a] -= column
            S[:, b] += column
            labels[u] = b
            moved += 1
        if not moved:
            return labels, sweep
    return labels, max_sweeps


def rank_correlations(table: pd.DataFrame, score: str) -> tuple[float, float]:
    """Spearman's ρ between the objective and ``score``: over all runs, and the mean of the
    within-configuration ρ (NaN where the objective or the score is constant: ρ is undefined
    there, and such configurations are left out of the mean)."""
    within = [_rho(group["objective"], group[score])
              for _, group in table.groupby(["sweep", "configuration"])]
    within = [rho for rho in within if not np.isnan(rho)]
    return (_rho(table["objective"], table[score]),
            float(np.mean(within)) if within else float("nan"))


def _rho(x: pd.Series, y: pd.Series) -> float:
    if x.nunique() < 2 or y.nunique() < 2:
        return float("nan")
    return float(spearmanr(x, y).statistic)


def read_runs(sweep: Path, n_entities: int, k: int,
              configurations: Sequence[str] | None = None) -> list[Run]:
    """The runs of one sweep folder (``runs/<configuration>/seed-<n>/assignments.parquet``
    and ``results.parquet``) over ``n_entities`` mentions with at most ``k`` templates, of
    the named ``configurations`` (None: all)."""
    results = pd.read_parquet(sweep / "results.parquet")
    runs = []
    for config_dir in sorted(p for p in (sweep / "runs").iterdir() if p.is_dir()):
        if configurations is not None and config_dir.name not in configurations:
            continue
        for seed_dir in sorted(config_dir.glob("seed-*")):
            templates = pd.read_parquet(seed_dir / "assignments.parquet",
                                        columns=["template"])["template"].to_numpy()
            seed = int(seed_dir.name.removeprefix("seed-"))
            if len(templates) != n_entities or templates.max() >= k:
                print(f"{sweep.name} / {config_dir.name}: {len(templates)} mentions, "
                      f"{templates.max() + 1} templates (the features: {n_entities} mentions, "
                      f"k = {k}); left out")
                break
            row = results[(results["configuration"] == config_dir.name)
                          & (results["seed"] == seed)]
            if row.empty:
                raise SystemExit(f"{sweep / 'results.parquet'} has no row for "
                                 f"{config_dir.name!r} seed {seed}")
            runs.append(Run(sweep.name, config_dir.name, seed, templates.astype(np.int64),
                            {name: float(row[col].iloc[-1]) for col, name in SCORES.items()},
                            seed_dir))
    return runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweeps", nargs="+", type=Path, help="aesi sweep --out folders")
    parser.add_argument("--features", type=Path,
                        help="the feature file (.npz) of the runs' mentions (default: the one "
                             "out/results.json of the last aesi run names)")
    parser.add_argument("--preset", default="default", help="whose W_T scores the runs")
    parser.add_argument("--configurations", nargs="+", metavar="NAME",
                        help="only these rows of the sweeps (default: all)")
    parser.add_argument("--refine", action="store_true",
                        help="also move each run's templates to a local optimum of the objective "
                             "and score them on the MUC-4 keys")
    parser.add_argument("--muc4-dir", type=Path,
                        help="MUC-4 folder for --refine (default: $AESI_MUC4_DIR or "
                             "../shared/data/muc4)")
    args = parser.parse_args(argv)
    for sweep in args.sweeps:
        if not (sweep / "results.parquet").is_file() or not (sweep / "runs").is_dir():
            parser.error(f"{sweep} is not an aesi sweep folder (no results.parquet and runs/)")
    path = args.features or _last_run_features(REPO / "out" / "results.json", parser)
    if not path.is_file():
        parser.error(f"{path}: no such feature file")
    muc4_dir = None
    if args.refine:
        from aesi_lib.corpus.muc4 import resolve_muc4_dir
        from aesi_lib.errors import InputError

        try:
            muc4_dir = resolve_muc4_dir(args.muc4_dir)
        except InputError as exc:
            parser.error(str(exc))
        if muc4_dir is None:
            parser.error("--refine scores on the MUC-4 keys: no corpus at $AESI_MUC4_DIR or "
                         "../shared/data/muc4; pass --muc4-dir")
    from aesi_lib.model.feature_files import load_features
    from aesi_lib.model.similarity import template_similarity
    from aesi_lib.run.config import RunConfig
    from aesi_lib.run.presets import preset

    features, _ = load_features(path)
    model = RunConfig.from_dict(preset(args.preset)).model
    W = template_similarity(features, model.similarity)
    degrees = W.degrees()
    k = model.n_templates
    runs = [run for sweep in args.sweeps
            for run in read_runs(sweep, features.n_entities, k, args.configurations)]
    if not runs:
        raise SystemExit(f"no run of {', '.join(map(str, args.sweeps))} has the "
                         f"{features.n_entities} mentions of {path}")
    print(f"{len(runs)} runs, |E| = {features.n_entities}, W_T of the {args.preset} preset, "
          f"k = {k}")
    table = objective_table(W, degrees, k, runs)
    summary = table.groupby(["sweep", "configuration"], sort=False).agg(
        runs=("seed", "size"), objective=("objective", "mean"),
        objective_std=("objective", "std"),
        **{name: (name, "mean") for name in SCORES.values()}).sort_values("objective")
    print(summary.to_string(float_format=lambda x: f"{x:.5f}"))
    for name in SCORES.values():
        overall, within = rank_correlations(table, name)
        print(f"Spearman ρ(objective, {name}): {overall:+.2f} over all runs, "
              f"{within:+.2f} within a configuration (mean)")
    if muc4_dir is not None:
        print(refinement_table(features, model, W, runs, table["objective"].to_numpy(), muc4_dir)
              .to_string(float_format=lambda x: f"{x:.5f}"))


def refinement_table(features: Any, model: Any, W: LinearOperator, runs: list[Run],
                     objectives: np.ndarray, muc4_dir: Path) -> pd.DataFrame:
    """Each run's templates before (``objectives``, :func:`objective_table`'s, in the order of
    ``runs``) and after :func:`refine_to_local_optimum` on the tied W_T: the objective, the
    units moved and the scores, averaged per configuration."""
    from aesi_lib.corpus.muc4 import load_muc4_split
    from aesi_lib.evaluate.split import KeyGold
    from aesi_lib.model.tying import tied_operator, unit_indicator
    from aesi_lib.model.units import label_units
    from aesi_lib.run.experiments import score_row

    def keys(*splits: str) -> KeyGold:
        return KeyGold([t for split in splits for t in load_muc4_split(muc4_dir, split).keys or []])

    tst, dev = keys("tst1", "tst2"), keys("dev")
    units, _ = label_units(features, model)
    if units is None:
        raise SystemExit("--refine needs templates tied to units (model.template_unit)")
    G = unit_indicator(units)
    Wu = tied_operator(W, G)
    du = np.asarray(Wu @ np.ones(G.shape[1])).reshape(-1)
    k = model.n_templates
    rows = []
    for run, objective in zip(runs, objectives, strict=True):
        start = np.zeros(G.shape[1], dtype=np.int64)
        start[units] = run.templates
        if not np.array_equal(start[units], run.templates):
            print(f"{run.configuration} seed {run.seed}: templates not tied to the units of "
                  f"{model.template_unit}; left out")
            continue
        refined, sweeps = refine_to_local_optimum(Wu, du, start, k)
        assignments = pd.read_parquet(run.folder / "assignments.parquet")
        assignments["template"] = refined[units]
        after = score_row(assignments, tst, dev)
        rows.append({"configuration": run.configuration,
                     "objective": objective,
                     "refined objective": normalized_association(Wu, du, refined, k),
                     "units moved": int((refined != start).sum()), "sweeps": sweeps,
                     **run.scores,
                     **{f"refined {name}": after[col] for col, name in SCORES.items()}})
        print(f"{run.configuration} seed {run.seed}: {rows[-1]['units moved']} units moved in "
              f"{sweeps} sweeps, test-mapped {run.scores['test-mapped']:.3f} -> "
              f"{after['tst_test_lenient_f1']:.3f}", flush=True)
    if not rows:
        raise SystemExit("--refine: no run has templates tied to the units")
    return pd.DataFrame(rows).groupby("configuration", sort=False).mean()


def _last_run_features(results: Path, parser: argparse.ArgumentParser) -> Path:
    try:
        return Path(json.loads(results.read_text())["artifacts"]["features"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        parser.error(f"{results} names no feature file ({exc!r}): run aesi run first "
                     f"(./scripts/run.sh), or pass --features")


if __name__ == "__main__":
    main()
