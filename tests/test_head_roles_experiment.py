"""experiments/head_roles.py: role vectors group heads by the pairs they fill, and the term
reaches the class cut only inside its block."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from aesi_lib.model import similarity
from aesi_lib.model.factored_slots import semantic_classes
from aesi_lib.model.features import EntityFeatures
from experiments import head_roles


def _fillers() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heads 0-3 are the subjects of predicates 0 and 1, heads 4-7 the objects of 2 and 3,
    each pair filled twice; head 8 has mentions with no predicate."""
    heads, predicates, positions = [], [], []
    for head in range(8):
        pair_predicates, position = ((0, 1), 0) if head < 4 else ((2, 3), 1)
        for predicate in pair_predicates * 2:
            heads.append(head)
            predicates.append(predicate)
            positions.append(position)
    heads += [8, 8]
    predicates += [-1, -1]
    positions += [3, 3]
    return np.array(heads), np.array(predicates), np.array(positions)


def _cosines(vectors: np.ndarray) -> np.ndarray:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return unit @ unit.T


def test_role_vectors_join_heads_that_fill_the_same_pairs_and_part_the_others():
    heads, predicates, positions = _fillers()
    vectors = head_roles.role_vectors(heads, predicates, positions, n_heads=9, dims=4)
    assert vectors.shape[0] == 9
    cosines = _cosines(vectors[:8])
    assert np.allclose(cosines[:4, :4], 1.0, atol=1e-6)
    assert np.allclose(cosines[4:, 4:], 1.0, atol=1e-6)
    assert np.allclose(cosines[:4, 4:], 0.0, atol=1e-6)
    assert np.allclose(vectors[8], 0.0)         # no filler pair: a zero row


def test_the_products_of_the_role_vectors_are_the_same_on_every_run():
    """The SVD fixes its columns only up to sign and rotation; the term sees the products."""
    heads, predicates, positions = _fillers()
    first = head_roles.role_vectors(heads, predicates, positions, n_heads=9, dims=3)
    again = head_roles.role_vectors(heads, predicates, positions, n_heads=9, dims=3)
    assert np.allclose(first @ first.T, again @ again.T, atol=1e-12)
    assert np.abs(first @ first.T).max() > 0.1


def test_position_profiles_are_centred_shares():
    heads, _, positions = _fillers()
    profiles = head_roles.position_profiles(heads, positions, n_heads=9)
    assert profiles.shape == (9, 4)
    assert np.allclose(profiles.mean(axis=0), 0.0)
    assert np.argmax(profiles[0]) == 0 and np.argmax(profiles[5]) == 1
    assert np.argmax(profiles[8]) == 3


def _features() -> EntityFeatures:
    """Mentions whose head vectors and types say nothing: every head is alike in W_H."""
    heads, predicates, positions = _fillers()
    heads, predicates, positions = heads[:-2], predicates[:-2], positions[:-2]
    n = heads.shape[0]
    return EntityFeatures(
        head_ids=heads, head_vectors=np.ones((n, 4)),
        predicate_vectors=np.ones((n, 4)), dep_ids=positions, types=sp.csr_matrix(
            (np.ones(n), (np.arange(n), np.zeros(n, dtype=np.int64))), shape=(n, 1)),
        sentence_ids=np.arange(n), doc_ids=np.arange(n) // 4,
        pmi=sp.csr_matrix((8, 8)), predicate_ids=predicates, argument_positions=positions,
    )


def test_the_term_makes_the_class_cut_follow_the_roles_of_the_parts_it_is_passed_in():
    features = _features()
    vectors = head_roles.role_vectors(features.head_ids, features.predicate_ids,
                                      features.argument_positions, n_heads=8, dims=4)
    parts = head_roles.role_term_in_head_classes(vectors, weight=5.0)
    names = [term.name for _, term in parts.class_terms(features,
                                                          similarity.SimilarityOptions())]
    classes = semantic_classes(features, 2, seed=0, class_terms=parts.class_terms)
    with pytest.raises(ValueError, match="training cut only"):
        parts.class_terms(features, similarity.SimilarityOptions(), features)
    assert names == ["type", "cos_h", "role"]
    by_head = classes[np.unique(features.head_ids, return_index=True)[1]]
    assert len(set(by_head[:4])) == 1 and len(set(by_head[4:])) == 1
    assert by_head[0] != by_head[4]
    assert parts.template_terms is similarity.template_terms


def test_each_weight_runs_at_100_dims_and_weight_1_at_the_other_dims():
    named = head_roles.settings([0.5, 1.0], [30, 100], position_profile=True)
    assert [(w, d) for _, w, d in named] == [(0.5, 100), (1.0, 100), (1.0, 30), (1.0, None)]
    assert named[0][0] == "role weight 0.5, 100 dims"
