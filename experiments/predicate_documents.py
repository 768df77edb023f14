"""Predicates that share documents in W_T: a scenario term for issue 48's lever (a), measured.

Of the 512 gold entities of the selection split (seed 0, test-mapped lenient), 160 are found
only in templates the mapping does not use: above all the subjects of *claim*, *report* and
*arrest* in the messages about an attack. Under the default's predicate tying every mention
of a predicate shares its template, so those mentions follow what W_T says of their
predicate. W_T's PMI term is over the head words that share a document (Eq. 1); which
*predicates* share a document, the evidence of Chambers and Jurafsky's narrative schemas,
is not in it. This benchmark adds that term and solves the default with it:

* **predicate PMI** (:func:`predicate_document_pmi`): the document-level PMI of two predicate
  lemmas, ``ln(N · df(p, q) / (df(p) · df(q)))`` over the N documents, positive part, by the
  rule ``aesi_lib/store/sql/head_pmi.sql`` applies to head words (a pair seen in one document
  counts, the diagonal included);
* **the term**: ``PPMI(p_i, p_j)``, added to W_T with weight ``--weights`` for every template
  cut of the solve (:func:`predicate_pmi_in_template_graph`).

The default runs first as the reference, on the same features. The per-seed rows go to
``--rows`` (the columns of a sweep's ``results.csv``), the record of
docs/experiments/predicate-documents.md::

    .venv/bin/python -m experiments.predicate_documents --project-dir .aesi \\
        --weights 0.05 0.1 0.25 0.5 1 --seeds 0 1 2 3 4 5 6 7 8 9 \\
        --rows docs/experiments/predicate-documents.csv
"""

from __future__ import annotations

import functools
import sys

import numpy as np
import scipy.sparse as sp

from aesi_lib.model import similarity
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.parts import ModelParts
from aesi_lib.model.terms import GroupTerm
from experiments.encoder_variants import default_inputs
from experiments.muc4_inputs import seeded_run_parser
from experiments.solve_variants import score_settings


def predicate_document_pmi(predicate_ids: np.ndarray, doc_ids: np.ndarray,
                           n_predicates: int) -> sp.csr_matrix:
    """The positive document-level PMI of every two predicates that share a document.

    Parameters
    ----------
    predicate_ids, doc_ids : ndarray of shape (E,), int
        Each mention's predicate (-1: none) and document.
    n_predicates : int
        Size of the predicate vocabulary.

    Returns
    -------
    csr_matrix of shape (n_predicates, n_predicates)
        ``max(0, ln(N · df(p, q) / (df(p) · df(q))))``, N the documents with a predicate,
        ``df`` the documents that hold the predicate (both predicates); symmetric, the
        diagonal ``ln(N / df(p))``.
    """
    predicate_ids = np.asarray(predicate_ids, dtype=np.int64)
    doc_ids = np.asarray(doc_ids, dtype=np.int64)
    kept = predicate_ids >= 0
    _, docs = np.unique(doc_ids[kept], return_inverse=True)
    n_docs = int(docs.max()) + 1 if docs.size else 0
    holds = sp.csr_matrix((np.ones(int(kept.sum())), (docs.ravel(), predicate_ids[kept])),
                          shape=(n_docs, n_predicates))
    holds.sum_duplicates()
    holds.data[:] = 1.0                       # a document counts once per predicate
    shared = (holds.T @ holds).tocoo()
    df = np.asarray(holds.sum(axis=0)).ravel()
    pmi = np.log(shared.data * n_docs / (df[shared.row] * df[shared.col]))
    positive = pmi > 0
    return sp.csr_matrix((pmi[positive], (shared.row[positive], shared.col[positive])),
                         shape=(n_predicates, n_predicates))


def predicate_pmi_in_template_graph(ppmi: sp.csr_matrix, weight: float) -> ModelParts:
    """The model's parts with W_T's terms and ``weight`` times ``ppmi[p_i, p_j]`` (the square
    W_T of the solve only; the extraction's rectangular blocks are not measured here)."""
    library_terms = similarity.template_terms

    def with_predicates(features: EntityFeatures, options: similarity.SimilarityOptions,
                        rows: EntityFeatures | None = None) -> similarity.WeightedTerms:
        if rows is not None:
            raise ValueError("the predicate term is measured on the training cut only")
        terms = library_terms(features, options, rows)
        predicates = np.asarray(features.predicate_ids)
        return [*terms, (weight, GroupTerm("predicate_pmi", predicates, ppmi,
                                           ppmi.shape[0]))]

    return ModelParts(template_terms=with_predicates)


def main(argv: list[str] | None = None) -> int:
    parser = seeded_run_parser(__doc__.splitlines()[0])
    parser.add_argument("--weights", type=float, nargs="+", default=[0.5])
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    args = parser.parse_args(argv)
    if any(w <= 0 for w in args.weights):
        parser.error("weights must be positive")
    inputs = default_inputs("predicate_documents.py", args)
    features = inputs.features
    if features.predicate_ids is None:
        print("predicate_documents.py: the run's features have no predicate ids",
              file=sys.stderr)
        return 2
    if (features.predicate_ids < 0).any():
        print("predicate_documents.py: a mention has no predicate id", file=sys.stderr)
        return 2
    n_predicates = int(features.predicate_ids.max()) + 1
    ppmi = predicate_document_pmi(features.predicate_ids, features.doc_ids, n_predicates)
    print(f"predicate PMI: {n_predicates} predicates, {ppmi.nnz} positive pairs", flush=True)
    score_settings(inputs, [(f"predicate PMI, weight {weight:g}",
                             functools.partial(predicate_pmi_in_template_graph, ppmi, weight))
                            for weight in args.weights], args.seeds, args.rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
