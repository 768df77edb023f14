"""A role term in W_H: head words that fill the same (predicate, position) pairs, measured.

Issue 48's lever (c) is the slot confusions inside the mapped templates. On the default's
seed 0 the attack template's perpetrators are split across four subject slots by what their
heads denote: person nouns (*terrorists*, *guerrillas*), group nouns (*army*, *ELN*), unknown
names (*FMLN*) and collective nouns (*group*, *forces*). W_H, the graph the semantic classes
are cut from, has only a type term and the head-vector cosine, both of which ask what a head
*is*. This benchmark adds a term that asks what a head *does* in the corpus, and solves the
default with it:

* **role vectors** (:func:`role_vectors`): each head word's counts over the (predicate,
  argument position) pairs it fills, weighted by positive PMI and reduced by a truncated SVD
  to ``dims`` dimensions; two heads are alike when they are the subjects (objects, ...) of
  the same predicates. ``--position-profile`` uses instead each head's smoothed share of
  subject, object, locative and other mentions, centred on the corpus mean
  (:func:`position_profiles`);
* **the term**: the shifted cosine of the two heads' role vectors, added to W_H with weight
  ``--weights`` (:func:`role_term_in_head_classes`), for every class cut of the solve.

The default runs first as the reference, on the same features. The per-seed rows go to
``--rows`` (the columns of a sweep's ``results.csv``), the record of
docs/experiments/head-roles.md::

    .venv/bin/python -m experiments.head_roles --project-dir .aesi --weights 0.5 1 \\
        --dims 30 100 300 --position-profile --seeds 0 1 2 3 4 5 6 7 8 9 \\
        --rows docs/experiments/head-roles.csv

Every weight runs with 100 dimensions, and weight 1 with every ``--dims``; the position
profile runs at weight 1.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model import similarity
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.parts import ModelParts
from aesi_lib.model.terms import CosineTerm
from experiments.encoder_variants import default_inputs
from experiments.muc4_inputs import seeded_run_parser
from experiments.solve_variants import score_settings

PROFILE_SMOOTHING = 0.5   # added to each position's count before the shares are taken


def role_vectors(head_ids: np.ndarray, predicate_ids: np.ndarray, positions: np.ndarray,
                 n_heads: int, dims: int, seed: int = 0) -> np.ndarray:
    """Each head word's fillers profile: PPMI of head × (predicate, position), reduced by SVD.

    Parameters
    ----------
    head_ids, predicate_ids, positions : ndarray of shape (E,), int
        Each mention's head, predicate (-1: none) and argument position.
    n_heads : int
        Size of the head vocabulary.
    dims : int
        Dimensions kept; fewer when the count matrix has fewer.
    seed : int
        Seeds the SVD's start vector. The columns are unique only up to sign, and up to a
        rotation among equal singular values; the products of the rows, which are all the
        cosine term sees, are the same on every run.

    Returns
    -------
    ndarray of shape (n_heads, k)
        ``U_k · sqrt(Σ_k)`` of the PPMI matrix; a head with no filler pair is a zero row.
    """
    head_ids = np.asarray(head_ids, dtype=np.int64)
    predicate_ids = np.asarray(predicate_ids, dtype=np.int64)
    positions = np.asarray(positions, dtype=np.int64)
    kept = (head_ids >= 0) & (predicate_ids >= 0)
    pairs = predicate_ids[kept] * len(ARGUMENT_POSITIONS) + positions[kept]
    distinct, pair_ids = np.unique(pairs, return_inverse=True)
    counts = sp.coo_matrix((np.ones(int(kept.sum())), (head_ids[kept], pair_ids.ravel())),
                           shape=(n_heads, distinct.size)).tocsr().tocoo()
    total = counts.data.sum()
    head_totals = np.asarray(counts.sum(axis=1)).ravel()
    pair_totals = np.asarray(counts.sum(axis=0)).ravel()
    pmi = np.log(counts.data * total / (head_totals[counts.row] * pair_totals[counts.col]))
    positive = pmi > 0
    ppmi = sp.csr_matrix((pmi[positive], (counts.row[positive], counts.col[positive])),
                         shape=counts.shape)
    k = min(dims, min(ppmi.shape) - 1)
    start = np.random.default_rng(seed).standard_normal(min(ppmi.shape))
    u, s, _ = svds(ppmi, k=k, v0=start)
    return u * np.sqrt(s)


def position_profiles(head_ids: np.ndarray, positions: np.ndarray, n_heads: int) -> np.ndarray:
    """Each head word's share of mentions in each argument position, smoothed by
    :data:`PROFILE_SMOOTHING` and centred on the mean over heads, shape (n_heads, 4)."""
    counts = np.zeros((n_heads, len(ARGUMENT_POSITIONS)))
    np.add.at(counts, (np.asarray(head_ids, dtype=np.int64),
                       np.asarray(positions, dtype=np.int64)), 1.0)
    shares = (counts + PROFILE_SMOOTHING) / (counts + PROFILE_SMOOTHING).sum(axis=1,
                                                                             keepdims=True)
    return shares - shares.mean(axis=0)


def role_term_in_head_classes(vectors: np.ndarray, weight: float) -> ModelParts:
    """The model's parts with W_H's terms and ``weight`` times the shifted cosine of the
    heads' rows of ``vectors`` (the square W_H of the class cuts only)."""
    library_terms = similarity.head_class_terms

    def with_role(features: EntityFeatures, options: similarity.SimilarityOptions,
                  rows: EntityFeatures | None = None) -> similarity.WeightedTerms:
        terms = library_terms(features, options, rows)
        if rows is not None:
            raise ValueError("the role term is measured on the training cut only")
        return [*terms, (weight, CosineTerm("role", [vectors],
                                            ids=np.asarray(features.head_ids)))]

    return ModelParts(class_terms=with_role)


def settings(weights: list[float], dims: list[int],
             position_profile: bool) -> list[tuple[str, float, int | None]]:
    """(name, weight, dims) of each setting: every weight at 100 dimensions, weight 1 at
    every other ``dims``, and the position profile (dims None) at weight 1."""
    chosen = [(w, 100) for w in weights] + [(1.0, d) for d in dims if d != 100]
    named = [(f"role weight {w:g}, {d} dims", w, d) for w, d in dict.fromkeys(chosen)]
    if position_profile:
        named.append(("position profile, weight 1", 1.0, None))
    return named


def main(argv: list[str] | None = None) -> int:
    parser = seeded_run_parser(__doc__.splitlines()[0])
    parser.add_argument("--weights", type=float, nargs="+", default=[1.0])
    parser.add_argument("--dims", type=int, nargs="+", default=[100])
    parser.add_argument("--position-profile", action="store_true")
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    args = parser.parse_args(argv)
    if any(w <= 0 for w in args.weights) or any(d < 1 for d in args.dims):
        parser.error("weights must be positive and dims at least 1")
    inputs = default_inputs("head_roles.py", args)
    features = inputs.features
    if features.predicate_ids is None or features.argument_positions is None:
        print("head_roles.py: the run's features have no predicate ids or argument positions",
              file=sys.stderr)
        return 2
    n_heads = features.pmi.shape[0]

    def block(name: str, weight: float, dims: int | None) -> ModelParts:
        if dims is None:
            vectors = position_profiles(features.head_ids, features.argument_positions,
                                        n_heads)
        else:
            vectors = role_vectors(features.head_ids, features.predicate_ids,
                                   features.argument_positions, n_heads, dims)
        print(f"{name}: vectors of shape {vectors.shape}", flush=True)
        return role_term_in_head_classes(vectors, weight)

    named = settings(args.weights, args.dims, args.position_profile)
    score_settings(inputs, [(name, functools.partial(block, name, weight, dims))
                            for name, weight, dims in named], args.seeds, args.rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
