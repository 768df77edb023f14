"""Consensus templates (``aesi_lib.model.consensus``): the members' weights, the co-association
graph, its cut, and its use in ``induce``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from aesi_lib.errors import ConfigError
from aesi_lib.model.carry import PreviousLabels, carry_ids
from aesi_lib.model.consensus import coassociation_operator, member_context_weights
from aesi_lib.model.induction import ModelConfig, consensus_members, induce
from aesi_lib.model.ncut import normalized_cut
from aesi_lib.model.similarity import SimilarityOptions, template_similarity
from aesi_lib.model.synthetic import planted_features
from aesi_lib.model.tying import tied_operator, unit_indicator


def test_member_weights_are_spaced_evenly_around_the_run_weight() -> None:
    weights = member_context_weights(0.75, 0.25, 6)
    np.testing.assert_allclose(weights, [0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    assert weights.mean() == pytest.approx(0.75)
    assert member_context_weights(0.75, 0.0, 1).tolist() == [0.75]
    assert member_context_weights(0.0, 0.25, 1).tolist() == [0.0]


@pytest.mark.parametrize(("weight", "spread", "members", "match"), [
    (0.75, 0.25, 0, "members"), (0.5, 0.6, 3, "spread"), (0.5, -0.1, 3, "spread"),
])
def test_member_weights_reject_bad_arguments(weight, spread, members, match) -> None:
    with pytest.raises(ValueError, match=match):
        member_context_weights(weight, spread, members)


def test_coassociation_is_the_share_of_partitions_that_join_two_items() -> None:
    partitions = [np.array([0, 0, 1, 1, 2]), np.array([1, 1, 1, 0, 0]),
                  np.array([0, 1, 2, 3, 3])]
    dense = np.mean([(p[:, None] == p[None, :]).astype(float) for p in partitions], axis=0)
    C = coassociation_operator(partitions)
    np.testing.assert_allclose(C @ np.eye(5), dense)
    np.testing.assert_allclose(C @ np.ones(5), dense.sum(axis=1))
    x = np.arange(5.0)
    np.testing.assert_allclose(C.rmatvec(x), C.matvec(x))


def test_the_tied_coassociation_is_its_units_sum() -> None:
    rng = np.random.default_rng(0)
    units = np.concatenate([np.arange(6), rng.integers(6, size=14)])
    # Members cut units (every mention of a unit in one cluster), as the consensus' do, and
    # one member that does not, which the tied form must sum all the same.
    partitions = [rng.integers(3, size=6)[units], rng.integers(4, size=6)[units],
                  rng.integers(3, size=20)]
    C = coassociation_operator(partitions)
    G = unit_indicator(units)
    tied = tied_operator(C, G)
    np.testing.assert_allclose(tied @ np.eye(6), G.T @ (C @ np.eye(20)) @ G, atol=1e-12)
    np.testing.assert_allclose(tied.rmatvec(np.arange(6.0)), tied.matvec(np.arange(6.0)))


def test_coassociation_rejects_mismatched_partitions() -> None:
    with pytest.raises(ValueError, match="no partition"):
        coassociation_operator([])
    with pytest.raises(ValueError, match="3 labels"):
        coassociation_operator([np.array([0, 1, 1]), np.array([0, 1])])
    with pytest.raises(ValueError, match="labels >= 0"):
        coassociation_operator([np.array([0, -1, 1])])


def test_cut_of_the_coassociation_keeps_what_most_members_agree_on() -> None:
    truth = np.repeat(np.arange(3), 6)
    rng = np.random.default_rng(0)
    partitions = []
    for _ in range(7):
        noisy = truth.copy()
        moved = rng.choice(truth.size, size=2, replace=False)
        noisy[moved] = (noisy[moved] + 1) % 3
        partitions.append(noisy)
    labels = normalized_cut(coassociation_operator(partitions), 3, seed=0, n_init=4)
    assert len(set(zip(labels.tolist(), truth.tolist(), strict=True))) == 3


def _context_features(seed: int = 0):
    features, templates, _ = planted_features(300, n_templates=3, n_slots=4, seed=seed)
    rng = np.random.default_rng(seed)
    context = np.eye(3, 16)[templates] * 6.0 + rng.normal(size=(templates.size, 16))
    predicates = rng.integers(0, 40, size=templates.size) * 3 + templates
    return dataclasses.replace(features, context_vectors=context.astype(np.float32),
                               predicate_ids=predicates), templates


def test_members_mean_graph_is_w_t_at_the_run_weight() -> None:
    # Why aesi extract needs no rule of its own: W_T is linear in the context weight, so the
    # members' mean graph is W_T at the run's weight, the graph extraction scores against.
    features, _ = _context_features()
    config = ModelConfig(mode="sc", n_templates=3, consensus_members=5, consensus_spread=0.3,
                         similarity=SimilarityOptions(context_weight=0.5))
    x = np.random.default_rng(1).normal(size=features.n_entities)
    W_T = template_similarity(features, config.similarity)
    graphs = [W for W, _ in consensus_members(W_T, config)]
    assert len(graphs) == 5
    mean = np.mean([W @ x for W in graphs], axis=0)
    np.testing.assert_allclose(mean, W_T @ x, rtol=1e-10)
    # Each member is the graph template_similarity builds at its weight, without rebuilding.
    for W, weight in zip(graphs, member_context_weights(0.5, 0.3, 5), strict=True):
        rebuilt = template_similarity(features, dataclasses.replace(
            config.similarity, context_weight=float(weight)))
        np.testing.assert_array_equal(W @ x, rebuilt @ x)
    assert consensus_members(W_T, dataclasses.replace(
        config, consensus_members=1, consensus_spread=0.0)) is None


def _planted_consensus_config() -> ModelConfig:
    """Three members around a context weight that separates the planted templates."""
    return ModelConfig(mode="sc", n_templates=3, n_slots=4, n_init=2, template_unit="predicate",
                       consensus_members=3, consensus_spread=1.0,
                       similarity=SimilarityOptions(context_weight=3.0))


def test_induce_with_consensus_ties_templates_and_records_the_members() -> None:
    features, templates = _context_features()
    config = _planted_consensus_config()
    result = induce(features, config)
    labels = result.template_labels
    assert labels.min() >= 0 and labels.max() < 3
    for unit in np.unique(features.predicate_ids):
        assert len(set(labels[features.predicate_ids == unit].tolist())) == 1
    step = result.history[0]["template_step"]
    assert len(step["members"]) == 3
    assert all(m["max_relative_residual"] < 1e-6 for m in step["members"])
    # The planted templates are what every member finds; their consensus keeps them.
    assert len(set(zip(labels.tolist(), templates.tolist(), strict=True))) == 3
    again = induce(features, config)
    np.testing.assert_array_equal(again.template_labels, labels)


def test_induce_says_which_part_of_the_solve_starts() -> None:
    features, _ = _context_features()
    config = _planted_consensus_config()
    stages: list[tuple[str, int, int]] = []
    reported = induce(features, config, on_stage=lambda *stage: stages.append(stage))
    assert stages[:3] == [("template cut", 0, 3), ("template cut", 1, 3),
                          ("template cut", 2, 3)]
    if config.slot_model == "factored":
        assert stages[3:] == [("slot classes", 0, 1)]
    # Reporting changes no label.
    np.testing.assert_array_equal(reported.template_labels,
                                  induce(features, config).template_labels)


def test_an_update_warm_starts_the_consensus_cut_and_keeps_the_template_ids() -> None:
    # aesi update: the consensus cut starts from the previous templates, each member from its
    # own last cut (or the previous templates), and the ids of the previous run are kept.
    features, _ = _context_features()
    config = _planted_consensus_config()
    first = induce(features, config)
    assert first.template_members.shape == (3, features.n_entities)
    assert "template_members" not in first.to_dict()
    shuffled = (first.template_labels + 1) % 3
    previous = PreviousLabels(shuffled, first.slot_labels.copy())
    solved = induce(features, config, previous=previous)
    again = carry_ids(solved.template_labels, solved.slot_labels, previous, config)
    np.testing.assert_array_equal(again.template_labels, shuffled)
    assert again.carried["template_kept"] == features.n_entities
    # With the members' own last cuts, each member starts from its own partition.
    with_members = induce(features, config, previous=PreviousLabels(
        shuffled, first.slot_labels.copy(), first.template_members))
    np.testing.assert_array_equal(with_members.template_labels, shuffled)
    np.testing.assert_array_equal(with_members.template_members, first.template_members)


@pytest.mark.parametrize(("changes", "key"), [
    ({"consensus_members": 0}, "consensus_members"),
    ({"consensus_members": 3, "consensus_spread": 0.2, "mode": "scaled"},
     "consensus_members"),
    ({"consensus_members": 3, "consensus_spread": 0.6}, "consensus_spread"),
    ({"consensus_members": 3}, "consensus_spread"),
])
def test_config_rejects_inconsistent_consensus_settings(changes, key) -> None:
    with pytest.raises(ConfigError, match=key):
        ModelConfig(**{"mode": "sc", "similarity": SimilarityOptions(context_weight=0.5),
                       **changes})


def test_config_without_context_names_the_consensus_switch() -> None:
    with pytest.raises(ConfigError, match="consensus_members=1"):
        ModelConfig(mode="sc", consensus_members=11, consensus_spread=0.25)
    # One member leaves the spread unused, so turning context off takes one more key only.
    assert ModelConfig(mode="sc", consensus_members=1, consensus_spread=0.25)


def test_the_solve_logs_each_member_cut_and_the_time_the_others_will_take() -> None:
    from aesi_lib.steps.solve import SolveProgress

    class Log:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def info(self, message: str, *args: object) -> None:
            self.lines.append(message % args)

    log = Log()
    features, _ = _context_features()
    config = _planted_consensus_config()
    induce(features, config, on_stage=SolveProgress(log))
    slots = ["solve: templates cut"] if config.slot_model == "factored" else []
    assert [line.split(" (")[0] for line in log.lines] == [
        "solve: 1 of 3 consensus members cut", "solve: 2 of 3 consensus members cut", *slots]
    assert log.lines[0].endswith(" s left for the others)")
