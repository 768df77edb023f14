"""Where a mapping's missed gold entities are (aesi_lib.evaluate.misses)."""

from __future__ import annotations

import pytest

from aesi_lib.evaluate import GOLD_SLOTS, evaluate, result_bounds
from aesi_lib.evaluate.misses import (
    SlotMisses,
    missed_gold,
    slot_misses,
    split_misses,
    unreached_kinds,
)
from aesi_lib.evaluate.reach import INSIDE, NO_MENTION, NUMBER, PRONOUN, missed_kind
from aesi_lib.evaluate.split import SplitIndex
from tests.test_evaluate_bounds import KEYS, OUTPUT, key, out

MAPPING = [(0, 0, "Perpetrator"), (0, 1, "Victim")]


def test_each_missed_entity_is_placed_once():
    misses = missed_gold(OUTPUT, KEYS, MAPPING)
    # Perpetrator: FMLN found; ERP is in template 0 but in slot 2.
    assert misses["Perpetrator"] == SlotMisses(1, 1, 0, 0, ((0, 2, 1),), ())
    # Victim: priests found; the mayor only in template 1.
    assert misses["Victim"] == SlotMisses(1, 0, 1, 0, (), ((1, 1),))
    # Target: nothing is mapped to it, so the embassy is in another template.
    assert misses["Target"] == SlotMisses(0, 0, 1, 0, (), ((1, 1),))
    assert misses["Instrument"] == SlotMisses(0, 0, 0, 0)


def test_an_entity_no_mention_matches_is_an_extraction_miss():
    keys = [key("M1", Perpetrator=["FMLN", "ELN"], Victim=["?JUDGE"])]
    misses = missed_gold(out(("M1", "FMLN", 0, 0)), keys, [(0, 0, "Perpetrator")])
    assert misses["Perpetrator"] == SlotMisses(1, 0, 0, 1)
    # A missed optional entity is not a miss (evaluation.md, "Counting").
    assert misses["Victim"].missed == 0


def test_the_breakdown_adds_up_to_the_scores():
    for matcher in ("lenient", "strict"):
        for mapping in (MAPPING, evaluate(OUTPUT, KEYS, matcher=matcher).mapping, []):
            res = evaluate(OUTPUT, KEYS, matcher=matcher, mapping=mapping)
            misses = missed_gold(OUTPUT, KEYS, mapping, matcher)
            assert set(misses) == set(GOLD_SLOTS)
            for g, m in misses.items():
                assert (m.found, m.missed) == (res.per_slot[g]["tp"], res.per_slot[g]["fn"])


def test_holders_are_ranked_by_entities_then_number():
    keys = [key("M1", Target=["EMBASSY", "BANK", "CHURCH"])]
    output = out(("M1", "embassy", 2, 0), ("M1", "bank", 1, 3), ("M1", "church", 1, 0),
                 ("M1", "embassy", 1, 1))
    # Template 1 holds three targets in three slots (the embassy also in template 2).
    misses = missed_gold(output, keys, [(1, 3, "Target")])["Target"]
    assert (misses.found, misses.other_slot, misses.other_template) == (1, 2, 0)
    assert misses.other_slot_roles == ((1, 0, 1), (1, 1, 1))
    misses = missed_gold(output, keys, [(0, 0, "Target")])["Target"]
    assert misses.other_templates == ((1, 3), (2, 1))


def test_result_bounds_store_the_breakdown_as_json():
    res = evaluate(OUTPUT, KEYS, mapping=MAPPING)
    stored = result_bounds(OUTPUT, KEYS, res)["misses"]
    assert stored["Perpetrator"] == {"found": 1, "other_slot": 1, "other_template": 0,
                                     "no_mention": 0, "other_slot_roles": [[0, 2, 1]],
                                     "other_templates": []}
    assert sum(m["found"] for m in stored.values()) == res.tp
    assert sum(m["other_slot"] + m["other_template"] + m["no_mention"]
               for m in stored.values()) == res.fn


@pytest.mark.parametrize("top", [0, 1])
def test_top_limits_the_holders(top):
    split = SplitIndex(OUTPUT, KEYS)
    roles = split.roles_by_slot(MAPPING)["Perpetrator"]
    m = slot_misses(split.view()["Perpetrator"], roles, split.shape[1], top=top)
    assert len(m.other_slot_roles) == top
    assert split_misses(split, MAPPING)["Perpetrator"].other_slot == m.other_slot


def test_what_no_mention_matches_is_told_by_what_it_is():
    keys = [key("M1", Perpetrator=["FMLN", "THEY"], Victim=["15", "PEASANT LEADER", "?MAYOR"],
                Target=["EMBASSY"])]
    # FMLN lies inside a mention whose head (guerrillas) is outside it; nothing holds the
    # peasant leader; the embassy is found; the mayor is optional.
    output = out(("M1", "guerrillas", 0, 0), ("M1", "embassy", 0, 1))
    output.loc[0, "mention"] = "FMLN URBAN GUERRILLAS"
    split = SplitIndex(output, keys)
    unreached = unreached_kinds(split, {"M1": list(output["mention"])})
    assert unreached == {
        "Perpetrator": {PRONOUN: 1, INSIDE: 1}, "Victim": {NUMBER: 1, NO_MENTION: 1},
        "Target": {}, "Instrument": {}}
    # The kinds of a slot add up to its entities that no mention matches.
    misses = split_misses(split, [])
    assert {g: sum(k.values()) for g, k in unreached.items()} == {
        g: m.no_mention for g, m in misses.items()}


def test_result_bounds_store_what_no_mention_matches():
    keys = [key("M1", Perpetrator=["FMLN"])]
    output = out(("M1", "guerrillas", 0, 0))
    output.loc[0, "mention"] = "FMLN GUERRILLAS"
    res = evaluate(output, keys, mapping=[(0, 0, "Perpetrator")])
    assert result_bounds(output, keys, res)["unreached"]["Perpetrator"] == {INSIDE: 1}
    # Without mention texts an export's heads stand for them.
    bare = output.drop(columns=["mention"])
    assert result_bounds(bare, keys, res)["unreached"]["Perpetrator"] == {NO_MENTION: 1}


@pytest.mark.parametrize(("text", "inside", "kind"), [
    ("they", True, PRONOUN), ("its", False, PRONOUN), ("$500 ransom", False, NUMBER),
    ("many victims", True, NUMBER), ("many armed men", True, INSIDE),
    ("Windows", True, INSIDE), ("the mayor", False, NO_MENTION)])
def test_one_rule_tells_the_kinds(text, inside, kind):
    assert missed_kind(text, inside) == kind
