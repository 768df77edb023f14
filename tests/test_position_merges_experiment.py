"""experiments/position_merges.py: the positions of a class joined when their predicates differ."""

from __future__ import annotations

import numpy as np

from experiments import position_merges

# 4 positions x 2 classes: subject slots 0-1, object 2-3, locative 4-5, other 6-7. In template
# 0, class 0 is the subject of "explode" and the object of "place" (different predicates);
# class 1 is the subject and the object of "kill" (the same predicate).
CUT = np.array([0, 0, 2, 2, 1, 1, 3, 3])
PREDICATES = np.array(["explode", "explode", "place", "place", "kill", "kill", "kill", "kill"])
TEMPLATES = np.zeros(8, dtype=np.int64)


def test_positions_of_different_predicates_join_and_those_of_the_same_do_not():
    new = position_merges.position_merge(TEMPLATES, CUT, CUT, PREDICATES, 2, "every pair", 0.3,
                                         least=2)
    assert new.tolist() == [0, 0, 0, 0, 1, 1, 3, 3]


def test_scope_least_count_and_the_unconditional_join():
    # The subject may not join under "no subject", and pairs under n mentions take no part.
    for scope, least in (("no subject", 2), ("every pair", 3)):
        new = position_merges.position_merge(TEMPLATES, CUT, CUT, PREDICATES, 2, scope, 0.3,
                                             least=least)
        assert new.tolist() == CUT.tolist()
    # Without a threshold the object and the locative of a class join whatever their predicates.
    cut = np.array([2, 2, 4, 4])
    new = position_merges.position_merge(np.zeros(4), cut, cut, np.array(["a", "a", "a", "a"]),
                                         2, "no subject", None, least=2)
    assert new.tolist() == [2, 2, 2, 2]
    assert "always" in position_merges.setting_name("no subject", None)
