"""Sentence constraint and AMP (Eqs. 7-9 and the appendix)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from aesi_lib.model.amp import rotation_residual, slot_step_graph, solve_amp, template_step_graph
from aesi_lib.model.constraint import (
    SentenceConstraint,
    same_sentence_product,
    same_slot_pairs,
    sentence_indicator,
    slot_constraint,
    template_constraint,
)
from aesi_lib.model.ncut import indicator_matrix
from aesi_lib.model.objective import joint_objective
from aesi_lib.model.sc import solve_sc
from aesi_lib.model.similarity import slot_similarity, template_similarity
from aesi_lib.model.synthetic import planted_features


@pytest.fixture(scope="module")
def small():
    f, templates, slots = planted_features(300, seed=11, dim=8)
    return f, templates, slots, template_similarity(f), slot_similarity(f)


@pytest.fixture(scope="module")
def planted():
    # Noisy enough that the unconstrained cuts are far from perfect.
    f, templates, slots = planted_features(3000, seed=1, noise=2.0, generic_fraction=0.3)
    return f, templates, slots, template_similarity(f), slot_similarity(f)


def dense_jjt(sentence_ids: np.ndarray) -> np.ndarray:
    return (sentence_ids[:, None] == sentence_ids[None, :]).astype(float)


def test_sentence_indicator_and_traces(small) -> None:
    f, _, _, _, _ = small
    n = f.n_entities
    J = sentence_indicator(f.sentence_ids)
    assert J.shape == (n, np.unique(f.sentence_ids).size)
    JJt = dense_jjt(f.sentence_ids)
    np.testing.assert_array_equal((J @ J.T).toarray(), JJt)
    X = np.random.default_rng(0).standard_normal((n, 3))
    np.testing.assert_allclose(same_sentence_product(J, X), JJt @ X)
    rng = np.random.default_rng(1)
    lt, ls = rng.integers(6, size=n), rng.integers(4, size=n)
    XT, XS = indicator_matrix(lt, 6), indicator_matrix(ls, 4)
    E = np.ones((n, n))
    assert template_constraint(J, lt, 6) == pytest.approx(np.trace(XT.T @ JJt @ XT))
    assert slot_constraint(J, ls, 4) == pytest.approx(np.trace(XS.T @ (E - JJt) @ XS))
    assert same_slot_pairs(J, ls, 4) == pytest.approx(np.trace(XS.T @ JJt @ XS))
    assert slot_constraint(J, ls, 4) > 0  # "it can be proved that it is positive"


@pytest.mark.parametrize("kind", ["same", "complement", "normalized"])
def test_constraint_operator_equals_dense(small, kind: str) -> None:
    f, _, _, _, W_S = small
    n = f.n_entities
    J = sentence_indicator(f.sentence_ids)
    d = W_S.degrees()
    JJt = dense_jjt(f.sentence_ids)
    if kind == "same":
        C = JJt
    elif kind == "complement":
        C = np.ones((n, n)) - JJt
    else:
        mates = JJt.sum(axis=1) - 1
        C = (JJt - np.eye(n)) / np.where(mates > 0, mates, 1)[:, None]
        np.testing.assert_allclose(C, C.T)
    D = np.diag(d)
    got = SentenceConstraint(J, d, kind) @ np.eye(n)  # type: ignore[arg-type]
    np.testing.assert_allclose(got, 0.5 * (D @ C + C @ D), rtol=1e-12, atol=1e-9)


def test_literal_operators_follow_the_appendix(small) -> None:
    f, _, _, W_T, W_S = small
    n = f.n_entities
    J = sentence_indicator(f.sentence_ids)
    rng = np.random.default_rng(2)
    lt, ls = rng.integers(6, size=n), rng.integers(4, size=n)
    XT, XS = indicator_matrix(lt, 6), indicator_matrix(ls, 4)
    JJt, E = dense_jjt(f.sentence_ids), np.ones((n, n))
    WS, WT = W_S @ np.eye(n), W_T @ np.eye(n)
    DS, DT = np.diag(WS.sum(1)), np.diag(WT.sum(1))
    f_t = np.trace(XT.T @ JJt @ XT)
    f_s = np.trace(XS.T @ (E - JJt) @ XS)
    omega_s, omega_t = n / 4, n / 6
    ws_star = (
        0.5 * f_t * DS @ (E - JJt) * omega_s + WS / 4 + 0.5 * f_t * omega_s * (E - JJt) @ DS
    )
    wt_star = JJt @ DT * omega_t / (2 * f_s) + WT / 6 + omega_t * DT @ JJt / (2 * f_s)
    gs = slot_step_graph(W_S, np.diag(DS), J, lt, 6, 4, "literal")
    gt = template_step_graph(W_T, np.diag(DT), J, ls, 6, 4, "literal")
    np.testing.assert_allclose(gs.operator @ np.eye(n), ws_star, rtol=1e-10)
    np.testing.assert_allclose(gt.operator @ np.eye(n), wt_star, rtol=1e-10)
    np.testing.assert_array_equal(gs.degrees, np.diag(DS))  # D*_S = D_S
    assert gs.coefficient == pytest.approx(f_t * omega_s)
    assert gt.coefficient == pytest.approx(omega_t / f_s)


def test_scaled_operator_has_unit_relative_weight(small) -> None:
    f, _, _, _, W_S = small
    J = sentence_indicator(f.sentence_ids)
    d = W_S.degrees()
    truth_like = f.sentence_ids % 6  # every sentence inside one template: coupling factor 1
    g = slot_step_graph(W_S, d, J, truth_like, 6, 4, "scaled", weight=0.5)
    # λ = 0.5 and a_T = 1: the constraint's total weight is half the graph's.
    assert g.coefficient < 0
    total_c = -g.coefficient * np.sum(g.constraint @ np.ones(f.n_entities))
    assert total_c == pytest.approx(0.5 * d.sum())


def test_rotation_residual_is_zero_exactly_for_permutations() -> None:
    rng = np.random.default_rng(3)
    old = rng.integers(4, size=200)
    perm = np.array([2, 0, 3, 1])
    assert rotation_residual(perm[old], old, 4) == pytest.approx(0.0, abs=1e-14)
    changed = old.copy()
    changed[:10] = (changed[:10] + 1) % 4
    assert rotation_residual(changed, old, 4) > 0.01
    # An empty cluster in both partitions still counts as "the same partition".
    sparse_old = np.where(old == 3, 0, old)
    assert rotation_residual(perm[sparse_old], sparse_old, 4) == pytest.approx(0.0, abs=1e-14)
    merged = np.where(old == 1, 0, old)
    assert rotation_residual(merged, old, 4) > 0.1


def test_amp_records_history_and_calls_progress(small) -> None:
    f, _, _, W_T, W_S = small
    calls = []
    res = solve_amp(
        W_T, W_S, f.sentence_ids, 6, 4, mode="scaled", weight=0.3, init="random",
        max_iter=4, seed=0, progress=lambda i, terms: calls.append((i, terms["objective"])),
    )
    assert len(res.history) == res.n_iter + 1 == len(calls)
    assert [c[0] for c in calls] == list(range(res.n_iter + 1))
    for entry in res.history:
        for key in ("eps1", "eps2", "eps3", "eps3_ratio", "objective", "f_t", "f_s"):
            assert np.isfinite(entry[key]), key
        assert entry["objective"] == pytest.approx(entry["eps1"] + entry["eps2"] + entry["eps3"])
    for entry in res.history[1:]:
        for step in ("slot_step", "template_step"):
            info = entry[step]
            for key in ("coefficient", "cut_scale", "constraint_scale", "max_residual"):
                assert key in info
        assert entry["delta"] == pytest.approx(entry["delta_t"] + entry["delta_s"])
    if res.converged:
        assert res.history[-1]["delta"] < 1e-6
    assert res.template_labels.shape == res.slot_labels.shape == (f.n_entities,)


def test_max_iter_caps_the_loop(small) -> None:
    f, _, _, W_T, W_S = small
    res = solve_amp(W_T, W_S, f.sentence_ids, 6, 4, init="random", max_iter=1, tol=-1.0)
    assert res.n_iter == 1 and not res.converged and len(res.history) == 2


def test_scaled_with_zero_weight_is_sc(small) -> None:
    f, _, _, W_T, W_S = small
    lt, ls, _ = solve_sc(W_T, W_S, 6, 4, seed=0)
    for init in ("sc", "random"):
        res = solve_amp(W_T, W_S, f.sentence_ids, 6, 4, mode="scaled", weight=0.0, init=init)
        np.testing.assert_array_equal(res.template_labels, lt)
        np.testing.assert_array_equal(res.slot_labels, ls)
        assert res.converged
        assert res.history[-1]["slot_step"]["coefficient"] == 0.0


def test_literal_runs_and_reports_term_scales(planted) -> None:
    f, _, slots, W_T, W_S = planted
    res = solve_amp(W_T, W_S, f.sentence_ids, 6, 4, mode="literal", max_iter=3)
    step = res.history[1]["slot_step"]
    # f(X_T)·Ω_S is huge and the constraint dwarfs W_S/|S| in the slot step ...
    assert step["coefficient"] > 1e6
    assert step["scale_ratio"] > 1e10
    # ... so the slot step no longer sees W_S: the partition says nothing about the slots.
    assert adjusted_rand_score(slots, res.slot_labels) < 0.05
    # The template step's coefficient Ω_T / (2 f(X_S)) is tiny.
    assert res.history[1]["template_step"]["coefficient"] < 1e-2


def test_constraint_improves_planted_templates_and_slots(planted) -> None:
    f, templates, slots, W_T, W_S = planted
    lt, ls, _ = solve_sc(W_T, W_S, 6, 4, seed=0)
    res = solve_amp(W_T, W_S, f.sentence_ids, 6, 4, mode="scaled", weight=0.3, seed=0)
    sc_t, sc_s = adjusted_rand_score(templates, lt), adjusted_rand_score(slots, ls)
    amp_t = adjusted_rand_score(templates, res.template_labels)
    amp_s = adjusted_rand_score(slots, res.slot_labels)
    assert amp_t > sc_t + 0.1
    assert amp_s > sc_s + 0.03
    first, last = res.history[0], res.history[-1]
    assert last["template_agreement"] > first["template_agreement"]
    assert last["slot_disagreement"] > first["slot_disagreement"]


def test_joint_objective_terms(small) -> None:
    f, templates, slots, W_T, W_S = small
    J = sentence_indicator(f.sentence_ids)
    terms = joint_objective(
        W_T, W_T.degrees(), W_S, W_S.degrees(), J, templates, slots, 6, 4
    )
    # Planted: every sentence is in one template and its slots differ.
    assert terms["template_agreement"] == pytest.approx(1.0)
    assert terms["slot_disagreement"] == pytest.approx(1.0)
    assert terms["same_slot_pairs"] == pytest.approx(f.n_entities)  # only self pairs
    assert terms["eps3"] == pytest.approx(terms["f_t"] * terms["f_s"])
