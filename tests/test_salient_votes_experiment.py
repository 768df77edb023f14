"""experiments/salient_votes.py: subjects take their head's role in the event template, in the
documents that report the event."""

from __future__ import annotations

import numpy as np

from experiments import salient_votes

# 4 positions x 2 classes: subject slots 0-1, object slots 2-3. Template 1 is the salient one.
HEADS = np.array(["fmln", "fmln", "fmln", "fmln", "police", "x", "x", "fmln"])
DOCS = np.array(["a", "a", "a", "b", "a", "a", "b", "b"])
TEMPLATES = np.array([1, 0, 0, 0, 0, 1, 1, 0])
SLOTS = np.array([0, 1, 1, 1, 0, 2, 2, 2])
SALIENCE = np.array([0.1, 0.8])


def vote(setting):
    return salient_votes.salient_vote(HEADS, DOCS, TEMPLATES, SLOTS, 2, SALIENCE, setting,
                                      least=2)


def test_subjects_move_to_the_event_role_only_in_documents_that_hold_the_event():
    templates, slots = vote(salient_votes.Setting(0.25, 2))
    # fmln holds 1 of its 4 subject mentions in (1, 0); document a holds 2 mentions of
    # template 1, document b one; objects keep their roles.
    assert templates.tolist() == [1, 1, 1, 0, 0, 1, 1, 0]
    assert slots.tolist() == [0, 0, 0, 1, 0, 2, 2, 2]


def test_share_document_count_and_left_out_heads_hold_the_vote_back():
    for setting in (salient_votes.Setting(0.3, 1), salient_votes.Setting(0.25, 3),
                    salient_votes.Setting(0.25, 1, ("fmln",))):
        templates, slots = vote(setting)
        assert templates.tolist() == TEMPLATES.tolist()
        assert slots.tolist() == SLOTS.tolist()
    assert salient_votes.Setting(0.2, 3, ("mrta",)).name.endswith("without mrta")


def test_template_salience_is_the_mean_of_its_mentions():
    salience = salient_votes.template_salience(np.array([0, 0, 2]), np.array([0.2, 0.4, 1.0]), 3)
    assert np.allclose(salience, [0.3, 0.0, 1.0])
