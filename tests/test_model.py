"""The notebook API: ModelConfig, induce, InductionResult, planted_features."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from aesi_lib.model.induction import InductionResult, ModelConfig, induce
from aesi_lib.model.similarity import SimilarityOptions
from aesi_lib.model.synthetic import planted_features


@pytest.fixture(scope="module")
def corpus():
    return planted_features(1500, seed=21, noise=1.5)


def test_planted_features_are_consistent(corpus) -> None:
    f, templates, slots = corpus
    f.validate()
    n = f.n_entities
    assert templates.shape == slots.shape == (n,)
    # One template per document, distinct slots within a sentence.
    for doc in np.unique(f.doc_ids)[:50]:
        assert np.unique(templates[f.doc_ids == doc]).size == 1
    pairs = np.unique(np.stack([f.sentence_ids, slots]), axis=1).shape[1]
    assert pairs == n
    assert f.head_vectors.shape == f.predicate_vectors.shape == (n, 20)
    assert (f.pmi != f.pmi.T).nnz == 0 and f.pmi.data.min() > 0


@pytest.mark.parametrize("mode", ["sc", "literal", "scaled"])
def test_induce_every_mode(corpus, mode: str) -> None:
    f, _, _ = corpus
    seen = []
    result = induce(
        f,
        ModelConfig(mode=mode, max_iter=3),  # type: ignore[arg-type]
        progress=lambda i, terms: seen.append(i),
    )
    assert isinstance(result, InductionResult)
    assert result.template_labels.shape == result.slot_labels.shape == (f.n_entities,)
    assert result.template_labels.max() < 6 and result.slot_labels.max() < 4
    assert set(result.timings) == {"similarity", "degrees", "solve", "total"}
    assert len(result.eigen_residuals["template"]) >= 1
    assert max(result.eigen_residuals["template"]) < 1e-5
    assert seen == list(range(len(result.history)))
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["config"]["mode"] == mode
    assert len(payload["slot_labels"]) == f.n_entities


def test_scaled_beats_sc_on_planted_corpus(corpus) -> None:
    f, templates, slots = corpus
    sc = induce(f, ModelConfig(mode="sc"))
    joint = induce(f, ModelConfig(mode="scaled", constraint_weight=0.3))
    assert adjusted_rand_score(templates, joint.template_labels) > adjusted_rand_score(
        templates, sc.template_labels
    )
    assert adjusted_rand_score(slots, joint.slot_labels) > adjusted_rand_score(
        slots, sc.slot_labels
    )


def test_zero_weight_equals_sc(corpus) -> None:
    f, _, _ = corpus
    sc = induce(f, ModelConfig(mode="sc", seed=3))
    zero = induce(f, ModelConfig(mode="scaled", constraint_weight=0.0, seed=3))
    np.testing.assert_array_equal(sc.template_labels, zero.template_labels)
    np.testing.assert_array_equal(sc.slot_labels, zero.slot_labels)


def test_similarity_options_pass_through(corpus) -> None:
    f, _, _ = corpus
    # Predicate vectors ±u with more +u: raw cosines would give the -u entities negative
    # degrees; shifted, W_S of the predicate cosine alone separates the two signs.
    signs = np.where(np.arange(f.n_entities) % 3 == 0, -1.0, 1.0)
    u = np.zeros(f.predicate_vectors.shape[1])
    u[0] = 1.0
    g = dataclasses.replace(f, predicate_vectors=signs[:, None] * u)
    only_cosine = SimilarityOptions(dep_weight=0.0, type_weight=0.0)
    result = induce(g, ModelConfig(mode="sc", n_slots=2, similarity=only_cosine))
    assert adjusted_rand_score(signs, result.slot_labels) == 1.0


def test_config_validation() -> None:
    with pytest.raises(ValueError):
        ModelConfig(mode="joint")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ModelConfig(n_slots=0)
