"""The similarity graphs of Sha et al. 2016, W_T (Eq. 1) and W_S (Eq. 2), and W_H, matrix-free.

W_T and W_S are the template and slot level connectivity of [1]; W_H, the graph of the semantic
classes of factored slots, is aesi's.

Each graph is one function that lists its weighted terms (:func:`template_terms`,
:func:`slot_terms`, :func:`head_class_terms`); everything else reuses them: the operators the
solvers cut (:func:`template_similarity`, ...), the rectangular blocks that place new mentions
against a finished run (``aesi_lib.model.extract``), and the tests' dense references. The terms
themselves are thin-factor products (``aesi_lib.model.terms``), so no |E|×|E| matrix is built.

Conventions, the same in every configuration:

* cosines enter shifted, ``(1 + cos) / 2`` ∈ [0, 1] (``aesi_lib.model.terms.CosineTerm``):
  raw cosines would give negative degrees, where the normalized cut is undefined;
* the self-similarity ``W(i, i)`` is kept as the formulas give it (1 for a cosine of a nonzero
  vector, shifted; both deltas 1 when the entity has a type; ``PMI(h_i, h_i)`` as stored), and
  the degrees ``D = W·1`` include it;
* negative PMI is clipped to 0 (positive PMI, :func:`positive_pmi`);
* the terms are added with their weights, as in the paper.

References
----------
.. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
   Induction", NAACL 2016, Eqs. 1-2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.salience import predicate_salience, salience_products
from aesi_lib.model.terms import (
    CosineTerm,
    GroupTerm,
    SimilarityOperator,
    Term,
)
from aesi_lib.model.type_sets import cross_type_set_groups, type_set_groups

WeightedTerms = list[tuple[float, Term]]


@dataclass(frozen=True)
class SimilarityOptions:
    """Weights of the terms of the similarity graphs (Eqs. 1-2).

    Parameters
    ----------
    pmi_weight, cos_hp_weight : float
        Weights of ``PMI(head_i, head_j)`` and ``cos(vec_hp(i), vec_hp(j))`` in W_T (Eq. 1).
    cos_p_weight, dep_weight, type_weight : float
        Weights of ``cos(vec_p(i), vec_p(j))``, ``δ(dep_i = dep_j)`` and
        ``δ(types_i ∩ types_j ≠ ∅)`` in W_S (Eq. 2). The paper uses 1 for all.
    cos_h_weight : float
        Weight of the head-vector cosine in W_H (:func:`head_class_similarity`, not in the
        paper); ``type_weight`` weighs its type term.
    context_weight : float
        Weight of the cosine of the mentions' sentence vectors (``features.context``) in W_T.
        Not in the paper; 0 leaves the term out.
    salience_weight : float
        Weight of ``s_p(i) · s_p(j)`` in W_T, the product of the salience of the two mentions'
        predicates (``aesi_lib.model.salience``: how much more the corpus uses a predicate
        than WordNet's sense-tagged corpora do), which joins the corpus's salient predicates
        (*murder*, *kidnap*, *wound*, *bomb*, ...) in one template. Not in the paper; 0 leaves the
        term out. Needs ``EntityFeatures.predicate_ids`` and ``predicate_tagged_counts``
        (without WordNet every salience is 0). Its smoothing and least count are
        ``aesi_lib.model.salience.SALIENCE_SMOOTHING`` and ``SALIENCE_MIN_COUNT``.
    """

    pmi_weight: float = 1.0
    cos_hp_weight: float = 1.0
    cos_p_weight: float = 1.0
    dep_weight: float = 1.0
    type_weight: float = 1.0
    cos_h_weight: float = 1.0
    context_weight: float = 0.0
    salience_weight: float = 0.0


def positive_pmi(pmi: sp.spmatrix) -> sp.csr_matrix:
    """``max(PMI, 0)`` (PPMI), the PMI of W_T: a pair of heads seen together less often than
    by chance is no evidence against a shared template, only none for it."""
    P = sp.csr_matrix(pmi, dtype=np.float64, copy=True)
    P.data = np.maximum(P.data, 0.0)
    P.eliminate_zeros()
    return P


def _type_term(features: EntityFeatures, rows: EntityFeatures | None) -> GroupTerm:
    """δ(types_i ∩ types_j ≠ ∅), square or with the rows of ``rows``."""
    if rows is None:
        set_ids, S = type_set_groups(features.types)
        return GroupTerm("type", set_ids, S, S.shape[0])
    row_ids, set_ids, S = cross_type_set_groups(rows.types, features.types)
    return GroupTerm("type", set_ids, S, S.shape[1], row_group_ids=row_ids)


def _context_term(features: EntityFeatures, rows: EntityFeatures | None) -> CosineTerm:
    """cos(sentence_i, sentence_j) of the mentions' sentence vectors. New mentions without
    such vectors (``rows``) have zero vectors: cosine 0 with everything."""
    vectors = features.context_vectors
    if vectors is None:
        raise ValueError("a context term needs EntityFeatures.context_vectors: set "
                         "features.context")
    # Sentence vectors may be stored once per sentence (EntityFeatures.context_rows).
    row_blocks = row_ids = None
    if rows is not None:
        row_vectors = rows.context_vectors
        if row_vectors is None:
            row_vectors = np.zeros((rows.n_entities, vectors.shape[1]))
        else:
            row_ids = rows.context_rows
        row_blocks = [row_vectors]
    return CosineTerm("context", [vectors], row_blocks=row_blocks, ids=features.context_rows,
                      row_ids=row_ids)


def template_terms(
    features: EntityFeatures, options: SimilarityOptions, rows: EntityFeatures | None = None
) -> WeightedTerms:
    """The weighted terms of W_T(i, j) = PMI(head_i, head_j) + cos_hp(i, j) (Eq. 1), and
    ``context_weight · cos(sentence_i, sentence_j)`` and ``salience_weight · s_p(i) s_p(j)``
    (:func:`aesi_lib.model.salience.predicate_salience`) when those weights are not 0 (not in
    the paper).

    ``vec_hp`` is the concatenation head vector ⊕ predicate vector; the cosine is taken on the
    concatenation. PMI is ``H P Hᵀ`` with H the |E|×|V| head indicator.

    Parameters
    ----------
    features : EntityFeatures
        The E mentions of the columns (and rows).
    options : SimilarityOptions
    rows : EntityFeatures, optional
        N other mentions as rows, in the id spaces of ``features`` (head ids index its PMI,
        -1 for a head it lacks; see ``aesi_lib.model.extract.align_features``); None for the
        square E×E graph.

    Returns
    -------
    list of (weight, term)

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 1.
    """
    row_heads = None if rows is None else rows.head_ids
    row_vectors = None if rows is None else [rows.head_vectors, rows.predicate_vectors]
    terms: WeightedTerms = [
        (options.pmi_weight,
         GroupTerm("pmi", features.head_ids, positive_pmi(features.pmi),
                   features.pmi.shape[0], row_group_ids=row_heads)),
        (options.cos_hp_weight,
         CosineTerm("cos_hp", [features.head_vectors, features.predicate_vectors],
                    row_blocks=row_vectors)),
    ]
    if options.context_weight:
        terms.append((options.context_weight, _context_term(features, rows)))
    if options.salience_weight:
        terms.append((options.salience_weight, _salience_term(features, options, rows)))
    return terms


def _salience_term(features: EntityFeatures, options: SimilarityOptions,
                   rows: EntityFeatures | None) -> GroupTerm:
    """``s_p(i) · s_p(j)`` over the predicates of ``features`` (the salience of the columns'
    corpus, :func:`aesi_lib.model.salience.predicate_salience`); rows of ``rows`` whose
    predicate that corpus lacks (id -1) are zero."""
    if features.predicate_ids is None or (rows is not None and rows.predicate_ids is None):
        raise ValueError("salience_weight needs EntityFeatures.predicate_ids")
    salience = predicate_salience(features.predicate_ids, features.predicate_tagged_counts)
    return GroupTerm("salience", features.predicate_ids, salience_products(salience),
                     salience.size, row_group_ids=None if rows is None else rows.predicate_ids)


def slot_terms(
    features: EntityFeatures, options: SimilarityOptions, rows: EntityFeatures | None = None
) -> WeightedTerms:
    """The weighted terms of W_S(i, j) = cos_p(i, j) + δ(dep_i = dep_j)
    + δ(types_i ∩ types_j ≠ ∅) (Eq. 2).

    Parameters are as in :func:`template_terms` (``rows``: dependency ids in the label space
    of ``features``, -1 for a label it lacks; types over the same type columns).

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 2.
    """
    dep = np.asarray(features.dep_ids, dtype=np.int64)
    row_vectors = None if rows is None else [rows.predicate_vectors]
    return [
        (options.cos_p_weight,
         CosineTerm("cos_p", [features.predicate_vectors], row_blocks=row_vectors)),
        (options.dep_weight,
         GroupTerm("dep", dep, None, int(dep.max()) + 1 if dep.size else 0,
                   row_group_ids=None if rows is None else rows.dep_ids)),
        (options.type_weight, _type_term(features, rows)),
    ]


def head_class_terms(
    features: EntityFeatures, options: SimilarityOptions, rows: EntityFeatures | None = None
) -> WeightedTerms:
    """The weighted terms of W_H(i, j) = δ(types_i ∩ types_j ≠ ∅) + cos_h(i, j).

    Not in the paper: the graph of the semantic classes of factored slots
    (``aesi_lib.model.factored_slots``). It keeps the type term of W_S (Eq. 2) and replaces the
    predicate vector by the head word's own vector, so that it groups heads by what they denote
    (people, organisations, devices, buildings) whatever their predicate and dependency.
    ``type_weight`` and ``cos_h_weight`` weigh the two terms. Parameters are as in
    :func:`template_terms`.
    """
    row_vectors = None if rows is None else [rows.head_vectors]
    return [
        (options.type_weight, _type_term(features, rows)),
        (options.cos_h_weight,
         CosineTerm("cos_h", [features.head_vectors], row_blocks=row_vectors)),
    ]


TermsOf = Callable[[EntityFeatures, SimilarityOptions, "EntityFeatures | None"], WeightedTerms]


def similarity_operator(
    terms_of: TermsOf,
    features: EntityFeatures,
    options: SimilarityOptions | None = None,
    rows: EntityFeatures | None = None,
) -> SimilarityOperator:
    """The operator ``Σ_t w_t · term_t`` of a graph's terms (``terms_of``: one of
    :func:`template_terms`, :func:`slot_terms`, :func:`head_class_terms`).

    With ``rows``, the rectangular N×E block of the same graph between other mentions and
    those of ``features``, weighted exactly as the square graph.
    """
    options = options or SimilarityOptions()
    return SimilarityOperator(terms_of(features, options, rows))


def template_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None,
    rows: EntityFeatures | None = None, terms: TermsOf = template_terms,
) -> SimilarityOperator:
    """W_T (Eq. 1, :func:`template_terms`) as a matrix-free operator of shape (E, E), or
    (N, E) with ``rows``; ``terms`` lists its terms instead where an experiment passes its
    own (``aesi_lib.model.parts``).

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 1.
    """
    return similarity_operator(terms, features, options, rows)


def with_context_weight(W_T: SimilarityOperator, options: SimilarityOptions,
                        context_weight: float) -> SimilarityOperator:
    """W_T as :func:`template_similarity` builds it under ``options``, but with the sentence
    vectors' term weighed ``context_weight`` instead of ``options.context_weight``.

    The terms of ``W_T`` are shared, not built again (building W_T's terms normalises every
    mention's vectors: about 0.5 s on MUC-4, which the consensus members would pay each).

    Parameters
    ----------
    W_T : SimilarityOperator of shape (E, E)
        ``template_similarity(features, options)``, with ``options.context_weight > 0``.
    options : SimilarityOptions
    context_weight : float

    Returns
    -------
    SimilarityOperator of shape (E, E)
    """
    if options.context_weight <= 0:
        raise ValueError("W_T has no sentence-vector term to reweigh (context_weight is 0)")
    weighted = []
    for w, term in W_T.terms:
        if getattr(term, "name", None) == "context":
            w = float(context_weight)
        weighted.append((w, term))
    return SimilarityOperator(weighted, zero_diagonal=W_T.zero_diagonal)


def slot_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None,
    rows: EntityFeatures | None = None,
) -> SimilarityOperator:
    """W_S (Eq. 2, :func:`slot_terms`) as a matrix-free operator of shape (E, E), or (N, E)
    with ``rows``.

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event Schema
       Induction", NAACL 2016, Eq. 2.
    """
    return similarity_operator(slot_terms, features, options, rows)


def head_class_similarity(
    features: EntityFeatures, options: SimilarityOptions | None = None,
    rows: EntityFeatures | None = None, terms: TermsOf = head_class_terms,
) -> SimilarityOperator:
    """W_H (:func:`head_class_terms`) as a matrix-free operator of shape (E, E), or (N, E)
    with ``rows``; ``terms`` lists its terms instead where an experiment passes its own
    (``aesi_lib.model.parts``)."""
    return similarity_operator(terms, features, options, rows)
