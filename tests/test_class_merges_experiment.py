"""experiments/class_merges.py: the classes of a position merged by their predicate profiles,
for the subjects only (what the default adopted) or for every position."""

from __future__ import annotations

import numpy as np

from aesi_lib.model.subject_merge import merged_slots, subject_merge_table
from experiments import class_merges

# 4 positions x 2 classes: subject slots 0-1, object slots 2-3.
TEMPLATES = np.zeros(8, dtype=np.int64)
SLOTS = np.array([0, 0, 1, 1, 2, 2, 3, 3])
PREDICATES = np.array(["kill", "attack", "kill", "attack", "kill", "attack", "kill", "attack"])


def test_subject_setting_is_the_library_rule():
    ours = class_merges.merged_slots(TEMPLATES, SLOTS, PREDICATES, 2, (0,), 0.9)
    table = subject_merge_table(TEMPLATES, SLOTS, PREDICATES, 1, 8, 0.9)
    np.testing.assert_array_equal(ours, merged_slots(TEMPLATES, SLOTS, table))
    assert ours.tolist() == [0, 0, 0, 0, 2, 2, 3, 3]


def test_every_position_setting_merges_the_objects_too():
    ours = class_merges.merged_slots(TEMPLATES, SLOTS, PREDICATES, 2, (0, 1, 2, 3), 0.9)
    assert ours.tolist() == [0, 0, 0, 0, 2, 2, 2, 2]
    assert class_merges.setting_name((0,), 0.9).startswith("subject classes")
