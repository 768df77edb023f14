"""A synthetic corpus with planted templates and slots, for tests, benchmarks and trying the
solver without a parsed corpus."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from aesi_lib.model.features import EntityFeatures


def planted_features(
    n_entities: int,
    n_templates: int = 6,
    n_slots: int = 4,
    dim: int = 20,
    seed: int = 0,
    *,
    sentences_per_doc: int = 5,
    mean_entities_per_sentence: float = 2.5,
    noise: float = 1.0,
    heads_per_cell: int | None = None,
    n_deps: int | None = None,
    dep_purity: float = 0.6,
    type_purity: float = 0.7,
    generic_fraction: float = 0.3,
) -> tuple[EntityFeatures, np.ndarray, np.ndarray]:
    """A synthetic corpus with planted templates and slots.

    Every document has one template; its sentences hold 1..|S| entities in distinct slots (the
    sentence constraint holds exactly). A head word belongs to one (template, slot) cell; its
    vector is ``μ_t + ν_s + noise·ε`` and its types are its slot's type with probability
    ``type_purity`` (else a random one). Predicates belong to (template, slot) cells too, with
    vector ``μ'_t + ν'_s + noise·ε``. The dependency label is ``slot mod n_deps`` with
    probability ``dep_purity``. A fraction ``generic_fraction`` of the mentions take a head and
    a predicate from template-independent pools of their slot (vectors ``ν_s + noise·ε``), like
    "people" or "said": only their sentence-mates tell their template. PMI is the positive
    document co-occurrence PMI of head words.

    Parameters
    ----------
    n_entities : int
        Approximate |E| (whole sentences are generated).
    n_templates, n_slots : int
    dim : int
        Word vector dimension.
    seed : int
    sentences_per_doc : int
    mean_entities_per_sentence : float
    noise : float
        Standard deviation of the word-vector noise per coordinate (the template and slot
        means have standard normal coordinates).
    heads_per_cell : int, optional
        Head words per (template, slot) cell; default grows with |E|.
    n_deps : int, optional
        Dependency labels; default ``max(2, n_slots - 1)`` so labels cannot separate all slots.
    dep_purity, type_purity : float
    generic_fraction : float

    Returns
    -------
    features : EntityFeatures
    templates : ndarray of shape (E,), int
    slots : ndarray of shape (E,), int
    """
    rng = np.random.default_rng(seed)
    k_t, k_s = n_templates, n_slots
    if heads_per_cell is None:
        heads_per_cell = max(10, n_entities // 2000)
    if n_deps is None:
        n_deps = max(2, k_s - 1)

    # Sentence sizes: 1 + binomial, capped by |S| so slots can be distinct within a sentence.
    p = min(max((mean_entities_per_sentence - 1.0) / max(k_s - 1, 1), 0.0), 1.0)
    est = int(n_entities / mean_entities_per_sentence * 1.1) + 10
    sizes = 1 + rng.binomial(k_s - 1, p, size=est)
    sizes = sizes[: int(np.searchsorted(np.cumsum(sizes), n_entities)) + 1]
    n_sent = sizes.shape[0]
    n = int(sizes.sum())
    sentence_ids = np.repeat(np.arange(n_sent), sizes)
    doc_of_sentence = np.arange(n_sent) // sentences_per_doc
    doc_ids = doc_of_sentence[sentence_ids]
    n_docs = int(doc_of_sentence[-1]) + 1
    doc_template = rng.integers(k_t, size=n_docs)
    templates = doc_template[doc_ids]

    # Distinct slots within a sentence: rank of random keys inside each sentence.
    keys = rng.random((n_sent, k_s)).argsort(axis=1)
    pos = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    slots = keys[sentence_ids, pos]

    # Cells 0..T·S-1 are (template, slot); cells T·S..T·S+S-1 are the generic pools.
    generic = rng.random(n) < generic_fraction
    cell = np.where(generic, k_t * k_s + slots, templates * k_s + slots)
    n_cells = (k_t + 1) * k_s
    head_ids = cell * heads_per_cell + rng.integers(heads_per_cell, size=n)
    n_heads = n_cells * heads_per_cell
    pred_per_cell = max(3, heads_per_cell // 3)
    pred_ids = cell * pred_per_cell + rng.integers(pred_per_cell, size=n)
    n_preds = n_cells * pred_per_cell

    # Row k_t of the template means is zero: the generic pools carry no template signal.
    mu_t = np.vstack([rng.standard_normal((k_t, dim)), np.zeros((1, dim))])
    nu_s = rng.standard_normal((k_s, dim))
    mu_p = np.vstack([rng.standard_normal((k_t, dim)), np.zeros((1, dim))])
    nu_p = rng.standard_normal((k_s, dim))
    word_t = np.arange(n_heads) // heads_per_cell // k_s
    word_s = np.arange(n_heads) // heads_per_cell % k_s
    head_vecs = mu_t[word_t] + nu_s[word_s] + noise * rng.standard_normal((n_heads, dim))
    pw_t = np.arange(n_preds) // pred_per_cell // k_s
    pw_s = np.arange(n_preds) // pred_per_cell % k_s
    pred_vecs = mu_p[pw_t] + nu_p[pw_s] + noise * rng.standard_normal((n_preds, dim))

    dep_ids = np.where(rng.random(n) < dep_purity, slots % n_deps, rng.integers(n_deps, size=n))

    n_types = 2 * k_s
    head_type = np.where(
        rng.random(n_heads) < type_purity, word_s, rng.integers(n_types, size=n_heads)
    )
    second = rng.integers(n_types, size=n_heads)
    has_second = rng.random(n_heads) < 0.3
    rows = np.concatenate([np.arange(n_heads), np.arange(n_heads)[has_second]])
    cols = np.concatenate([head_type, second[has_second]])
    head_types = sp.csr_matrix((np.ones(rows.shape[0]), (rows, cols)), shape=(n_heads, n_types))
    head_types.data[:] = 1.0
    types = head_types[head_ids]

    B = sp.csr_matrix((np.ones(n), (doc_ids, head_ids)), shape=(n_docs, n_heads))
    B.data[:] = 1.0
    co = (B.T @ B).tocoo()
    df = np.asarray(B.sum(axis=0)).reshape(-1)
    keep = co.row != co.col
    r, c, v = co.row[keep], co.col[keep], co.data[keep]
    pmi_vals = np.log(v * n_docs / (df[r] * df[c]))
    pos_mask = pmi_vals > 0
    pmi = sp.csr_matrix(
        (pmi_vals[pos_mask], (r[pos_mask], c[pos_mask])), shape=(n_heads, n_heads)
    )

    features = EntityFeatures(
        head_ids=head_ids,
        head_vectors=head_vecs[head_ids],
        predicate_vectors=pred_vecs[pred_ids],
        dep_ids=dep_ids,
        types=types,
        sentence_ids=sentence_ids,
        doc_ids=doc_ids,
        pmi=pmi,
    )
    return features, templates, slots
