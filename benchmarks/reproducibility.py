"""Does a seed give the same labels on another machine? The default solve, compared across
machines and under rounding-level noise.

Three steps, the first and last on the machine of a finished MUC-4 run::

    .venv/bin/python benchmarks/reproducibility.py pack --project-dir .aesi --out repro
    # copy repro/ and the repository to the other machine (numpy and scipy are enough there:
    # the solve imports neither Prefect nor DuckDB), then on both machines:
    .venv/bin/python benchmarks/reproducibility.py solve repro --seeds 0 1 2 3 4 5 6 7 8 9
    .venv/bin/python benchmarks/reproducibility.py compare repro/labels-A.npz repro/labels-B.npz

``pack`` writes the project's newest feature file (the last run's: after ``./scripts/run.sh``,
the MUC-4 default's) compactly (unique rows and
their indices: about 37 MiB for MUC-4), so that both machines solve bit-identical features;
``solve`` writes ``labels-<name>.npz`` (template and slot labels, eigenvalues; ``--name``,
default host name and BLAS threads);
``compare`` prints, per seed, whether the labels are identical and their adjusted Rand index.

``noise`` solves the seeds twice on one machine, the second time with the context vectors
multiplied by (1 + 1e-7·N(0, 1)) (about what another CPU or BLAS does to an encoder's output),
and prints whether the labels stay the same.
"""

from __future__ import annotations

import argparse
import glob
import os
import socket
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aesi_lib.model.config import ModelConfig  # noqa: E402
from aesi_lib.model.features import EntityFeatures  # noqa: E402
from aesi_lib.model.induction import induce  # noqa: E402
from aesi_lib.model.similarity import SimilarityOptions  # noqa: E402


def default_model(seed: int) -> ModelConfig:
    """The default preset's model (aesi_lib/run/presets.py), built without the run config
    (which needs pydantic) so that a bare numpy/scipy machine can run it."""
    from aesi_lib.run.presets import PRESETS

    model = dict(PRESETS["default"]["model"])
    similarity = SimilarityOptions(**model.pop("similarity"))
    return ModelConfig(**model, similarity=similarity, seed=seed)


def pack(project_dir: Path, out: Path) -> None:
    from aesi_lib.model.feature_files import load_features

    # The newest file is the last run's (a project keeps the features of earlier options too).
    path = max(glob.glob(str(project_dir / "features" / "features-*.npz")),
               key=os.path.getmtime)
    f, _ = load_features(path)

    def unique(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows, index = np.unique(a, axis=0, return_inverse=True)
        return rows, index.reshape(-1).astype(np.int32)

    arrays = {}
    per_mention = {"context_vectors": f.mention_context_vectors(),
                   "head_vectors": f.head_vectors, "predicate_vectors": f.predicate_vectors}
    for name, values in per_mention.items():
        arrays[name], arrays[f"{name}_index"] = unique(values)
    for name in ("head_ids", "dep_ids", "sentence_ids", "doc_ids", "predicate_ids",
                 "argument_positions"):
        arrays[name] = getattr(f, name)
    for name in ("types", "pmi"):
        m = getattr(f, name).tocsr()
        arrays.update({f"{name}_data": m.data, f"{name}_indices": m.indices,
                       f"{name}_indptr": m.indptr, f"{name}_shape": np.asarray(m.shape)})
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "features.npz", **arrays)
    print(f"{path}: |E| = {f.n_entities} -> {out / 'features.npz'} "
          f"({(out / 'features.npz').stat().st_size / 2**20:.1f} MiB)")


def unpack(folder: Path) -> EntityFeatures:
    z = np.load(folder / "features.npz")

    def csr(name: str) -> sp.csr_matrix:
        return sp.csr_matrix((z[f"{name}_data"], z[f"{name}_indices"], z[f"{name}_indptr"]),
                             shape=tuple(z[f"{name}_shape"]))

    rows = {name: z[name][z[f"{name}_index"]]
            for name in ("context_vectors", "head_vectors", "predicate_vectors")}
    return EntityFeatures(
        head_ids=z["head_ids"], dep_ids=z["dep_ids"], sentence_ids=z["sentence_ids"],
        doc_ids=z["doc_ids"], predicate_ids=z["predicate_ids"],
        argument_positions=z["argument_positions"], types=csr("types"), pmi=csr("pmi"), **rows)


def solve_seeds(features: EntityFeatures, seeds: list[int]) -> dict[str, np.ndarray]:
    out = {}
    for seed in seeds:
        result = induce(features, default_model(seed))
        out[f"template{seed}"] = result.template_labels
        out[f"slot{seed}"] = result.slot_labels
        # The template cut's eigenvalues, and each consensus member's (the consensus cut's own
        # are fixed by the members' partitions).
        step = result.history[0]["template_step"]
        out[f"eigenvalues{seed}"] = np.concatenate(
            [step["eigenvalues"]] + [m["eigenvalues"] for m in step.get("members", [])])
        print(f"seed {seed}: solved", flush=True)
    return out


def threads() -> str:
    return os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "all"


def compare(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> list[dict[str, object]]:
    from sklearn.metrics import adjusted_rand_score

    rows = []
    seeds = sorted(int(k.removeprefix("template")) for k in a if k.startswith("template"))
    for s in seeds:
        rows.append({
            "seed": s,
            "templates identical": bool(np.array_equal(a[f"template{s}"], b[f"template{s}"])),
            "template ARI": round(adjusted_rand_score(a[f"template{s}"], b[f"template{s}"]), 4),
            "slots identical": bool(np.array_equal(a[f"slot{s}"], b[f"slot{s}"])),
            "max eigenvalue difference": float(np.abs(a[f"eigenvalues{s}"]
                                                      - b[f"eigenvalues{s}"]).max()),
        })
    return rows


def print_rows(rows: list[dict[str, object]]) -> None:
    from aesi_lib.markdown import markdown_table

    print(markdown_table(list(rows[0]), [list(r.values()) for r in rows]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--project-dir", type=Path, default=REPO / ".aesi")
    p.add_argument("--out", type=Path, default=Path("repro"))
    s = sub.add_parser("solve")
    s.add_argument("folder", type=Path)
    s.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    s.add_argument("--name", help="names the labels file (default: host name and BLAS threads;"
                   " give one where two machines share a host name)")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    n = sub.add_parser("noise")
    n.add_argument("folder", type=Path)
    n.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    args = parser.parse_args(argv)
    if args.command == "pack":
        pack(args.project_dir, args.out)
    elif args.command == "solve":
        labels = solve_seeds(unpack(args.folder), args.seeds)
        name = args.name or f"{socket.gethostname()}-{threads()}"
        path = args.folder / f"labels-{name}.npz"
        np.savez_compressed(path, **labels)
        print(f"wrote {path}")
    elif args.command == "compare":
        print_rows(compare(dict(np.load(args.a)), dict(np.load(args.b))))
    else:
        features = unpack(args.folder)
        rng = np.random.default_rng(0)
        noisy = features.context_vectors * (
            1 + 1e-7 * rng.standard_normal(features.context_vectors.shape))
        import dataclasses

        perturbed = dataclasses.replace(features, context_vectors=noisy.astype(np.float32))
        print_rows(compare(solve_seeds(features, args.seeds),
                           solve_seeds(perturbed, args.seeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
