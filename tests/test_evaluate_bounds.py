"""Bounds of aesi_lib.evaluate.bounds: what a perfect part of the system would allow."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from aesi_lib.corpus.types import KeyFiller, KeyTemplate
from aesi_lib.evaluate import (
    ASSIGNMENT_COLUMNS,
    Counts,
    evaluate,
    recall_ceiling,
    relevance_oracle,
    result_bounds,
    template_recall_ceiling,
)

SLOT_NO = {"Perpetrator": 10, "Victim": 19, "Target": 12, "Instrument": 6}


def key(mid: str, **slots: list[str]) -> KeyTemplate:
    fill = {
        SLOT_NO[name]: tuple(KeyFiller((x.lstrip("?"),), x.startswith("?"), x) for x in lines)
        for name, lines in slots.items()
    }
    return KeyTemplate(mid, "1", False, False, ("ATTACK",), fill)


def irrelevant(mid: str) -> KeyTemplate:
    return KeyTemplate(mid, "*", False, True, ("*",), {})


def out(*rows: tuple[str, str, int, int]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"doc_id": d, "sent_id": 0, "entity_id": i, "head": h, "mention": h,
             "predicate": "p", "dep": "nsubj", "template": t, "slot": s}
            for i, (d, h, t, s) in enumerate(rows)
        ],
        columns=list(ASSIGNMENT_COLUMNS),
    )


KEYS = [
    key("M1", Perpetrator=["FMLN"], Victim=["PRIESTS"], Target=["EMBASSY"]),
    key("M2", Perpetrator=["ERP"], Victim=["MAYOR"]),
    irrelevant("M3"),
]
# Template 0 is the event template; the embassy and the mayor appear only in template 1.
OUTPUT = out(
    ("M1", "FMLN", 0, 0),
    ("M1", "priests", 0, 1),
    ("M1", "embassy", 1, 2),
    ("M2", "ERP", 0, 2),  # in template 0 but in a slot that no mapping gives Perpetrator
    ("M2", "mayor", 1, 1),
    ("M2", "soldiers", 0, 1),  # a false positive of Victim in a relevant message
    ("M3", "army", 0, 0),  # every guess of an irrelevant message is a false positive
    ("M3", "troops", 0, 1),
)


def test_template_recall_ceiling_counts_any_slot_of_the_mapped_templates():
    # Template 0 holds FMLN, priests and ERP: 3 of the 5 gold entities, whatever the slots.
    assert template_recall_ceiling(OUTPUT, KEYS, [(0, 0, "Perpetrator")]) == pytest.approx(3 / 5)
    assert template_recall_ceiling(OUTPUT, KEYS, [(0, 0, "Victim"), (1, 2, "Target")]) == 1.0
    assert template_recall_ceiling(OUTPUT, KEYS, []) == 0.0


def test_template_recall_ceiling_lies_between_the_recall_and_the_extraction_ceiling():
    learned = evaluate(OUTPUT, KEYS)
    bound = template_recall_ceiling(OUTPUT, KEYS, learned.mapping)
    assert learned.recall <= bound <= recall_ceiling(OUTPUT, KEYS)
    fixed = evaluate(OUTPUT, KEYS, mapping=[(0, 0, "Perpetrator"), (0, 1, "Victim")])
    # ERP is in the mapped template 0, in a slot that feeds nothing: counted by the bound only.
    assert fixed.recall == pytest.approx(2 / 5)
    assert template_recall_ceiling(OUTPUT, KEYS, fixed.mapping) == pytest.approx(3 / 5)


def test_template_recall_ceiling_follows_the_matcher():
    keys = [key("M1", Victim=["PRIESTS OF THE CHURCH"], Target=["CHURCH HALL"])]
    output = out(("M1", "church", 0, 0))
    # lenient: "church" is a token of "church hall" (and not before "of" in the victim);
    # strict: it is the head of neither.
    assert template_recall_ceiling(output, keys, [(0, 0, "Target")]) == pytest.approx(1 / 2)
    assert template_recall_ceiling(output, keys, [(0, 0, "Target")], "strict") == 0.0


def test_relevance_oracle_drops_only_the_false_positives_of_irrelevant_messages():
    res = evaluate(OUTPUT, KEYS, mapping=[(0, 0, "Perpetrator"), (0, 1, "Victim")])
    # Perpetrator: FMLN (TP), army (FP, M3); ERP missed. Victim: priests (TP), soldiers and
    # troops (FP, M2 and M3); mayor missed. Target: embassy missed.
    assert (res.tp, res.fp, res.fn) == (2, 3, 3)
    oracle = relevance_oracle(res)
    assert oracle == Counts(2, 1, 3)
    assert oracle.f1 > res.f1


def test_relevance_oracle_needs_per_message_counts():
    res = evaluate(OUTPUT, KEYS)
    res.per_message = None
    with pytest.raises(ValueError, match="per-message"):
        relevance_oracle(res)


def test_result_bounds_is_json_ready_and_consistent():
    res = evaluate(OUTPUT, KEYS, mapping=[(0, 0, "Perpetrator"), (0, 1, "Victim")])
    bounds = result_bounds(OUTPUT, KEYS, res)
    json.dumps(bounds)
    assert set(bounds["misses"]) == {"Perpetrator", "Victim", "Target", "Instrument"}
    # Every gold entity here is some mention's head.
    assert bounds["unreached"] == {g: {} for g in bounds["misses"]}
    del bounds["misses"], bounds["unreached"]  # tests/test_evaluate_misses.py
    assert bounds == {
        "fp_share_irrelevant": pytest.approx(2 / 3),
        "template_recall_ceiling": pytest.approx(3 / 5),
        "relevance_oracle": Counts(2, 1, 3).as_dict(),
    }
    strict = evaluate(OUTPUT, KEYS, matcher="strict", mapping=res.mapping)
    assert result_bounds(OUTPUT, KEYS, strict)["template_recall_ceiling"] == pytest.approx(3 / 5)


def test_sweep_rows_carry_the_test_mapped_lenient_bounds():
    from aesi_lib.run.experiments import score_row

    row = score_row(OUTPUT, KEYS, KEYS)
    learned = evaluate(OUTPUT, KEYS)
    assert row["tst_test_lenient_f1"] == pytest.approx(learned.f1)
    assert row["tst_test_lenient_template_r"] == pytest.approx(
        template_recall_ceiling(OUTPUT, KEYS, learned.mapping))
    assert row["tst_test_lenient_oracle_f1"] == pytest.approx(relevance_oracle(learned).f1)
    assert row["tst_test_lenient_oracle_f1"] >= row["tst_test_lenient_f1"]


def test_bounds_from_a_given_split_are_the_bounds_built_alone():
    from aesi_lib.evaluate.split import SplitIndex

    res = evaluate(OUTPUT, KEYS, mapping=[(0, 0, "Perpetrator"), (0, 1, "Victim")])
    split = SplitIndex(OUTPUT, KEYS, "lenient")
    assert result_bounds(OUTPUT, KEYS, res, split) == result_bounds(OUTPUT, KEYS, res)
    assert recall_ceiling(OUTPUT, KEYS, "lenient", split) == recall_ceiling(OUTPUT, KEYS)
    # A split of another matcher would answer another question.
    with pytest.raises(ValueError, match="the split matches 'lenient', not 'strict'"):
        recall_ceiling(OUTPUT, KEYS, "strict", split)
    strict = evaluate(OUTPUT, KEYS, matcher="strict", mapping=res.mapping)
    with pytest.raises(ValueError, match="not 'strict'"):
        result_bounds(OUTPUT, KEYS, strict, split)
