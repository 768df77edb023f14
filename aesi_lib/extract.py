"""Fill the slots of new documents with an induced schema, without solving again.

Each new entity mention gets the template whose members it is most similar to on average under
W_T (Eq. 1), and the slot whose members it is most similar to on average under W_S (Eq. 2):

    score_T(i, t) = (1/|t|) Σ_{j ∈ t} W_T(i, j)
                  = w_pmi · mean_j PMI(head_i, head_j) + w_hp · mean_j cos(vec_hp(i), vec_hp(j))
    score_S(i, s) = (1/|s|) Σ_{j ∈ s} W_S(i, j)
                  = w_p · mean_j cos(vec_p(i), vec_p(j)) + w_dep · mean_j δ(dep_i = dep_j)
                    + w_type · mean_j δ(types_i ∩ types_j ≠ ∅)

with the weights and conventions of the run's :class:`~aesi_lib.similarity.SimilarityOptions`
(cosine shift/clip/raw, positive PMI, and the per-term scaling of ``term_normalization``, read
from the training graph itself). For the shifted and raw cosines the mean is a dot product with
the cluster's centroid of unit vectors, so the cost is O(|new|·(d + k)) plus a sparse product
for PMI; the clipped cosine has no centroid form and is evaluated exactly in row blocks
(O(|new|·|E|·d)). No |E|×|E| matrix is built.

The new entities' words are looked up in the training vocabulary: a head word the training
corpus never had has no PMI with anything (0), an unseen dependency label matches no member,
and semantic types unknown to the training corpus are ignored. The sentence constraint is not
applied (each mention is assigned on its own). Pure: no I/O, no Prefect.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from aesi_lib.features import EntityFeatures, FeatureVocabulary
from aesi_lib.similarity import (
    SimilarityOptions,
    slot_similarity,
    template_similarity,
    type_set_groups,
)


@dataclass(frozen=True)
class SlotFill:
    """Templates and slots of new entity mentions.

    Attributes
    ----------
    template, slot : ndarray of shape (N,), int
        The best template and slot of each new mention.
    template_scores : ndarray of shape (N, |T|)
        Mean W_T similarity to the members of each template (-inf for an empty template).
    slot_scores : ndarray of shape (N, |S|)
        Mean W_S similarity to the members of each slot (-inf for an empty slot).
    """

    template: np.ndarray
    slot: np.ndarray
    template_scores: np.ndarray
    slot_scores: np.ndarray


def _index_map(names: Sequence[str], known: Sequence[str]) -> np.ndarray:
    """Position of each name in ``known`` (-1 when absent)."""
    lookup = {name: i for i, name in enumerate(known)}
    return np.asarray([lookup.get(name, -1) for name in names], dtype=np.int64)


def _unit_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float64); zero rows stay zero (cosine 0 with everything)."""
    X = np.array(X, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    X[norms > 0] /= norms[norms > 0, None]
    return X


def _membership(labels: np.ndarray, k: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """One-hot |E|×k membership matrix and cluster sizes."""
    labels = np.asarray(labels, dtype=np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= k):
        raise ValueError(f"labels must lie in [0, {k}), got [{labels.min()}, {labels.max()}]")
    n = labels.shape[0]
    X = sp.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, k))
    return X, np.bincount(labels, minlength=k).astype(np.float64)


def _group_counts(group_ids: np.ndarray, n_groups: int, X: sp.csr_matrix) -> np.ndarray:
    """Members of each cluster per group (head word, label, type set): n_groups × k."""
    n = group_ids.shape[0]
    G = sp.csr_matrix((np.ones(n), (group_ids, np.arange(n))), shape=(n_groups, n))
    return np.asarray((G @ X).todense())


def _mean_cosine(train_vectors: np.ndarray, new_vectors: np.ndarray, X: sp.csr_matrix,
                 sizes: np.ndarray, mode: str, chunk: int) -> np.ndarray:
    """(1/|c|) Σ_{j∈c} of the cosine term (shift, clip or raw) for every new row and cluster."""
    unit_train = _unit_rows(train_vectors)
    unit_new = _unit_rows(new_vectors)
    safe = np.where(sizes > 0, sizes, 1.0)
    if mode == "clip":
        out = np.empty((unit_new.shape[0], X.shape[1]))
        for start in range(0, unit_new.shape[0], chunk):
            block = np.maximum(unit_new[start:start + chunk] @ unit_train.T, 0.0)
            out[start:start + chunk] = np.asarray((X.T @ block.T).T)
        return out / safe
    centroid_sums = np.asarray(X.T @ unit_train)            # k × d: Σ_{j∈c} unit(v_j)
    mean = (unit_new @ centroid_sums.T) / safe
    return 0.5 * (1.0 + mean) if mode == "shift" else mean


def _graph_weights(operator: object) -> dict[str, float]:
    """The weight each term carries in a training graph, by term name: under
    ``term_normalization="mean_degree"`` the option's weight divided by the term's mean degree
    (read from the operator the solver used)."""
    return {term.name: float(weight) for weight, term in operator.terms}  # type: ignore


def template_scores(train: EntityFeatures, train_vocab: FeatureVocabulary,
                    template_labels: np.ndarray, new: EntityFeatures,
                    new_vocab: FeatureVocabulary, options: SimilarityOptions | None = None,
                    n_templates: int | None = None, chunk: int = 1024) -> np.ndarray:
    """Mean W_T similarity (Eq. 1) of each new mention to the members of each template.

    Returns
    -------
    ndarray of shape (N, |T|); -inf where a template has no member.
    """
    options = options or SimilarityOptions()
    k = int(n_templates if n_templates is not None else np.max(template_labels) + 1)
    X, sizes = _membership(template_labels, k)
    weights = {"pmi": options.pmi_weight, "cos_hp": options.cos_hp_weight}
    if options.term_normalization != "none":
        weights = _graph_weights(template_similarity(train, options))
    scores = np.zeros((new.n_entities, k))

    if weights["cos_hp"]:
        hp_train = np.hstack([train.head_vectors, train.predicate_vectors])
        hp_new = np.hstack([new.head_vectors, new.predicate_vectors])
        scores += weights["cos_hp"] * _mean_cosine(hp_train, hp_new, X, sizes, options.cosine,
                                                   chunk)

    P = sp.csr_matrix(train.pmi, dtype=np.float64)
    if options.pmi == "positive":
        P = P.maximum(0.0).tocsr()
    if weights["pmi"] and P.nnz:
        heads = _index_map([new_vocab.heads[h] for h in new.head_ids], train_vocab.heads)
        known = heads >= 0
        head_counts = _group_counts(train.head_ids, P.shape[0], X)     # V × k
        pmi_sum = np.zeros((new.n_entities, k))
        pmi_sum[known] = P[heads[known]] @ head_counts
        scores += weights["pmi"] * pmi_sum / np.where(sizes > 0, sizes, 1.0)
    scores[:, sizes == 0] = -np.inf
    return scores


def slot_scores(train: EntityFeatures, train_vocab: FeatureVocabulary, slot_labels: np.ndarray,
                new: EntityFeatures, new_vocab: FeatureVocabulary,
                options: SimilarityOptions | None = None, n_slots: int | None = None,
                chunk: int = 1024) -> np.ndarray:
    """Mean W_S similarity (Eq. 2) of each new mention to the members of each slot.

    Returns
    -------
    ndarray of shape (N, |S|); -inf where a slot has no member.
    """
    options = options or SimilarityOptions()
    k = int(n_slots if n_slots is not None else np.max(slot_labels) + 1)
    X, sizes = _membership(slot_labels, k)
    safe = np.where(sizes > 0, sizes, 1.0)
    weights = {"cos_p": options.cos_p_weight, "dep": options.dep_weight,
               "type": options.type_weight}
    if options.term_normalization != "none":
        weights = _graph_weights(slot_similarity(train, options))
    scores = np.zeros((new.n_entities, k))

    if weights["cos_p"]:
        scores += weights["cos_p"] * _mean_cosine(train.predicate_vectors, new.predicate_vectors,
                                                  X, sizes, options.cosine, chunk)
    if weights["dep"]:
        deps = _index_map([new_vocab.deps[d] for d in new.dep_ids], train_vocab.deps)
        dep_counts = _group_counts(train.dep_ids, len(train_vocab.deps), X)  # labels × k
        share = np.zeros((new.n_entities, k))
        share[deps >= 0] = dep_counts[deps[deps >= 0]]
        scores += weights["dep"] * share / safe
    if weights["type"]:
        scores += weights["type"] * _shared_type_fraction(train, train_vocab, new, new_vocab,
                                                          X) / safe
    scores[:, sizes == 0] = -np.inf
    return scores


def _shared_type_fraction(train: EntityFeatures, train_vocab: FeatureVocabulary,
                          new: EntityFeatures, new_vocab: FeatureVocabulary,
                          X: sp.csr_matrix) -> np.ndarray:
    """Σ_{j∈s} δ(types_i ∩ types_j ≠ ∅) for every new mention i and slot s."""
    groups, _ = type_set_groups(train.types)
    n_groups = int(groups.max()) + 1 if groups.size else 0
    # One representative training row per distinct type set: the sets as a K × H indicator.
    first = np.full(n_groups, -1, dtype=np.int64)
    first[groups[::-1]] = np.arange(groups.shape[0])[::-1]
    T = sp.csr_matrix(train.types, dtype=np.float64)
    T.data[:] = 1.0
    U = T[first]
    # New mentions' types in the training type space (types unknown to training dropped).
    column = _index_map(list(new_vocab.types), train_vocab.types)
    Tn = sp.csr_matrix(new.types, dtype=np.float64).tocoo()
    keep = column[Tn.col] >= 0
    Tn = sp.csr_matrix((np.ones(int(keep.sum())), (Tn.row[keep], column[Tn.col[keep]])),
                       shape=(new.n_entities, T.shape[1]))
    shares = (Tn @ U.T).toarray() > 0                          # N × K: shares a type with set g
    return shares.astype(np.float64) @ _group_counts(groups, n_groups, X)


def factored_slot_scores(train: EntityFeatures, train_vocab: FeatureVocabulary,
                         slot_labels: np.ndarray, new: EntityFeatures,
                         new_vocab: FeatureVocabulary, n_slots: int,
                         options: SimilarityOptions | None = None,
                         chunk: int = 1024) -> np.ndarray:
    """Slot scores under factored slots (``aesi_lib.factored_slots``).

    A new mention keeps its own argument position; within that position's block of slots it
    scores each semantic class by its mean W_H similarity (shared type plus head-vector
    cosine) to the class's training mentions.

    Returns
    -------
    ndarray of shape (N, n_slots); -inf outside the mention's position block and where a
    class has no member.
    """
    from aesi_lib.factored_slots import ARGUMENT_POSITIONS

    options = options or SimilarityOptions()
    if new.argument_positions is None:
        raise ValueError("factored slots need the new mentions' argument_positions")
    n_classes = n_slots // len(ARGUMENT_POSITIONS)
    classes = np.asarray(slot_labels, dtype=np.int64) % n_classes
    X, sizes = _membership(classes, n_classes)
    safe = np.where(sizes > 0, sizes, 1.0)
    class_scores = np.zeros((new.n_entities, n_classes))
    if options.cos_h_weight:
        class_scores += options.cos_h_weight * _mean_cosine(
            train.head_vectors, new.head_vectors, X, sizes, options.cosine, chunk)
    if options.type_weight:
        class_scores += options.type_weight * _shared_type_fraction(
            train, train_vocab, new, new_vocab, X) / safe
    class_scores[:, sizes == 0] = -np.inf
    scores = np.full((new.n_entities, n_slots), -np.inf)
    positions = np.asarray(new.argument_positions, dtype=np.int64)
    for position in range(len(ARGUMENT_POSITIONS)):
        rows = positions == position
        block = slice(position * n_classes, (position + 1) * n_classes)
        scores[rows, block] = class_scores[rows]
    return scores


def fill_slots(train: EntityFeatures, train_vocab: FeatureVocabulary,
               template_labels: np.ndarray, slot_labels: np.ndarray,
               new: EntityFeatures, new_vocab: FeatureVocabulary,
               options: SimilarityOptions | None = None, n_templates: int | None = None,
               n_slots: int | None = None, slot_model: str = "cut") -> SlotFill:
    """Assign each new mention the template and slot whose members it is most similar to.

    Parameters
    ----------
    train, train_vocab : the features the schema was induced on (``aesi_lib.features``).
    template_labels, slot_labels : ndarray of shape (|E|,), the induced labels.
    new, new_vocab : features of the new mentions (``build_features`` on their entity table;
        their PMI is not used: the training PMI is looked up by head word).
    options : the run's SimilarityOptions (weights and conventions of W_T and W_S).
    n_templates, n_slots : |T| and |S| (default: largest label + 1).
    slot_model : ``"cut"`` (slots scored by W_S, Eq. 2) or ``"factored"`` (by
        :func:`factored_slot_scores`; needs ``n_slots``), as ``ModelConfig.slot_model``.

    Returns
    -------
    SlotFill
    """
    options = options or SimilarityOptions()
    ts = template_scores(train, train_vocab, template_labels, new, new_vocab, options,
                         n_templates)
    if slot_model == "factored":
        if n_slots is None:
            raise ValueError("factored slots need n_slots")
        ss = factored_slot_scores(train, train_vocab, slot_labels, new, new_vocab, n_slots,
                                  options)
    elif slot_model == "cut":
        ss = slot_scores(train, train_vocab, slot_labels, new, new_vocab, options, n_slots)
    else:
        raise ValueError(f"slot_model must be 'cut' or 'factored', got {slot_model!r}")
    empty = np.zeros(0, dtype=np.int64)
    return SlotFill(
        template=np.argmax(ts, axis=1).astype(np.int64) if len(ts) else empty,
        slot=np.argmax(ss, axis=1).astype(np.int64) if len(ss) else empty,
        template_scores=ts,
        slot_scores=ss,
    )
