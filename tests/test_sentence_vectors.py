"""Sentence vectors from the packaged all-MiniLM-L6-v2 (offline), their per-document cache, and
the context term of W_T against its dense definition."""

from __future__ import annotations

import numpy as np
import pytest
from dense_reference import dense_template_similarity
from test_similarity import random_features

from aesi_lib.model.similarity import SimilarityOptions, template_similarity

sentence_vectors = pytest.importorskip(
    "aesi_lib.lexicon.sentence_vectors", reason="the context extra is not installed")


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    try:
        return sentence_vectors.load_sentence_encoder(tmp_path_factory.mktemp("cache"))
    except Exception as exc:            # pragma: no cover - only without the context extra
        pytest.skip(f"sentence-vector model unavailable: {exc}")


def test_vectors_are_unit_length_and_similar_sentences_are_close(encoder):
    v = sentence_vectors.embed_sentences(encoder, [
        "Guerrillas bombed the power station.", "Terrorists blew up an electricity plant.",
        "The minister spoke about the economy."])
    assert v.shape == (3, sentence_vectors.DIMENSION) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


def test_documents_are_embedded_once(encoder, tmp_path):
    docs = [["A bomb exploded.", "Two died."], ["The army attacked."]]
    first, embedded = sentence_vectors.document_sentence_vectors(encoder, docs, tmp_path)
    assert embedded == 2 and [b.shape[0] for b in first] == [2, 1]
    again, embedded = sentence_vectors.document_sentence_vectors(
        encoder, docs + [["A new one."]], tmp_path)
    assert embedded == 1
    np.testing.assert_array_equal(again[0], first[0])


def test_each_mention_gets_its_own_sentences_vector(encoder, tmp_path):
    import pandas as pd

    sentences = pd.DataFrame({"doc_id": ["a", "a", "b"], "sent_id": [0, 1, 0],
                              "text": ["A bomb exploded.", "Two died.", "The army attacked."]})
    mentions = pd.DataFrame({"doc_id": ["b", "a", "a", "a"], "sent_id": [0, 1, 0, 1]})
    matrix, n_sentences, embedded = sentence_vectors.mention_sentence_vectors(
        mentions, sentences, encoder, tmp_path)
    assert matrix.shape == (4, sentence_vectors.DIMENSION) and matrix.dtype == np.float32
    assert (n_sentences, embedded) == (3, 2)
    direct = sentence_vectors.embed_sentences(encoder, list(sentences["text"]))
    np.testing.assert_allclose(matrix, direct[[2, 1, 0, 1]], atol=1e-5)


def test_the_context_term_matches_its_dense_definition():
    rng = np.random.default_rng(0)
    f = random_features(25, seed=2)
    import dataclasses

    f = dataclasses.replace(f, context_vectors=rng.standard_normal((25, 8)))
    options = SimilarityOptions(context_weight=0.7)
    np.testing.assert_allclose(template_similarity(f, options) @ np.eye(25),
                               dense_template_similarity(f, options), atol=1e-12)
    names = [t.name for _, t in template_similarity(f, options).terms]
    assert names == ["pmi", "cos_hp", "context"]
