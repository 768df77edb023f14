"""Labels carried across solutions (``aesi_lib.model.carry``): mention lookup, renumbering,
warm-started cuts that keep a previous partition on a slightly larger corpus."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from aesi_lib.model import ModelConfig, induce, planted_features
from aesi_lib.model.carry import (
    PreviousLabels,
    align_labels,
    carry_ids,
    label_changes,
    previous_labels,
)
from aesi_lib.model.ncut import discretize


def test_previous_labels_are_found_by_mention_key():
    old = pd.DataFrame({"doc_id": ["a", "a", "b"], "sent_id": [0, 1, 0],
                        "head_index": [2, 0, 1], "predicate": ["kill", "say", "bomb"],
                        "dep": ["dobj", "nsubj", "dobj"]})
    new = pd.concat([old.iloc[[2]], pd.DataFrame({"doc_id": ["c"], "sent_id": [0],
                    "head_index": [0], "predicate": ["kill"], "dep": ["nsubj"]}),
                     old.iloc[[0]]], ignore_index=True)
    prev = previous_labels(new, old, np.array([4, 5, 6]), np.array([1, 2, 3]))
    np.testing.assert_array_equal(prev.template, [6, -1, 4])
    np.testing.assert_array_equal(prev.slot, [3, -1, 1])
    assert label_changes(np.array([6, 0, 0]), np.array([3, 0, 1]), prev) == {
        "previous_mentions": 2, "new_mentions": 1, "template_kept": 1, "slot_kept": 2,
        "template_kept_share": 0.5, "slot_kept_share": 1.0}
    assert prev.template_members is None
    members = np.array([[7, 8, 9], [0, 1, 2]])
    with_members = previous_labels(new, old, np.array([4, 5, 6]), np.array([1, 2, 3]), members)
    np.testing.assert_array_equal(with_members.template_members, [[9, -1, 7], [2, -1, 0]])
    np.testing.assert_array_equal(with_members.template, prev.template)


def test_align_labels_undoes_a_permutation_and_ignores_unknown():
    previous = np.array([0, 0, 1, 1, 2, 2, -1])
    renumbered = np.array([2, 2, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(align_labels(renumbered, previous, 3), [0, 0, 1, 1, 2, 2, 2])
    np.testing.assert_array_equal(align_labels(renumbered, np.full(7, -1), 3), renumbered)


def test_carrying_ids_renumbers_a_partition_and_counts_who_kept_them():
    config = ModelConfig(n_templates=3, n_slots=4, mode="sc", slot_model="cut",
                         class_scope="corpus", consensus_members=1)
    previous = PreviousLabels(np.array([0, 0, 1, 1, 2, 2, -1]),
                              np.array([3, 3, 0, 1, 1, 2, -1]))
    template = np.array([2, 2, 0, 0, 1, 0, 1])          # previous templates, renumbered,
    slot = np.array([1, 1, 2, 3, 3, 0, 0])              # and one template moved
    carried = carry_ids(template, slot, previous, config)
    np.testing.assert_array_equal(carried.template_labels, [0, 0, 1, 1, 2, 1, 2])
    np.testing.assert_array_equal(carried.slot_labels, [3, 3, 0, 1, 1, 2, 2])
    assert carried.carried == label_changes(carried.template_labels, carried.slot_labels,
                                            previous)
    assert (carried.carried["template_kept"], carried.carried["slot_kept"]) == (5, 6)
    # The partition is the solution's own: only its numbers changed.
    for before, after in ((template, carried.template_labels), (slot, carried.slot_labels)):
        assert len(set(zip(before.tolist(), after.tolist(), strict=True))) == \
            len(set(before.tolist()))


def test_discretize_from_a_warm_start_keeps_that_partition_and_its_numbers():
    rng = np.random.default_rng(0)
    truth = rng.integers(3, size=300)
    V = np.eye(3)[truth] + 0.05 * rng.standard_normal((300, 3))
    start = (truth + 1) % 3                     # the same partition, other numbers
    start[::10] = -1                            # some rows without a previous label
    np.testing.assert_array_equal(discretize(V, init_labels=start), (truth + 1) % 3)
    with pytest.raises(ValueError, match="at least one row"):
        discretize(V, init_labels=np.full(300, -1))


def _svd_with_other_null_bases(flip: float):
    """np.linalg.svd as another machine's LAPACK may give it: the singular vectors of the
    zero singular value in another basis (here, its left one with the other sign: for a zero
    singular value the two signs are independent)."""
    plain = np.linalg.svd

    def svd(a, *args, **kwargs):
        U, sigma, Wt = plain(a, *args, **kwargs)
        if U.ndim == 2 and U.shape[0] == U.shape[1] and sigma[-1] < 1e-10 * max(sigma[0], 1e-300):
            U = U.copy()
            U[:, -1] *= flip
        return U, sigma, Wt
    return svd


@pytest.mark.parametrize("flip", [1.0, -1.0])
def test_a_warm_start_with_an_empty_cluster_gives_its_partition_back(monkeypatch, flip):
    # Two clusters of three and a third left empty; one row of cluster 0 lies mostly along
    # the null direction of Ṽᵀ X. An axis of the empty cluster pointing towards that row would
    # take it out of cluster 0, so the completion must point away from it on any machine.
    V = np.array([[1.0, 0.02, 0.0], [1.0, -0.02, 0.0], [0.3, 0.0, 0.95],
                  [0.0, 1.0, 0.01], [0.03, 1.0, 0.0], [0.0, 1.0, -0.01]])
    start = np.array([0, 0, 0, 1, 1, 1])
    monkeypatch.setattr(np.linalg, "svd", _svd_with_other_null_bases(flip))
    np.testing.assert_array_equal(discretize(V, init_labels=start), start)


def test_every_partition_the_discretisation_returns_comes_back_from_a_warm_start():
    # Small random embeddings, many of whose discretisations leave a cluster empty.
    with_empty = 0
    for seed in range(120):
        rng = np.random.default_rng(seed)
        k, n = int(rng.integers(3, 10)), int(rng.integers(10, 40))
        V = rng.standard_normal((n, k)) + 2.0 * np.eye(k)[rng.integers(k, size=n)]
        labels = discretize(V, seed=seed)
        with_empty += int(np.bincount(labels, minlength=k).min() == 0)
        np.testing.assert_array_equal(discretize(V, init_labels=labels), labels, str(seed))
    assert with_empty >= 20


def _tied(seed: int = 1):
    f, _, _ = planted_features(6000, seed=seed, noise=1.5)
    pred = np.unique(np.round(f.predicate_vectors[:, 0], 1), return_inverse=True)[1]
    return dataclasses.replace(f, predicate_ids=pred.astype(np.int64),
                               argument_positions=f.dep_ids % 4)


def _rows(f, rows):
    names = ("head_ids", "head_vectors", "predicate_vectors", "dep_ids", "sentence_ids",
             "doc_ids", "predicate_ids", "argument_positions")
    return dataclasses.replace(f, types=f.types[rows], **{n: getattr(f, n)[rows] for n in names})


def test_a_warm_started_solve_keeps_the_ids_of_a_grown_corpus():
    """2 % more documents: warm-started, every old mention keeps its template and slot; solved
    afresh and only renumbered, many do not (the cut lands on another local optimum)."""
    f = _tied()
    config = ModelConfig(n_templates=12, n_slots=16, mode="sc", template_unit="predicate",
                         slot_unit="pattern", slot_model="factored", n_init=4)
    old_rows = f.doc_ids % 50 != 0
    before = induce(_rows(f, old_rows), config)
    prev_t, prev_s = np.full(f.n_entities, -1), np.full(f.n_entities, -1)
    prev_t[old_rows], prev_s[old_rows] = before.template_labels, before.slot_labels
    previous = PreviousLabels(prev_t, prev_s)
    solved = induce(f, config, previous=previous)
    warm = carry_ids(solved.template_labels, solved.slot_labels, previous, config)
    print("\nwarm start:", warm.carried)
    assert warm.carried["previous_mentions"] == int(old_rows.sum())
    assert warm.carried["template_kept_share"] >= 0.95
    assert warm.carried["slot_kept_share"] >= 0.95
    cold = align_labels(induce(f, config).template_labels, prev_t, 12)
    print("afresh, renumbered:", float(np.mean(cold[old_rows] == prev_t[old_rows])))
    assert np.mean(cold[old_rows] == prev_t[old_rows]) < warm.carried["template_kept_share"]


def test_labels_of_another_configuration_are_refused():
    f = _tied()
    previous = PreviousLabels(np.full(f.n_entities, 30), np.zeros(f.n_entities, np.int64))
    with pytest.raises(ValueError, match="another configuration"):
        induce(f, ModelConfig(n_templates=12, n_slots=16, mode="sc", slot_model="factored",
                              template_unit="predicate"), previous=previous)
