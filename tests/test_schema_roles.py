"""The readable schema of an export: its roles and its templates' names."""

from __future__ import annotations

import pandas as pd
import pytest

from aesi_lib.run.roles import ROLE_SHARE, roles_by_template, template_name, template_roles

TEXTS = {
    "d1": "Guerrillas attacked the embassy.\nThe guerrillas killed two guards at the embassy.",
    "d2": "The army said the rebels   bombed a bridge.",
}


def _row(doc, sent, eid, text, mention, predicate, dep, template, slot):
    start = TEXTS[doc].index(mention)
    head = mention.split()[-1]
    return {"doc_id": doc, "sent_id": sent, "entity_id": eid, "head": head,
            "mention": mention, "predicate": predicate, "dep": dep, "template": template,
            "slot": slot, "start_char": start, "end_char": start + len(mention)}


def _export() -> pd.DataFrame:
    rows = [
        _row("d1", 0, 0, TEXTS["d1"], "Guerrillas", "attack", "nsubj", 1, 0),
        _row("d1", 0, 1, TEXTS["d1"], "the embassy", "attack", "dobj", 1, 4),
        _row("d1", 1, 2, TEXTS["d1"], "The guerrillas", "kill", "nsubj", 1, 0),
        _row("d1", 1, 3, TEXTS["d1"], "two guards", "kill", "dobj", 1, 5),
        _row("d2", 0, 4, TEXTS["d2"], "The army", "say", "nsubj", 0, 0),
        _row("d2", 0, 5, TEXTS["d2"], "the rebels", "bomb", "nsubj", 1, 0),
        _row("d2", 0, 6, TEXTS["d2"], "a bridge", "bomb", "dobj", 1, 4),
    ]
    return pd.DataFrame(rows)


def test_a_role_is_described_by_position_predicates_and_heads():
    roles = template_roles(_export())
    first = roles[0]
    assert (first.template, first.slot) == (1, 0)        # the larger template, its larger slot
    assert first.position == "subject"
    assert first.predicates == ["attack", "bomb", "kill"]    # ties: alphabetical
    assert first.heads == ["guerrillas", "rebels"]
    assert first.description == "subject of attack, bomb, kill: guerrillas, rebels"
    assert first.mentions == 3 and first.share == pytest.approx(0.5)


def test_slots_below_the_share_are_minor_and_stay_listed():
    export = _export()
    rows = [export] + [export[export["template"] == 1].assign(slot=4)] * 40
    big = pd.concat(rows, ignore_index=True)
    roles = {(r.template, r.slot): r for r in template_roles(big)}
    assert roles[(1, 5)].share < ROLE_SHARE and roles[(1, 5)].minor
    assert not roles[(1, 4)].minor
    assert set(roles) == {(t, s) for t, s in zip(big["template"], big["slot"], strict=True)}
    assert [r["slot"] for r in roles_by_template(list(roles.values()))[1]] == [4, 0, 5]


def test_a_template_is_named_by_its_commonest_predicates():
    assert template_name(pd.Series(["kill", "attack", "kill", "bomb", "attack", "wound"])) \
        == "attack/kill/bomb"


def test_a_role_is_described_by_heads_that_are_words():
    from aesi_lib.run.roles import describing_heads

    heads = pd.Series(["%", "%", "%", "m", "m", "-", "'", "people", "u.s.", "u.s.", "army"])
    assert describing_heads(heads) == ["u.s.", "army", "people"]
    export = _export()
    figures = export[export["slot"] == 4].assign(head="%")
    roles = template_roles(pd.concat([export, figures, figures], ignore_index=True))
    assert next(r for r in roles if (r.template, r.slot) == (1, 4)).heads == ["bridge",
                                                                              "embassy"]
    # A role whose heads are none of them words keeps them: it is still described.
    assert describing_heads(pd.Series(["%", "%", "m"])) == ["%", "m"]
