"""A solution's files (``aesi_lib.model.solution_files``): labels and summary round trips, the
consensus members only when there are some, and damaged files named in the error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from aesi_lib.errors import InputError
from aesi_lib.model import ModelConfig, induce, planted_features
from aesi_lib.model.solution_files import (
    SolutionLabels,
    load_labels,
    load_summary,
    save_labels,
    save_summary,
)


def test_labels_round_trip_with_and_without_members(tmp_path):
    template, slot = np.array([2, 0, 1, 2]), np.array([3, 3, 0, 1])
    plain = tmp_path / "solutions" / "plain.npz"
    save_labels(plain, SolutionLabels(template, slot))
    back = load_labels(plain)
    np.testing.assert_array_equal(back.template, template)
    np.testing.assert_array_equal(back.slot, slot)
    assert back.template_members is None
    with np.load(plain) as z:                      # the layout other readers rely on
        assert sorted(z.files) == ["slot", "template"]
    members = np.array([[2, 0, 1, 1], [2, 2, 1, 0]])
    with_members = tmp_path / "solutions" / "members.npz"
    save_labels(with_members, SolutionLabels(template, slot, members))
    np.testing.assert_array_equal(load_labels(with_members).template_members, members)
    assert load_labels(with_members).role_table is None
    # An update's labels keep the role table of the solution it placed into.
    roles = np.array([[0, 0, 2, 3], [0, 1, 2, 3], [0, 1, 0, 3]])
    kept = tmp_path / "solutions" / "kept.npz"
    save_labels(kept, SolutionLabels(template, slot, members, roles))
    np.testing.assert_array_equal(load_labels(kept).role_table, roles)
    np.testing.assert_array_equal(load_labels(kept).template_members, members)
    assert not list((tmp_path / "solutions").glob("*.part"))


def test_the_summary_is_the_result_without_its_labels(tmp_path):
    features, _, _ = planted_features(300, seed=0)
    result = induce(features, ModelConfig(n_templates=3, n_slots=4, mode="sc", max_iter=2))
    save_labels(tmp_path / "s.npz", SolutionLabels.of(result))
    save_summary(tmp_path / "s.json", result)
    summary = load_summary(tmp_path / "s.json")
    expected = json.loads(json.dumps(result.to_dict(), default=str))
    del expected["template_labels"], expected["slot_labels"]
    assert summary == expected
    assert summary["timings"]["total"] == pytest.approx(result.timings["total"])
    labels = load_labels(tmp_path / "s.npz")
    np.testing.assert_array_equal(labels.template, result.template_labels)
    np.testing.assert_array_equal(labels.slot, result.slot_labels)


def test_damaged_files_are_named(tmp_path):
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip file")
    with pytest.raises(InputError, match="damaged labels file") as exc:
        load_labels(broken)
    assert str(broken) in str(exc.value)
    np.savez(tmp_path / "no-slots.npz", template=np.zeros(3, dtype=np.int64))
    with pytest.raises(InputError, match="damaged labels file"):
        load_labels(tmp_path / "no-slots.npz")
    (tmp_path / "s.json").write_text("{not json")
    with pytest.raises(InputError, match="unreadable solve summary"):
        load_summary(tmp_path / "s.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(InputError, match="JSON object"):
        load_summary(tmp_path / "list.json")
