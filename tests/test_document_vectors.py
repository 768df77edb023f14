"""Document vectors in W_T (``similarity.document_context_weight``): the rule, the term, its
tied form and its rows for new documents, against brute-force references."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_similarity import random_features, with_shared_sentences

from aesi_lib.model.config import ModelConfig
from aesi_lib.model.features import EntityFeatures, FeatureOptions
from aesi_lib.model.similarity import (
    SimilarityOptions,
    document_vectors,
    template_similarity,
)
from aesi_lib.model.tying import unit_indicator
from aesi_lib.run.config import feature_requirements

# Only the document term: the other terms of W_T weigh 0.
ONLY_DOCUMENTS = SimilarityOptions(pmi_weight=0.0, cos_hp_weight=0.0,
                                   document_context_weight=1.0)


def with_sentences(n: int, seed: int) -> EntityFeatures:
    rng = np.random.default_rng(seed)
    f = random_features(n, seed=seed)
    vectors = rng.standard_normal((n, 5))
    vectors[rng.random(n) < 0.1] = 0.0  # a sentence the encoder left empty
    return dataclasses.replace(f, context_vectors=vectors.astype(np.float32))


def naive_document_vector(f: EntityFeatures, doc: int) -> np.ndarray:
    members = [i for i in range(f.n_entities) if f.doc_ids[i] == doc]
    total = np.zeros(f.context_vectors.shape[1])
    for i in members:
        v = f.context_vectors[i].astype(np.float64)
        if np.linalg.norm(v) > 0:
            total += v / np.linalg.norm(v)
    return total / len(members) if members else total


def shifted_cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    cos = 0.0 if na == 0 or nb == 0 else float(a @ b / (na * nb))
    return (1.0 + cos) / 2.0


def test_a_document_vector_is_the_mean_of_its_unit_sentence_vectors():
    f = with_sentences(40, seed=1)
    got = document_vectors(f)
    assert got.shape == (int(f.doc_ids.max()) + 1, 5)
    for doc in range(got.shape[0]):
        np.testing.assert_allclose(got[doc], naive_document_vector(f, doc), atol=1e-12)


def test_sentence_vectors_shared_by_sentence_give_the_same_document_vectors():
    shared, per_mention, _, _ = with_shared_sentences(random_features(30, seed=2), 7, 4,
                                                      np.random.default_rng(2))
    np.testing.assert_allclose(document_vectors(shared), document_vectors(per_mention),
                               atol=1e-12)


def test_the_term_compares_the_mentions_documents():
    f = with_sentences(36, seed=3)
    W = template_similarity(f, ONLY_DOCUMENTS) @ np.eye(36)
    docs = [naive_document_vector(f, d) for d in range(int(f.doc_ids.max()) + 1)]
    expected = np.array([[shifted_cosine(docs[f.doc_ids[i]], docs[f.doc_ids[j]])
                          for j in range(36)] for i in range(36)])
    np.testing.assert_allclose(W, expected, atol=1e-12)
    names = [t.name for _, t in template_similarity(
        f, dataclasses.replace(ONLY_DOCUMENTS, context_weight=0.5)).terms]
    assert names == ["pmi", "cos_hp", "context", "document_context"]


def test_the_tied_term_is_the_units_sum():
    f = with_sentences(45, seed=4)
    W = template_similarity(f, ONLY_DOCUMENTS)
    units = np.random.default_rng(4).integers(12, size=45)
    units[:12] = np.arange(12)  # every unit has a mention
    G = unit_indicator(units)
    tied = W.tied(G)
    assert tied is not None
    dense = G.T @ (W @ np.eye(45)) @ G
    np.testing.assert_allclose(tied @ np.eye(12), dense, atol=1e-10)


def test_new_documents_are_compared_by_their_own_document_vectors():
    train = with_sentences(30, seed=5)
    new = with_sentences(10, seed=6)
    block = template_similarity(train, ONLY_DOCUMENTS, rows=new) @ np.eye(30)
    assert block.shape == (10, 30)
    train_docs = document_vectors(train)
    for n in range(10):
        mine = naive_document_vector(new, int(new.doc_ids[n]))
        for j in range(30):
            assert block[n, j] == pytest.approx(
                shifted_cosine(mine, train_docs[train.doc_ids[j]]), abs=1e-12)
    # Without sentence vectors a new mention's cosine is 0 (1/2 once shifted).
    bare = dataclasses.replace(new, context_vectors=None)
    np.testing.assert_allclose(template_similarity(train, ONLY_DOCUMENTS, rows=bare)
                               @ np.eye(30), 0.5, atol=1e-12)


def test_the_term_needs_sentence_vectors():
    f = random_features(20, seed=7)
    with pytest.raises(ValueError, match="features.context"):
        template_similarity(f, ONLY_DOCUMENTS)
    model = ModelConfig(similarity=SimilarityOptions(document_context_weight=0.5))
    problems = feature_requirements(FeatureOptions(context=False), model)
    assert ("model.similarity.document_context_weight",
            "0.5 needs features.context=true (or set the weight to 0)") in problems
