"""Dense |E|×|E| references of the similarity graphs, for tests on small inputs only.

Each term is computed entry by entry from its definition (no thin factors); which terms a graph
has and their weights come from the graph's one definition in ``aesi_lib.model.similarity``
(:func:`template_terms`, :func:`slot_terms`, :func:`head_class_terms`), so a test compares the
factored operator against the formula, not against a second copy of it.
"""

from __future__ import annotations

import numpy as np

from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.salience import SALIENCE_MIN_COUNT, SALIENCE_SMOOTHING
from aesi_lib.model.similarity import (
    SimilarityOptions,
    TermsOf,
    head_class_terms,
    slot_terms,
    template_terms,
)


def raw_cosine(vectors: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """cos(v_i, v_j) from the definition; zero vectors give 0."""
    Y = np.asarray(vectors, dtype=np.float64)
    X = Y if rows is None else np.asarray(rows, dtype=np.float64)
    denom = np.outer(np.linalg.norm(X, axis=1), np.linalg.norm(Y, axis=1))
    dots = X @ Y.T
    return np.divide(dots, denom, out=np.zeros_like(dots), where=denom > 0)


def dense_cosine(vectors: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """The graphs' cosine, shifted to (1 + cos) / 2."""
    return (1.0 + raw_cosine(vectors, rows)) / 2.0


def _shares_type(row_types, col_types) -> np.ndarray:
    A = (row_types.toarray() != 0).astype(np.int64)
    B = (col_types.toarray() != 0).astype(np.int64)
    return ((A @ B.T) > 0).astype(np.float64)


def naive_salience(predicate_ids, tagged_counts, smoothing: float, min_count: int
                   ) -> dict[int, float]:
    """Each predicate's salience (``aesi_lib.model.salience``) from its definition, counted
    predicate by predicate: max(0, log of its share of the mentions over its share of the
    smoothed tagged counts), 0 below ``min_count`` mentions, scaled to a maximum of 1; all 0
    without tagged counts."""
    predicates = sorted({int(p) for p in predicate_ids})
    if tagged_counts is None or not any(tagged_counts):
        return dict.fromkeys(predicates, 0.0)
    mentions = {p: 0 for p in predicates}
    tagged = {}
    for p, c in zip(predicate_ids, tagged_counts, strict=True):
        mentions[int(p)] += 1
        tagged[int(p)] = float(c)
    n_mentions = sum(mentions.values())
    n_reference = sum(tagged[p] + smoothing for p in predicates)
    raw = {p: max(0.0, float(np.log((mentions[p] / n_mentions)
                                    / ((tagged[p] + smoothing) / n_reference))))
           if mentions[p] >= min_count else 0.0 for p in predicates}
    top = max(raw.values())
    return {p: v / top if top > 0 else 0.0 for p, v in raw.items()}


def dense_terms(features: EntityFeatures, options: SimilarityOptions,
                rows: EntityFeatures | None = None) -> dict[str, np.ndarray]:
    """Every term any graph uses, by name, as a dense (rows × columns) matrix."""
    r = features if rows is None else rows
    P = np.maximum(features.pmi.toarray().astype(np.float64), 0.0)
    heads, row_heads = np.asarray(features.head_ids), np.asarray(r.head_ids)
    pmi = np.zeros((len(row_heads), len(heads)))
    known = row_heads >= 0
    pmi[known] = P[np.ix_(row_heads[known], heads)]
    dep, row_dep = np.asarray(features.dep_ids), np.asarray(r.dep_ids)
    same_dep = ((row_dep[:, None] == dep[None, :]) & (row_dep[:, None] >= 0)).astype(float)
    hp = np.hstack([features.head_vectors, features.predicate_vectors])
    row_hp = np.hstack([r.head_vectors, r.predicate_vectors])
    context = {}
    # Sentence vectors shared by sentence (context_rows) are expanded to one per mention.
    vectors = features.mention_context_vectors()
    if vectors is not None:
        row_vectors = r.mention_context_vectors()
        if row_vectors is None:
            row_vectors = np.zeros((r.n_entities, vectors.shape[1]))
        context["context"] = dense_cosine(vectors, row_vectors)
    salience = np.zeros((len(row_heads), len(heads)))
    if features.predicate_ids is not None and r.predicate_ids is not None:
        s = naive_salience(features.predicate_ids, features.predicate_tagged_counts,
                           SALIENCE_SMOOTHING, SALIENCE_MIN_COUNT)
        row_s = np.array([s.get(int(p), 0.0) for p in r.predicate_ids])
        salience = np.outer(row_s, [s.get(int(p), 0.0) for p in features.predicate_ids])
    return {
        **context,
        "salience": salience,
        "pmi": pmi,
        "cos_hp": dense_cosine(hp, row_hp),
        "cos_p": dense_cosine(features.predicate_vectors, r.predicate_vectors),
        "cos_h": dense_cosine(features.head_vectors, r.head_vectors),
        "dep": same_dep,
        "type": _shares_type(r.types, features.types),
    }


def dense_similarity(terms_of: TermsOf, features: EntityFeatures,
                     options: SimilarityOptions | None = None,
                     rows: EntityFeatures | None = None) -> np.ndarray:
    """Σ_t w_t · term_t with dense terms, the weights and term names from ``terms_of``."""
    options = options or SimilarityOptions()
    values = dense_terms(features, options, rows)
    weighted = [(w, t.name) for w, t in terms_of(features, options, None)]
    n_rows = features.n_entities if rows is None else rows.n_entities
    W = np.zeros((n_rows, features.n_entities))
    for w, name in weighted:
        W += w * values[name]
    return W


def dense_template_similarity(features: EntityFeatures, options: SimilarityOptions | None = None,
                              rows: EntityFeatures | None = None) -> np.ndarray:
    """Dense W_T (Eq. 1)."""
    return dense_similarity(template_terms, features, options, rows)


def dense_slot_similarity(features: EntityFeatures, options: SimilarityOptions | None = None,
                          rows: EntityFeatures | None = None) -> np.ndarray:
    """Dense W_S (Eq. 2)."""
    return dense_similarity(slot_terms, features, options, rows)


def dense_head_class_similarity(features: EntityFeatures,
                                options: SimilarityOptions | None = None,
                                rows: EntityFeatures | None = None) -> np.ndarray:
    """Dense W_H of the factored slots."""
    return dense_similarity(head_class_terms, features, options, rows)
