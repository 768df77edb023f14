"""experiments/head_votes.py: a head's subject mentions take the role most of them take."""

from __future__ import annotations

import numpy as np

from experiments import head_votes

# 4 positions x 2 classes: subject slots 0-1, object slots 2-3.
HEADS = np.array(["fmln", "fmln", "fmln", "fmln", "police", "police", "fmln"])
TEMPLATES = np.array([1, 1, 2, 3, 2, 3, 2])
SLOTS = np.array([0, 0, 1, 0, 0, 1, 2])


def test_a_head_with_a_majority_role_moves_its_subjects_only():
    templates, slots = head_votes.head_vote(HEADS, TEMPLATES, SLOTS, 2, 0.5, 2)
    # fmln: (1, 0) holds 2 of its 4 subject mentions; police: a tie of 1 and 1 goes to the
    # lower (template, slot), (2, 0); the object mention of fmln keeps its role.
    assert templates.tolist() == [1, 1, 1, 1, 2, 2, 2]
    assert slots.tolist() == [0, 0, 0, 0, 0, 0, 2]


def test_share_least_count_and_left_out_heads_hold_the_vote_back():
    for share, least, left_out in ((0.6, 2, ()), (0.5, 5, ()), (0.5, 2, ("fmln", "police"))):
        templates, slots = head_votes.head_vote(HEADS, TEMPLATES, SLOTS, 2, share, least,
                                                left_out)
        assert templates.tolist()[:4] == TEMPLATES.tolist()[:4]
        assert slots.tolist()[:4] == SLOTS.tolist()[:4]
    assert head_votes.setting_name(0.3, 20, ("mrta",)).endswith("without mrta")
