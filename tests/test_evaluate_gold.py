"""Gold extraction rules of evaluation.md ("Gold entities", "Sanity counts")."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesi_lib.corpus.types import KeyFiller, KeyTemplate
from aesi_lib.evaluate.gold import (
    GoldEntity,
    MissingKeyError,
    extract_gold,
    gold_counts,
    merge_entities,
    relevant_message_ids,
    template_counts,
    template_types,
)


def filler(line: str) -> KeyFiller:
    """A filler line as the key reader returns it: ``?`` marks optional, `` / `` alternatives."""
    optional = line.startswith("?")
    body = line.lstrip("?").strip()
    return KeyFiller(tuple(a.strip() for a in body.split(" / ")), optional, line)


def key(
    mid: str,
    types: tuple[str, ...] = ("ATTACK",),
    slots: dict[int, list[str]] | None = None,
    *,
    optional: bool = False,
    number: str = "1",
) -> KeyTemplate:
    fill = {no: tuple(filler(x) for x in lines) for no, lines in (slots or {}).items()}
    return KeyTemplate(mid, number, optional, False, types, fill)


def irrelevant(mid: str) -> KeyTemplate:
    return KeyTemplate(mid, "*", False, True, ("*",), {})


def alts(entities) -> list[tuple[str, ...]]:
    return [e.alternatives for e in entities]


def test_each_gold_slot_pools_its_key_slots_and_ignores_the_others():
    k = key(
        "M1",
        slots={
            6: ["BOMB"],
            7: ["EXPLOSIVE: BOMB"],
            9: ["TERRORISTS"],
            10: ["FMLN"],
            12: ["BRIDGE"],
            13: ["TRANSPORTATION ROUTE: BRIDGE"],
            18: ["JUAN PEREZ"],
            19: ["PEASANTS"],
        },
    )
    g = extract_gold([k])["M1"]
    assert alts(g["Perpetrator"]) == [("TERRORISTS",), ("FMLN",)]
    assert alts(g["Victim"]) == [("JUAN PEREZ",), ("PEASANTS",)]
    assert alts(g["Target"]) == [("BRIDGE",)]
    assert alts(g["Instrument"]) == [("BOMB",)]


@pytest.mark.parametrize("typ", ["ATTACK", "BOMBING", "KIDNAPPING", "ARSON"])
def test_the_four_types_are_used(typ):
    g = extract_gold([key("M1", (typ,), {9: ["FMLN"]})])
    assert len(g["M1"]["Perpetrator"]) == 1


@pytest.mark.parametrize("typ", ["ROBBERY", "FORCED WORK STOPPAGE"])
def test_other_types_are_ignored_but_the_message_is_scored(typ):
    g = extract_gold([key("M1", (typ,), {9: ["FMLN"]})])
    assert set(g) == {"M1"}
    assert all(v == () for v in g["M1"].values())
    assert relevant_message_ids([key("M1", (typ,))]) == set()


def test_slash_type_counts_as_each_type():
    k = key("M1", ("BOMBING", "ATTACK"), {9: ["FMLN"]})
    assert template_types(k) == ("BOMBING", "ATTACK")
    assert len(extract_gold([k], types=("ATTACK",))["M1"]["Perpetrator"]) == 1
    assert len(extract_gold([k], types=("BOMBING",))["M1"]["Perpetrator"]) == 1
    assert extract_gold([k], types=("KIDNAPPING",))["M1"]["Perpetrator"] == ()
    counts = template_counts([k, key("M2", ("ATTACK",))])
    assert counts["ATTACK"] == (2, 2) and counts["BOMBING"] == (1, 1)


def test_unsplit_slash_type_is_split_too():
    assert template_types(key("M1", ("BOMBING / ATTACK",))) == ("BOMBING", "ATTACK")


def test_each_filler_line_is_one_entity_with_its_alternatives():
    k = key("M1", slots={10: ["FARABUNDO MARTI NATIONAL LIBERATION FRONT / FMLN", "ERP"]})
    assert alts(extract_gold([k])["M1"]["Perpetrator"]) == [
        ("FARABUNDO MARTI NATIONAL LIBERATION FRONT", "FMLN"),
        ("ERP",),
    ]


def test_empty_fills_give_no_entity():
    k = key("M1", slots={9: ["-"], 10: ["*"], 12: []})
    assert all(v == () for v in extract_gold([k])["M1"].values())


def test_question_mark_filler_is_optional():
    k = key("M1", slots={9: ["? TERRORISTS", "FMLN"]})
    assert [e.optional for e in extract_gold([k])["M1"]["Perpetrator"]] == [True, False]


def test_every_filler_of_an_optional_template_is_optional():
    k = key("M1", slots={9: ["FMLN"], 19: ["PEASANTS"]}, optional=True)
    g = extract_gold([k])["M1"]
    assert g["Perpetrator"][0].optional and g["Victim"][0].optional
    assert template_counts([k])["ATTACK"] == (1, 0)


def test_entities_sharing_an_alternative_case_insensitively_are_merged():
    # As in TST2-MUC4-0002: slot 9 "? FPMR" and slot 10 "COMMUNIST PARTY / FPMR" are one entity.
    k = key("M1", slots={9: ["? MANUEL RODRIGUEZ PATRIOTIC FRONT / FPMR"], 10: ["CP / fpmr"]})
    (merged,) = extract_gold([k])["M1"]["Perpetrator"]
    assert merged.alternatives == ("MANUEL RODRIGUEZ PATRIOTIC FRONT", "FPMR", "CP")
    assert merged.optional is False  # optional only if every copy was


def test_merged_entity_is_optional_when_every_copy_is():
    k = key("M1", slots={9: ["? FMLN"], 10: ["? FMLN / FARABUNDO MARTI"]})
    (merged,) = extract_gold([k])["M1"]["Perpetrator"]
    assert merged.optional is True


def test_merging_is_transitive():
    ents = [
        GoldEntity(("A", "B"), False),
        GoldEntity(("C",), False),
        GoldEntity(("D", "C"), True),
        GoldEntity(("b", "d"), True),
    ]
    (merged,) = merge_entities(ents)
    assert merged.alternatives == ("A", "B", "C", "D")


def test_merging_pools_templates_of_a_message_but_not_slots_or_messages():
    keys = [
        key("M1", ("ATTACK",), {19: ["PRIESTS"], 12: ["PRIESTS"]}, number="1"),
        key("M1", ("BOMBING",), {19: ["JESUIT PRIESTS / PRIESTS"]}, number="2"),
        key("M2", ("ATTACK",), {19: ["PRIESTS"]}),
    ]
    g = extract_gold(keys)
    assert len(g["M1"]["Victim"]) == 1
    assert g["M1"]["Victim"][0].types == frozenset({"ATTACK", "BOMBING"})
    assert len(g["M1"]["Target"]) == 1  # other slot: not merged with the victim
    assert len(g["M2"]["Victim"]) == 1
    assert gold_counts(g)["all"] == (3, 3)


def test_per_type_gold_keeps_only_that_types_templates():
    keys = [
        key("M1", ("ATTACK",), {9: ["FMLN"]}, number="1"),
        key("M1", ("KIDNAPPING",), {9: ["ELN"]}, number="2"),
    ]
    assert alts(extract_gold(keys, types=("KIDNAPPING",))["M1"]["Perpetrator"]) == [("ELN",)]
    assert len(extract_gold(keys)["M1"]["Perpetrator"]) == 2


def test_irrelevant_message_has_empty_gold_and_is_not_relevant():
    keys = [irrelevant("M0"), key("M1", slots={9: ["FMLN"]})]
    g = extract_gold(keys)
    assert list(g) == ["M0", "M1"]
    assert all(v == () for v in g["M0"].values())
    assert relevant_message_ids(keys) == {"M1"}


def test_doc_list_selects_messages_and_a_missing_key_is_an_error():
    keys = [key("M1", slots={9: ["FMLN"]}), irrelevant("M2")]
    assert list(extract_gold(keys, ["M2"])) == ["M2"]
    with pytest.raises(MissingKeyError, match="M3"):
        extract_gold(keys, ["M1", "M3"])


# --- real keys -----------------------------------------------------------------------------

TST_KEYS = ("tst1/key-tst1.v7", "tst2/key-tst2.v4")


def read_tst_keys(muc4_dir: Path) -> list[KeyTemplate]:
    from aesi_lib.corpus.muc4_keys import read_muc4_keys

    return [k for p in TST_KEYS for k in read_muc4_keys(muc4_dir / p)]


@pytest.mark.muc4
def test_sanity_counts_of_tst1_tst2(muc4_dir: Path):
    keys = read_tst_keys(muc4_dir)
    gold = extract_gold(keys)
    assert len(gold) == 200
    assert len(relevant_message_ids(keys)) == 116
    assert gold_counts(gold) == {
        "Perpetrator": (222, 189),
        "Victim": (199, 164),
        "Target": (101, 93),
        "Instrument": (50, 45),
        "all": (572, 491),
    }
    assert template_counts(keys) == {
        "ATTACK": (98, 87),
        "BOMBING": (51, 43),
        "KIDNAPPING": (31, 18),
        "ARSON": (8, 8),
    }
