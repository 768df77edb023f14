"""Does a seed give the same labels on another machine? The default solve, compared across
machines and under rounding-level noise; and the encoder's vectors, computed on the other
machine and solved here.

The first and last steps on the machine of a finished MUC-4 run::

    .venv/bin/python benchmarks/reproducibility.py pack --project-dir .aesi --out repro
    # copy repro/ and the repository to the other machine (numpy and scipy are enough there:
    # the solve imports neither Prefect nor DuckDB), then on both machines:
    .venv/bin/python benchmarks/reproducibility.py solve repro --seeds 0 1 2 3 4 5 6 7 8 9
    .venv/bin/python benchmarks/reproducibility.py compare repro/labels-A.npz repro/labels-B.npz
    # the encoder on the other machine (aesi's ``context`` extra installed there):
    .venv/bin/python benchmarks/reproducibility.py encode repro --name B
    # back here: the other machine's vectors in place of these, solved here
    .venv/bin/python benchmarks/reproducibility.py solve repro --vectors repro/vectors-B.npy \
        --name B-vectors

``pack`` writes the project's newest feature file (the last run's: after ``./scripts/run.sh``,
the MUC-4 default's) compactly (unique rows and
their indices: about 37 MiB for MUC-4), so that both machines solve bit-identical features;
with context vectors it also writes the texts the encoder pass sent to the encoder, call by
call (``sentences.json``: the sentences of the features' rows, in their order, from the
project's newest entity table and its store);
``solve`` writes ``labels-<name>.npz`` (template and slot labels, eigenvalues; ``--name``,
default host name and BLAS threads); with ``--vectors`` it first prints how far those
sentence vectors lie from the packed ones, then solves with them in their place;
``encode`` embeds ``sentences.json`` in the same calls as the pass (all-MiniLM-L6-v2,
``--threads`` default the usable cores, ``--device cuda`` on a GPU) into
``vectors-<name>.npy``;
``compare`` prints, per seed, whether the labels are identical and their adjusted Rand index.

``noise`` solves the seeds twice on one machine, the second time with the context vectors
multiplied by (1 + 1e-7·N(0, 1)) (about what another CPU or BLAS does to an encoder's output),
and prints whether the labels stay the same.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import socket
import sys
import time
from collections.abc import Sequence
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
    if f.context_rows is not None:
        arrays["context_rows"] = f.context_rows
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "features.npz", **arrays)
    print(f"{path}: |E| = {f.n_entities} -> {out / 'features.npz'} "
          f"({(out / 'features.npz').stat().st_size / 2**20:.1f} MiB)")
    if f.context_rows is not None:
        calls = encoder_calls(project_dir, f.context_rows)
        (out / "sentences.json").write_text(json.dumps({"calls": calls}))
        print(f"{sum(map(len, calls))} sentences in {len(calls)} encoder calls -> "
              f"{out / 'sentences.json'}")


class _RecordingEncoder:
    """Stands in for the sentence encoder in the pass and records what it is sent."""

    dimension = 384

    def __init__(self) -> None:
        from aesi_lib.lexicon.encoder import EncoderRecipe

        self.recipe = EncoderRecipe(encoder="record", model="record")
        self.calls: list[list[str]] = []

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        self.calls.append(list(sentences))
        return np.zeros((len(sentences), self.dimension), np.float32)


def encoder_calls(project_dir: Path, context_rows: np.ndarray) -> list[list[str]]:
    """The texts the encoder pass (``mention_context_vectors``) sends to the encoder, call by
    call, for the project's newest entity table: concatenated, the sentences of the feature
    file's context rows in their order."""
    import tempfile

    import pandas as pd

    from aesi_lib.lexicon.mention_context import mention_context_vectors
    from aesi_lib.store.database import Store

    table_path = max(glob.glob(str(project_dir / "tables" / "entities-*.parquet")),
                     key=os.path.getmtime)
    table = pd.read_parquet(table_path)
    doc_ids = sorted(table["doc_id"].unique())
    with Store(project_dir / "aesi.duckdb", read_only=True) as store:
        sentences = store.sentence_texts(doc_ids)
    recorder = _RecordingEncoder()
    with tempfile.TemporaryDirectory() as cache:
        context = mention_context_vectors(table, sentences, recorder, cache)
    if not np.array_equal(context.sentence_rows, context_rows):
        raise SystemExit(f"{table_path} is not the entity table of the newest feature file")
    return recorder.calls


def encode(folder: Path, threads: int | None, device: str = "cpu") -> np.ndarray:
    """The sentence vectors of ``sentences.json``, one encoder call per recorded call."""
    from aesi_lib.lexicon.encoder import TransformerEncoder

    calls = json.loads((folder / "sentences.json").read_text())["calls"]
    encoder = TransformerEncoder(threads=threads, device=device)
    encoder.encode(["The model is loaded and warm before the clock starts."])
    start = time.perf_counter()
    vectors = np.concatenate([encoder.encode(texts) for texts in calls])
    seconds = time.perf_counter() - start
    print(f"{len(vectors)} sentences on {device} ({encoder.threads} threads): {seconds:.1f} s, "
          f"{len(vectors) / seconds:.0f} sentences/s")
    return vectors


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


def with_sentence_vectors(features: EntityFeatures, folder: Path, vectors_path: Path
                          ) -> EntityFeatures:
    """``features`` with the sentence vectors of ``vectors_path`` (``encode``'s output) in
    place of the packed ones; prints how far apart the two are."""
    rows = np.load(folder / "features.npz")["context_rows"]
    vectors = np.load(vectors_path)
    here = np.empty_like(vectors)
    here[rows] = features.context_vectors
    gap = np.abs(vectors - here).max(axis=1)
    cosine = (vectors * here).sum(axis=1) / (np.linalg.norm(vectors, axis=1)
                                             * np.linalg.norm(here, axis=1))
    print(f"{vectors_path}: {len(vectors)} sentence vectors, {int((gap == 0).sum())} "
          f"identical; largest difference {gap.max():.2g} (median of the rows' largest "
          f"{np.median(gap):.2g}); smallest cosine {cosine.min():.9f}")
    return dataclasses.replace(features, context_vectors=vectors[rows])


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
    s.add_argument("--vectors", type=Path,
                   help="sentence vectors from `encode` (another machine's) in place of the "
                   "packed ones")
    e = sub.add_parser("encode")
    e.add_argument("folder", type=Path)
    e.add_argument("--threads", type=int, help="torch threads (default: the usable cores)")
    # encoder.ENCODER_DEVICES, written out: importing aesi_lib.lexicon needs gensim, which a
    # machine that only solves may lack.
    e.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="where the encoder runs (features.encoder_device)")
    e.add_argument("--name", help="names the vectors file (default: host name and threads)")
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
        features = unpack(args.folder)
        if args.vectors is not None:
            features = with_sentence_vectors(features, args.folder, args.vectors)
        labels = solve_seeds(features, args.seeds)
        name = args.name or f"{socket.gethostname()}-{threads()}"
        path = args.folder / f"labels-{name}.npz"
        np.savez_compressed(path, **labels)
        print(f"wrote {path}")
    elif args.command == "encode":
        from aesi_lib.lexicon.encoder import usable_cores

        n_threads = args.threads or usable_cores()
        name = args.name or f"{socket.gethostname()}-{args.device}-{n_threads}"
        path = args.folder / f"vectors-{name}.npy"
        np.save(path, encode(args.folder, n_threads, args.device))
        print(f"wrote {path}")
    elif args.command == "compare":
        print_rows(compare(dict(np.load(args.a)), dict(np.load(args.b))))
    else:
        features = unpack(args.folder)
        rng = np.random.default_rng(0)
        noisy = features.context_vectors * (
            1 + 1e-7 * rng.standard_normal(features.context_vectors.shape))
        perturbed = dataclasses.replace(features, context_vectors=noisy.astype(np.float32))
        print_rows(compare(solve_seeds(features, args.seeds),
                           solve_seeds(perturbed, args.seeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
