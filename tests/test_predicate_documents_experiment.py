"""experiments/predicate_documents.py: the predicates' document PMI, and the term reaching W_T
only inside its block."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from aesi_lib.model import similarity
from aesi_lib.model.features import EntityFeatures
from experiments import predicate_documents


def test_predicates_that_share_documents_have_their_document_pmi():
    # Documents 0 and 1 hold predicates 0 and 1 (document 0 twice each), document 2 holds
    # predicate 2, document 3 predicates 2 and 0; document 4 only a mention without one.
    predicates = np.array([0, 0, 1, 1, 0, 1, 2, 2, 0, -1])
    documents = np.array([0, 0, 0, 0, 1, 1, 2, 3, 3, 4])
    ppmi = predicate_documents.predicate_document_pmi(predicates, documents, 3).toarray()
    # N = 4 documents with a predicate; df = 3, 2, 2.
    expected = np.array([[np.log(4 / 3), np.log(4 / 3), 0.0],      # (0, 2): ln(2/3) < 0
                         [np.log(4 / 3), np.log(2), 0.0],
                         [0.0, 0.0, np.log(2)]])
    np.testing.assert_allclose(ppmi, expected)


def _features() -> EntityFeatures:
    n = 6
    return EntityFeatures(
        head_ids=np.arange(n) % 3, head_vectors=np.ones((n, 4)),
        predicate_vectors=np.ones((n, 4)), dep_ids=np.zeros(n, dtype=np.int64),
        types=sp.csr_matrix((np.ones(n), (np.arange(n), np.zeros(n, dtype=np.int64))),
                            shape=(n, 1)),
        sentence_ids=np.arange(n), doc_ids=np.array([0, 0, 1, 1, 2, 2]),
        pmi=sp.csr_matrix((3, 3)), predicate_ids=np.array([0, 1, 0, 1, 2, 2]),
    )


def test_the_term_joins_the_w_t_of_the_parts_it_is_passed_in():
    features = _features()
    ppmi = predicate_documents.predicate_document_pmi(features.predicate_ids,
                                                      features.doc_ids, 3)
    options = similarity.SimilarityOptions(context_weight=0.0, salience_weight=0.0)
    parts = predicate_documents.predicate_pmi_in_template_graph(ppmi, weight=2.0)
    terms = parts.template_terms(features, options)
    W = similarity.template_similarity(features, options, terms=parts.template_terms)
    with pytest.raises(ValueError, match="training cut only"):
        parts.template_terms(features, options, features)
    assert [term.name for _, term in terms] == ["pmi", "cos_hp", "predicate_pmi"]
    assert terms[-1][0] == 2.0
    without = similarity.template_similarity(features, options)
    x = np.eye(6)[:, 0]
    # Mention 0 (predicate 0) gains weight to mention 3 (predicate 1, which shares both of
    # predicate 0's documents) and none to mention 4 (predicate 2, which shares none).
    gained = W @ x - without @ x
    assert gained[3] > 0 and gained[4] == 0
    assert [term.name for _, term in similarity.template_terms(features, options)] == [
        "pmi", "cos_hp"]
