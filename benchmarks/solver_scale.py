"""Scaling of the matrix-free solver on planted synthetic corpora; prints Markdown tables.

Not a test. For each |E| (default 10^4, 10^5, 10^6; d = 100) a fresh subprocess generates a
planted corpus (``aesi_lib.model.planted_features``), builds W_T and W_S, solves the -SC cuts
and runs AMP (scaled mode), and reports times, peak RSS and ARI against the planted labels.
Peak memory is measured per process, so the sizes do not contaminate each other; the script
fits RSS = a + b·|E| and prints the bytes per entity and the log-log slope (1 = linear).

The AMP gain it shows comes from the generator, in which the sentence constraint holds exactly;
on MUC-4 the constraint lowers F1 (README, Results). The script prints this caveat too.

At |E| = 10^4 (``--sklearn-size``) it also compares our matrix-free normalized cut with
scikit-learn's ``SpectralClustering(affinity="precomputed", eigen_solver="arpack",
eigen_tol=tol, assign_labels="discretize")``, which needs the same affinity as a dense matrix
(diagonal zeroed, sklearn's convention; built by applying the operator to identity blocks and
timed on its own, not inside sklearn's time). Both sides get the same ARPACK tolerance
(``--sklearn-tol``, default 1e-8, ``normalized_cut``'s default). Each of ``--sklearn-repeats``
repeats runs each side in a fresh process (the order alternates), so every repeat gives one
speed ratio and each side's own peak RSS (VmHWM, reset after the corpus is built); the tables
give median (min–max) over repeats, the ARI of both against the planted labels and against each
other. At 2·10^4 scikit-learn peaked at 12,585 MiB (the dense matrix alone is 3,052 MiB).

Usage::

    .venv/bin/python benchmarks/solver_scale.py                  # everything
    .venv/bin/python benchmarks/solver_scale.py --sizes 1e4 1e5  # smaller run
    .venv/bin/python benchmarks/solver_scale.py --no-sklearn
    .venv/bin/python benchmarks/solver_scale.py --no-sizes --sklearn-repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aesi_lib.model.amp import solve_amp, solve_sc  # noqa: E402
from aesi_lib.model.ncut import normalized_cut  # noqa: E402
from aesi_lib.model.similarity import slot_similarity, template_similarity  # noqa: E402
from aesi_lib.model.synthetic import planted_features  # noqa: E402
from aesi_lib.model.terms import SimilarityOperator  # noqa: E402


def _ari(a: np.ndarray, b: np.ndarray) -> float:
    from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(a, b))


def _peak_rss_mib() -> float:
    # ru_maxrss is KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_size(n: int, dim: int, iters: int, weight: float, seed: int) -> dict:
    """One |E|: generate, build, -SC, AMP; returns timings, memory and quality."""
    out: dict = {"n_requested": n}
    t0 = time.perf_counter()
    features, templates, slots = planted_features(n, dim=dim, seed=seed, noise=2.0)
    out["n"] = features.n_entities
    out["generate_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    W_T, W_S = template_similarity(features), slot_similarity(features)
    d_t, d_s = W_T.degrees(), W_S.degrees()
    out["build_s"] = time.perf_counter() - t0

    x = np.random.default_rng(0).standard_normal(features.n_entities)
    t0 = time.perf_counter()
    for _ in range(3):
        W_T @ x
    out["matvec_t_s"] = (time.perf_counter() - t0) / 3
    t0 = time.perf_counter()
    for _ in range(3):
        W_S @ x
    out["matvec_s_s"] = (time.perf_counter() - t0) / 3

    t0 = time.perf_counter()
    lt, ls, info = solve_sc(W_T, W_S, 6, 4, seed, degrees_t=d_t, degrees_s=d_s)
    out["sc_s"] = time.perf_counter() - t0
    out["sc_ari_t"], out["sc_ari_s"] = _ari(templates, lt), _ari(slots, ls)
    residuals = [info["template_step"]["max_residual"], info["slot_step"]["max_residual"]]

    res = solve_amp(
        W_T, W_S, features.sentence_ids, 6, 4, mode="scaled", weight=weight, init="sc",
        max_iter=iters, seed=seed, degrees_t=d_t, degrees_s=d_s,
    )
    steps = res.history[1:]
    out["amp_iters"] = res.n_iter
    out["amp_converged"] = res.converged
    out["amp_s_per_iter"] = float(np.mean([h["seconds"] for h in steps]))
    out["amp_matvec_per_iter"] = float(
        np.mean([h["slot_step"]["n_matvec"] + h["template_step"]["n_matvec"] for h in steps])
    )
    residuals += [h[s]["max_residual"] for h in steps for s in ("slot_step", "template_step")]
    out["max_residual"] = float(max(residuals))
    out["amp_ari_t"] = _ari(templates, res.template_labels)
    out["amp_ari_s"] = _ari(slots, res.slot_labels)
    out["peak_rss_mib"] = _peak_rss_mib()
    return out


_GRAPHS = {"W_T": (template_similarity, 6), "W_S": (slot_similarity, 4)}


def vm_kib(field: str) -> int:
    """A ``Vm*`` line of /proc/self/status in KiB (VmHWM: peak resident set; VmRSS: current)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def _sk_setup(n: int, dim: int, seed: int, graph: str):
    """The planted corpus and one graph as a matrix-free operator (diagonal zeroed, sklearn's
    convention for a precomputed affinity), identical in both sides' processes."""
    features, templates, slots = planted_features(n, dim=dim, seed=seed, noise=2.0)
    build, k = _GRAPHS[graph]
    W = SimilarityOperator(build(features).terms, zero_diagonal=True)
    return W, k, templates if graph == "W_T" else slots


def run_sk_side(n: int, dim: int, seed: int, graph: str, side: str, tol: float) -> dict:
    """One side of the scikit-learn comparison in its own process, so that its peak RSS is its
    own: ``ours`` (``normalized_cut`` on the operator) or ``sklearn`` (the dense matrix of the
    same operator, then ``SpectralClustering(affinity="precomputed", eigen_solver="arpack",
    eigen_tol=tol, assign_labels="discretize")``). Both import the same modules first."""
    from sklearn.cluster import SpectralClustering

    W, k, truth = _sk_setup(n, dim, seed, graph)
    out: dict = {"graph": graph, "side": side, "n": int(W.shape[0])}
    out["before_rss_mib"] = vm_kib("VmRSS") / 1024
    out["process_peak_mib"] = vm_kib("VmHWM") / 1024  # so far: generation and operator
    # Reset the high-water mark to the current RSS (Linux ≥ 4.0), so that from here VmHWM is
    # the peak of this side's solve alone.
    Path("/proc/self/clear_refs").write_text("5")
    if side == "ours":
        t0 = time.perf_counter()
        labels, emb = normalized_cut(W, k, seed, tol=tol, return_embedding=True)  # + degrees
        out["solve_s"] = time.perf_counter() - t0
        out["build_dense_s"] = 0.0
        out["max_residual"] = float(emb.residuals.max())
    else:
        t0 = time.perf_counter()
        # The same affinity, dense: W applied to identity blocks (exact, |E|² floats).
        dense = np.empty(W.shape)
        for start in range(0, n, 2048):
            block = np.zeros((W.shape[0], min(2048, W.shape[0] - start)))
            block[np.arange(start, start + block.shape[1]), np.arange(block.shape[1])] = 1.0
            dense[:, start : start + block.shape[1]] = W @ block
        out["build_dense_s"] = time.perf_counter() - t0
        out["dense_hwm_mib"] = vm_kib("VmHWM") / 1024
        t0 = time.perf_counter()
        labels = SpectralClustering(
            n_clusters=k, affinity="precomputed", eigen_solver="arpack", eigen_tol=tol,
            assign_labels="discretize", random_state=seed,
        ).fit_predict(dense)
        out["solve_s"] = time.perf_counter() - t0
    out["peak_rss_mib"] = vm_kib("VmHWM") / 1024
    out["process_peak_mib"] = max(out["process_peak_mib"], out["peak_rss_mib"])
    out["ari"] = _ari(truth, labels)
    out["labels"] = np.asarray(labels).tolist()
    return out


def _subprocess(args: list[str], timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or ["failed"]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _fmt(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def _sklearn_comparison(args: argparse.Namespace, common: list[str]) -> None:
    """Prints the comparison: per graph, ``--sklearn-repeats`` repeats, each a pair of fresh
    processes (ours, then sklearn; the order alternates between repeats) whose times give that
    repeat's ratio."""
    n = int(args.sklearn_size)
    runs: dict[str, list[tuple[dict, dict]]] = {}
    for graph in _GRAPHS:
        runs[graph] = []
        for rep in range(args.sklearn_repeats):
            pair = {}
            for side in ("ours", "sklearn") if rep % 2 == 0 else ("sklearn", "ours"):
                r = _subprocess(
                    ["--worker", "sk-side", "--n", str(n), "--graph", graph, "--side", side,
                     "--sklearn-tol", repr(args.sklearn_tol), *common],
                    args.timeout,
                )
                if "error" in r:
                    print(f"sklearn comparison failed ({graph}, {side}): {r['error']}")
                    return
                pair[side] = r
            runs[graph].append((pair["ours"], pair["sklearn"]))
            print(f"done sklearn {graph} repeat {rep + 1}", file=sys.stderr)

    def spread(values: list[float], digits: int = 2, unit: str = "") -> str:
        v = np.asarray(values, dtype=float)
        if v.size == 1:
            return f"{v[0]:.{digits}f}{unit}"
        return f"{np.median(v):.{digits}f}{unit} ({v.min():.{digits}f}–{v.max():.{digits}f})"

    def same(values: list[float]) -> str:
        lo, hi = min(values), max(values)
        return f"{lo:.3f}" if hi - lo < 5e-4 else f"{lo:.3f}–{hi:.3f}"

    first = runs["W_T"][0][0]
    print(f"\n## Against scikit-learn at |E| = {first['n']:,}: {args.sklearn_repeats} repeats, "
          f"ARPACK tol = {args.sklearn_tol:g} on both sides\n")
    print("Times: median (min–max) over repeats; each ratio is taken within one repeat and then "
          "summarised. *sklearn fit* is `fit_predict` on the dense matrix; *dense build* "
          "(W applied to identity blocks) is not in it and is reported on its own; *ours* "
          "includes the degrees W·1.\n")
    print("| graph | ours s | dense build s | sklearn fit s | fit / ours | (build + fit) / ours "
          "| ARI ours | ARI sklearn | ARI ours vs sklearn | ours eig residual |")
    print("|" + "---|" * 10)
    for graph, pairs in runs.items():
        ours = [o["solve_s"] for o, _ in pairs]
        build = [s["build_dense_s"] for _, s in pairs]
        fit = [s["solve_s"] for _, s in pairs]
        ratio = [s["solve_s"] / o["solve_s"] for o, s in pairs]
        ratio_all = [(s["build_dense_s"] + s["solve_s"]) / o["solve_s"] for o, s in pairs]
        agree = [_ari(np.array(o["labels"]), np.array(s["labels"])) for o, s in pairs]
        print(
            f"| {graph} | {spread(ours)} | {spread(build)} | {spread(fit, 1)} "
            f"| {spread(ratio, 0, '×')} | {spread(ratio_all, 0, '×')} "
            f"| {same([o['ari'] for o, _ in pairs])} | {same([s['ari'] for _, s in pairs])} "
            f"| {same(agree)} "
            f"| {max(o['max_residual'] for o, _ in pairs):.1e} |"
        )
    print("\nResident memory of each side's own process (VmHWM), MiB, median (min–max) over "
          "repeats. *Before solve*: resident after generating the corpus and building the "
          "operator (the same on both sides); the high-water mark is then reset "
          "(/proc/self/clear_refs), and *+ solve* is the solve's peak minus that. For sklearn "
          "it includes the dense matrix, whose own share (*+ dense matrix*) is reported too. "
          "*Process peak* is the whole process's, generation included.\n")
    print("| graph | before solve | ours: + solve | sklearn: + dense matrix "
          "| sklearn: + dense matrix + fit | process peak: ours | process peak: sklearn |")
    print("|" + "---|" * 7)
    for graph, pairs in runs.items():
        print(
            f"| {graph} | {spread([o['before_rss_mib'] for o, _ in pairs], 0)} "
            f"| {spread([o['peak_rss_mib'] - o['before_rss_mib'] for o, _ in pairs], 0)} "
            f"| {spread([s['dense_hwm_mib'] - s['before_rss_mib'] for _, s in pairs], 0)} "
            f"| {spread([s['peak_rss_mib'] - s['before_rss_mib'] for _, s in pairs], 0)} "
            f"| {spread([o['process_peak_mib'] for o, _ in pairs], 0)} "
            f"| {spread([s['process_peak_mib'] for _, s in pairs], 0)} |"
        )

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5, 1e6])
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--iters", type=int, default=3, help="AMP iteration cap per size")
    parser.add_argument("--weight", type=float, default=0.3, help="λ of the scaled mode")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sklearn-size", type=float, default=1e4,
                        help="|E| of the scikit-learn comparison (dense |E|² float64 matrix)")
    parser.add_argument("--sklearn-repeats", type=int, default=5,
                        help="repeats of the scikit-learn comparison (each a pair of processes)")
    parser.add_argument("--sklearn-tol", type=float, default=1e-8,
                        help="ARPACK tolerance on both sides (eigen_tol / normalized_cut tol)")
    parser.add_argument("--no-sklearn", action="store_true")
    parser.add_argument("--no-sizes", action="store_true",
                        help="skip the scaling table (only the scikit-learn comparison)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per subprocess")
    parser.add_argument("--worker", choices=["size", "sk-side"], help=argparse.SUPPRESS)
    parser.add_argument("--n", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--graph", choices=list(_GRAPHS), help=argparse.SUPPRESS)
    parser.add_argument("--side", choices=["ours", "sklearn"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker == "size":
        print(json.dumps(run_size(int(args.n), args.dim, args.iters, args.weight, args.seed)))
        return
    if args.worker == "sk-side":
        print(json.dumps(run_sk_side(int(args.n), args.dim, args.seed, args.graph, args.side,
                                     args.sklearn_tol)))
        return

    common = ["--dim", str(args.dim), "--seed", str(args.seed)]
    print(f"# Solver scale (d = {args.dim}, AMP scaled λ = {args.weight}, "
          f"≤ {args.iters} iterations; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f})\n")
    results = []
    for size in [] if args.no_sizes else args.sizes:
        r = _subprocess(
            ["--worker", "size", "--n", str(int(size)), "--iters", str(args.iters),
             "--weight", str(args.weight), *common],
            args.timeout,
        )
        if "error" in r:
            print(f"|E| = {int(size)}: failed: {r['error']}", file=sys.stderr)
            continue
        results.append(r)
        print(f"done |E| = {r['n']}", file=sys.stderr)

    if results:
        _print_sizes(results)
    if not args.no_sklearn:
        _sklearn_comparison(args, common)


def _print_sizes(results: list[dict]) -> None:
    """The scaling table, its memory fit and the caveat on the AMP gain."""
    print("| \\|E\\| | generate s | build W s | matvec W_T / W_S s | -SC solve s "
          "| AMP s/iter | matvec/iter | iters | peak RSS MiB | RSS B/entity | max eig residual "
          "| ARI T: SC → AMP | ARI S: SC → AMP |")
    print("|" + "---|" * 13)
    for r in results:
        print(
            f"| {r['n']:,} | {_fmt(r['generate_s'], 1)} | {_fmt(r['build_s'], 1)} "
            f"| {_fmt(r['matvec_t_s'], 3)} / {_fmt(r['matvec_s_s'], 3)} | {_fmt(r['sc_s'], 1)} "
            f"| {_fmt(r['amp_s_per_iter'], 1)} | {r['amp_matvec_per_iter']:.0f} "
            f"| {r['amp_iters']}{'' if r['amp_converged'] else '+'} "
            f"| {r['peak_rss_mib']:.0f} | {r['peak_rss_mib'] * 2**20 / r['n']:.0f} "
            f"| {r['max_residual']:.1e} "
            f"| {_fmt(r['sc_ari_t'])} → {_fmt(r['amp_ari_t'])} "
            f"| {_fmt(r['sc_ari_s'])} → {_fmt(r['amp_ari_s'])} |"
        )
    if len(results) >= 2:
        n = np.array([r["n"] for r in results], dtype=float)
        rss = np.array([r["peak_rss_mib"] for r in results])
        b, a = np.polyfit(n, rss * 2**20, 1)
        loglog = np.polyfit(np.log(n), np.log(rss), 1)[0]
        marginal = np.diff(rss * 2**20) / np.diff(n)
        print(f"\nPeak RSS ≈ {a / 2**20:.0f} MiB + {b:.0f} B × |E| (least squares). Marginal "
              f"bytes per added entity between consecutive sizes: "
              f"{', '.join(f'{m:.0f}' for m in marginal)} (constant = linear growth); "
              f"log-log slope {loglog:.2f}, pulled below 1 by the fixed interpreter cost.")
        t = np.array([r["amp_s_per_iter"] for r in results])
        print(f"AMP time per iteration, log-log slope vs |E|: "
              f"{np.polyfit(np.log(n), np.log(t), 1)[0]:.2f}.")
    if any(not r["amp_converged"] for r in results):
        print("('+' after iters: the cap was reached before the stopping rule fired.)")
    print("\nThe AMP gain in this table is a property of the generator: in `planted_features` "
          "every sentence holds distinct slots of its document's template, so the sentence "
          "constraint holds exactly. It does not carry over to real text: on MUC-4 the "
          "constraint lowers F1 (README, Results: 'best + sentence constraint').")

if __name__ == "__main__":
    main()
