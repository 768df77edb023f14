"""Predicate salience: how much more a corpus uses a predicate than English in general.

The templates of MUC-4 are scenarios (attacks, bombings, kidnappings), and the predicates that
name them are the ones a news corpus about such incidents uses far more often than English at
large: *murder*, *kidnap*, *wound*, *bomb*, *attack*, against *say*, *take* or *make*. The
cut of W_T alone spreads them over several templates with the verbs they share sentences and
heads with (*wound* and *die* beside *report* and *cause*, *bomb* beside *seize* and
*occupy*), and the evaluation's mapping takes one template per incident type.

The salience of predicate p compares its share of the corpus's mentions with its share of a
general-English count, WordNet's sense-tagged verb counts (``cntlist.rev``, mostly SemCor;
``aesi_lib.lexicon.wordnet.WordNetLexicon.verb_tagged_count``), smoothed by k:

    s_p = max(0, log[ (n_p / Σ_q n_q) / ((c_p + k) / Σ_q (c_q + k)) ]),   n_p >= m,
    s_p = 0,                                                              n_p <  m,

with n_p the corpus's mentions of p, c_p its tagged count, both summed over the corpus's
predicates q, and m the least count of mentions (a rare predicate's ratio is noise). The
values are scaled to a maximum of 1. The W_T term ``s_p s_q`` of
:func:`aesi_lib.model.similarity.template_terms` then joins the corpus's salient predicates,
in proportion to both saliences. Not in the paper: an option of the quality track
(``SimilarityOptions.salience_weight``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: k of the salience, added to every tagged count, so that a predicate WordNet never tagged is
#: not infinitely salient. Around the default preset on MUC-4, k = 2.5 and 10 scored within
#: 0.01 of k = 5 (``configs/sweep-muc4-default-salience-discretisations.json`` at 74202f9).
SALIENCE_SMOOTHING = 5.0
#: m, the least count of mentions of a salient predicate: a rarer predicate's ratio is noise.
#: Around the default preset on MUC-4, m = 10 and 40 scored within 0.005 of m = 20.
SALIENCE_MIN_COUNT = 20


def predicate_salience(predicate_ids: np.ndarray, tagged_counts: np.ndarray | None,
                       smoothing: float = SALIENCE_SMOOTHING,
                       min_count: int = SALIENCE_MIN_COUNT) -> np.ndarray:
    """The salience of each predicate of a corpus (module docstring): the log ratios of
    :func:`salience_log_ratios` scaled to a maximum of 1.

    Parameters
    ----------
    predicate_ids : ndarray of shape (E,), int
        Each mention's predicate (``EntityFeatures.predicate_ids``), ids 0..P-1.
    tagged_counts : ndarray of shape (E,), or None
        Each mention's predicate's tagged count as a verb
        (``EntityFeatures.predicate_tagged_counts``; equal for the mentions of a predicate).
        None, or all zero (no WordNet, or one without ``cntlist.rev``): no reference to
        compare with, and every salience is 0.
    smoothing : float
        k > 0, added to every tagged count (:data:`SALIENCE_SMOOTHING`).
    min_count : int
        m >= 1: predicates with fewer mentions get salience 0 (:data:`SALIENCE_MIN_COUNT`).

    Returns
    -------
    ndarray of shape (P,), float64
        In [0, 1]; P = ``predicate_ids.max() + 1``. All zero when no predicate is salient.
    """
    salience = salience_log_ratios(predicate_ids, tagged_counts, smoothing, min_count)
    top = salience.max(initial=0.0)
    return salience / top if top > 0 else salience


def salience_log_ratios(predicate_ids: np.ndarray, tagged_counts: np.ndarray | None,
                        smoothing: float = SALIENCE_SMOOTHING,
                        min_count: int = SALIENCE_MIN_COUNT) -> np.ndarray:
    """The unscaled salience of each predicate: ``max(0, log ratio)`` of the module
    docstring, 0 below ``min_count`` mentions; how many times (as a natural log) more often
    the corpus uses a predicate than general English. :func:`predicate_salience` scales it
    for W_T; the events of a run (``aesi_lib.events``) weigh predicates with it as it is, so
    that a weight means the same on any corpus.

    Parameters and the shape of the result are those of :func:`predicate_salience`; the
    values are in [0, inf).
    """
    predicate_ids = np.asarray(predicate_ids, dtype=np.int64)
    n_predicates = int(predicate_ids.max()) + 1 if predicate_ids.size else 0
    salience = np.zeros(n_predicates)
    if tagged_counts is None or not np.any(tagged_counts):
        return salience
    if smoothing <= 0 or min_count < 1:
        raise ValueError(f"smoothing must be > 0 and min_count >= 1, got {smoothing}, "
                         f"{min_count}")
    mentions = np.bincount(predicate_ids, minlength=n_predicates).astype(np.float64)
    tagged = np.zeros(n_predicates)
    tagged[predicate_ids] = np.asarray(tagged_counts, dtype=np.float64)
    reference = tagged + smoothing
    present = mentions > 0          # ids without mentions (a subset's gaps) are no predicate
    ratio = (mentions / mentions.sum()) / (reference / reference[present].sum())
    used = mentions >= min_count
    salience[used] = np.maximum(0.0, np.log(ratio[used]))
    return salience


def salience_products(salience: np.ndarray) -> sp.csr_matrix:
    """``s sᵀ`` over the salient predicates, shape (P, P): the matrix of the W_T term
    (a ``GroupTerm`` over predicates; rows and columns of predicates with salience 0 are
    empty, so the matrix holds (number of salient predicates)² values)."""
    salience = np.asarray(salience, dtype=np.float64)
    salient = np.flatnonzero(salience > 0)
    rows = np.repeat(salient, salient.size)
    cols = np.tile(salient, salient.size)
    values = salience[rows] * salience[cols]
    n = salience.size
    return sp.csr_matrix((values, (rows, cols)), shape=(n, n))
