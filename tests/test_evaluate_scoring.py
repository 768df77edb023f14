"""Counting, evaluate() and diagnostics of evaluation.md ("Counting", "Mapping", "What to
report")."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aesi_lib.corpus.types import KeyFiller, KeyTemplate
from aesi_lib.errors import InputError
from aesi_lib.evaluate import (
    ASSIGNMENT_COLUMNS,
    GOLD_SLOTS,
    TYPE_GOLD_SLOTS,
    Counts,
    GoldEntity,
    SplitIndex,
    count_message_slot,
    evaluate,
    extract_gold,
    false_positive_share_irrelevant,
    format_table,
    learn_mapping,
    read_assignments,
    recall_ceiling,
)
from aesi_lib.evaluate.counting import prf
from aesi_lib.evaluate.matching import head_token
from aesi_lib.evaluate.split import KeyGold

# --- helpers -------------------------------------------------------------------------------

SLOT_NO = {"Perpetrator": 10, "Victim": 19, "Target": 12, "Instrument": 6}


def key(
    mid: str, typ: str = "ATTACK", *, optional: bool = False, **slots: list[str]
) -> KeyTemplate:
    """A key template; ``Perpetrator=["FMLN", "? ERP"]`` etc., ``/`` separates alternatives."""
    fill = {}
    for name, lines in slots.items():
        fill[SLOT_NO[name]] = tuple(
            KeyFiller(tuple(a.strip() for a in x.lstrip("?").split(" / ")), x.startswith("?"), x)
            for x in lines
        )
    return KeyTemplate(mid, "1", optional, False, tuple(typ.split(" / ")), fill)


def irrelevant(mid: str) -> KeyTemplate:
    return KeyTemplate(mid, "*", False, True, ("*",), {})


def out(*rows: tuple[str, str, int, int]) -> pd.DataFrame:
    """System output from (doc_id, head, template, slot) rows."""
    return pd.DataFrame(
        [
            {
                "doc_id": d,
                "sent_id": 0,
                "entity_id": i,
                "head": h,
                "mention": h,
                "predicate": "p",
                "dep": "nsubj",
                "template": t,
                "slot": s,
            }
            for i, (d, h, t, s) in enumerate(rows)
        ],
        columns=list(ASSIGNMENT_COLUMNS),
    )


def ents(*specs: str) -> list[GoldEntity]:
    return [GoldEntity(tuple(s.lstrip("?").split(" / ")), s.startswith("?")) for s in specs]


# --- counting ------------------------------------------------------------------------------


def test_prf_from_pooled_counts():
    p, r, f = prf(2, 2, 6)
    assert (p, r) == (0.5, 0.25)
    assert f == pytest.approx(2 * 0.5 * 0.25 / 0.75)
    assert prf(0, 0, 0) == (0.0, 0.0, 0.0)
    assert Counts(1, 2, 3) + Counts(1, 1, 1) == Counts(2, 3, 4)


def test_count_tp_fp_fn_of_one_message_slot():
    gold = ents("FMLN / FARABUNDO MARTI", "URBAN COMMANDOS", "ERP")
    # fmln -> TP, commando -> TP, army -> FP; ERP missed -> FN
    assert count_message_slot(["FMLN", "commando", "army"], gold) == Counts(2, 1, 1)


def test_missed_optional_entity_is_not_a_miss_but_a_found_one_is_a_hit():
    gold = ents("? TERRORISTS", "? GUERRILLAS", "FMLN")
    assert count_message_slot(["guerrillas"], gold) == Counts(1, 0, 1)


def test_duplicate_guesses_count_once():
    assert count_message_slot(["Army", "army", "ARMY "], ents("FMLN")) == Counts(0, 1, 1)


def test_one_guess_can_match_several_entities():
    assert count_message_slot(["guerrillas"], ents("FMLN GUERRILLAS", "ELN GUERRILLAS")) == Counts(
        2, 0, 0
    )


def test_two_guesses_matching_one_entity_are_one_tp_and_no_fp():
    assert count_message_slot(["bus", "buses"], ents("URBAN PUBLIC BUS")) == Counts(1, 0, 0)


# --- evaluate: hand-made splits ------------------------------------------------------------

# Two learned templates with three slots each. Template 0 = attacks, slot 0 perpetrators, slot 1
# victims, slot 2 instruments.
OBVIOUS_KEYS = [
    key("M1", Perpetrator=["FMLN"], Victim=["PRIESTS"], Instrument=["BOMB"]),
    key("M2", Perpetrator=["ERP"], Victim=["? MAYOR"]),
    irrelevant("M3"),
]
OBVIOUS_OUT = out(
    ("M1", "FMLN", 0, 0),
    ("M1", "priests", 0, 1),
    ("M1", "bombs", 0, 2),
    ("M1", "said", 1, 0),
    ("M2", "ERP", 0, 0),
    ("M2", "soldiers", 0, 1),  # FP of Victim; the optional mayor is not a miss
    ("M3", "army", 0, 0),  # irrelevant message: FP
    ("M3", "talks", 1, 1),
    ("X9", "fmln", 0, 0),  # a message of another split: ignored
)


def test_obvious_mapping_and_counts():
    res = evaluate(OBVIOUS_OUT, OBVIOUS_KEYS)
    assert res.mapping == [(0, 0, "Perpetrator"), (0, 1, "Victim"), (0, 2, "Instrument")]
    assert (res.tp, res.fp, res.fn) == (4, 2, 0)
    assert res.per_slot["Perpetrator"] == {
        "precision": pytest.approx(2 / 3),
        "recall": 1.0,
        "f1": pytest.approx(0.8),
        "tp": 2,
        "fp": 1,
        "fn": 0,
    }
    assert (res.per_slot["Victim"]["tp"], res.per_slot["Victim"]["fp"]) == (1, 1)
    assert res.per_slot["Target"]["tp"] == res.per_slot["Target"]["fp"] == 0
    assert res.n_messages == 3
    assert sum(res.per_slot[g]["tp"] for g in GOLD_SLOTS) == res.tp
    assert res.f1 == pytest.approx(2 * 4 / (2 * 4 + 2))


def test_irrelevant_messages_produce_false_positives():
    res = evaluate(OBVIOUS_OUT, OBVIOUS_KEYS)
    pm = res.per_message
    assert pm.loc[pm.doc_id == "M3", "fp"].sum() == 1  # "army"; "talks" is in an unmapped role
    assert false_positive_share_irrelevant(res) == pytest.approx(1 / 2)


def test_messages_without_output_count_their_misses():
    keys = [*OBVIOUS_KEYS, key("M4", Perpetrator=["ELN"], Victim=["? JUDGE"])]
    res = evaluate(OBVIOUS_OUT, keys)
    assert (res.tp, res.fp, res.fn) == (4, 2, 1)


def test_message_with_only_robbery_is_scored_as_irrelevant():
    keys = [*OBVIOUS_KEYS[:2], key("M3", "ROBBERY", Perpetrator=["ARMY"])]
    res = evaluate(OBVIOUS_OUT, keys)
    assert (res.tp, res.fp) == (4, 2)


def test_matcher_switch():
    keys = [key("M1", Perpetrator=["PEOPLE'S REVOLUTIONARY ARMY"], Victim=["PRIESTS"])]
    sys_out = out(("M1", "revolutionary", 0, 0), ("M1", "priests", 0, 1))
    m = [(0, 0, "Perpetrator"), (0, 1, "Victim")]
    assert evaluate(sys_out, keys, mapping=m).tp == 2
    strict = evaluate(sys_out, keys, mapping=m, matcher="strict")
    assert (strict.tp, strict.fp, strict.fn) == (1, 1, 1)


def test_duplicate_gold_entities_are_merged_before_counting():
    # The same group as individual and as organisation: one entity, found once.
    keys = [
        KeyTemplate(
            "M1",
            "1",
            False,
            False,
            ("ATTACK",),
            {
                9: (KeyFiller(("FMLN",), True, '? "FMLN"'),),
                10: (KeyFiller(("FARABUNDO MARTI", "fmln"), False, "..."),),
            },
        )
    ]
    res = evaluate(out(("M1", "FMLN", 0, 0)), keys, mapping=[(0, 0, "Perpetrator")])
    assert (res.tp, res.fp, res.fn) == (1, 0, 0)
    assert evaluate(out(("M1", "army", 0, 0)), keys, mapping=[(0, 0, "Perpetrator")]).fn == 1


def test_slash_type_template_feeds_both_type_searches():
    keys = [key("M1", "BOMBING / ATTACK", Perpetrator=["FMLN"])]
    split = SplitIndex(out(("M1", "fmln", 0, 1)), keys)
    assert split.type_f1("ATTACK")[0, 0, 1] == 1.0
    assert split.type_f1("BOMBING")[0, 0, 1] == 1.0
    assert split.type_f1("KIDNAPPING")[0, 0, 1] == 0.0


def test_several_roles_may_feed_one_gold_slot_and_guesses_are_pooled():
    keys = [key("M1", Perpetrator=["FMLN", "ERP"])]
    sys_out = out(
        ("M1", "fmln", 0, 0), ("M1", "erp", 1, 0), ("M1", "army", 0, 0), ("M1", "army", 1, 0)
    )
    res = evaluate(sys_out, keys, mapping=[(0, 0, "Perpetrator"), (1, 0, "Perpetrator")])
    assert (res.tp, res.fp, res.fn) == (2, 1, 0)  # "army" is one guess for the message


def test_a_role_may_feed_several_gold_slots():
    keys = [key("M1", Perpetrator=["FMLN"], Victim=["PEASANTS"])]
    sys_out = out(("M1", "fmln", 0, 0), ("M1", "peasants", 0, 0))
    res = evaluate(sys_out, keys, mapping=[(0, 0, "Perpetrator"), (0, 0, "Victim")])
    assert (res.tp, res.fp, res.fn) == (2, 2, 0)


# Step 1 for KIDNAPPING prefers template 1, whose perpetrator role (1, 0) adds only false
# positives overall because role (0, 0) already finds "ELN": pruning removes it.
PRUNE_KEYS = [
    key("M1", "ATTACK", Perpetrator=["FMLN"]),
    key("M2", "KIDNAPPING", Perpetrator=["ELN"], Victim=["MAYOR"]),
    irrelevant("M3"),
]
PRUNE_OUT = out(
    ("M1", "fmln", 0, 0),
    ("M2", "eln", 0, 0),
    ("M2", "eln", 1, 0),
    ("M2", "mayor", 1, 1),
    ("M3", "x1", 1, 0),
    ("M3", "x2", 1, 0),
    ("M3", "x3", 1, 0),
)


def test_union_of_type_maps_before_pruning():
    m = learn_mapping(PRUNE_OUT, PRUNE_KEYS, prune=False)
    assert m == [(0, 0, "Perpetrator"), (1, 0, "Perpetrator"), (1, 1, "Victim")]
    split = SplitIndex(PRUNE_OUT, PRUNE_KEYS)
    assert split.f1(m) == pytest.approx(6 / 9)  # TP 3, FP 3, FN 0


def test_pruning_removes_pairs_that_do_not_help():
    res = evaluate(PRUNE_OUT, PRUNE_KEYS)
    assert res.mapping == [(0, 0, "Perpetrator"), (1, 1, "Victim")]
    assert (res.tp, res.fp, res.fn) == (3, 0, 0)


def test_dev_mapped_applies_the_mapping_learned_on_other_messages():
    dev_keys = [key("D1", Perpetrator=["FMLN"], Victim=["PRIESTS"])]
    dev_out = out(("D1", "fmln", 0, 1), ("D1", "priests", 0, 0))
    # On the evaluated split the roles are swapped: test-mapped follows, dev-mapped does not.
    tst_keys = [key("T1", Perpetrator=["ERP"], Victim=["NUNS"])]
    tst_out = out(("T1", "erp", 0, 0), ("T1", "nuns", 0, 1))
    both = pd.concat([dev_out, tst_out], ignore_index=True)
    dev = evaluate(both, tst_keys, map_keys=dev_keys, mapping="dev-mapped")
    assert dev.mapping == [(0, 1, "Perpetrator"), (0, 0, "Victim")]
    assert (dev.tp, dev.fp, dev.fn) == (0, 2, 2)
    assert dev.mode == "dev-mapped" and dev.n_messages == 1
    test = evaluate(both, tst_keys, map_keys=dev_keys, mapping="test-mapped")
    assert test.mapping == [(0, 0, "Perpetrator"), (0, 1, "Victim")]
    assert (test.tp, test.fp, test.fn) == (2, 0, 0)


def test_bad_mode_arguments():
    with pytest.raises(ValueError, match="map_keys"):
        evaluate(OBVIOUS_OUT, OBVIOUS_KEYS, mapping="dev-mapped")
    with pytest.raises(ValueError, match="mapping mode"):
        evaluate(OBVIOUS_OUT, OBVIOUS_KEYS, mapping="oracle")
    with pytest.raises(ValueError, match="matcher"):
        evaluate(OBVIOUS_OUT, OBVIOUS_KEYS, matcher="fuzzy")  # type: ignore[arg-type]


def test_empty_output_scores_zero_with_all_misses():
    res = evaluate(out(), OBVIOUS_KEYS)
    assert res.mapping == []
    assert (res.tp, res.fp, res.fn) == (0, 0, 4)


def test_recall_ceiling_sends_every_head_to_every_slot():
    # Gold: FMLN, ERP, PRIESTS, BOMB (non-optional) + optional MAYOR; "erp" only in role (0,0)
    # of M2, "priests" in M1: every found except BOMB when its mention is missing.
    sys_out = out(("M1", "FMLN", 1, 1), ("M1", "priests", 0, 0), ("M2", "ERP", 0, 2))
    assert recall_ceiling(sys_out, OBVIOUS_KEYS) == pytest.approx(3 / 4)


def test_key_gold_extracts_each_view_once_and_is_shared_by_evaluations():
    gold = KeyGold([key("M1", Perpetrator=["FMLN"])])
    first = gold.gold(("ATTACK",))
    assert gold.gold(["ATTACK"]) is first
    assert first["M1"]["Perpetrator"][0].alternatives == ("FMLN",)
    other = KeyGold([key("M1", Perpetrator=["ERP"])])  # its own keys, its own gold
    assert other.gold(("ATTACK",))["M1"]["Perpetrator"][0].alternatives == ("ERP",)
    assert KeyGold.of(gold) is gold
    # Scoring through a KeyGold gives the same result as through the keys themselves.
    assert evaluate(OBVIOUS_OUT, KeyGold(OBVIOUS_KEYS)) == evaluate(OBVIOUS_OUT, OBVIOUS_KEYS)


def test_shape_smaller_than_the_output_is_an_error():
    with pytest.raises(ValueError, match="outside the shape"):
        learn_mapping(OBVIOUS_OUT, OBVIOUS_KEYS, shape=(1, 1))


def test_result_to_dict_is_json_ready():
    d = evaluate(OBVIOUS_OUT, OBVIOUS_KEYS).to_dict()
    back = json.loads(json.dumps(d))
    assert back["tp"] == 4 and back["mode"] == "test-mapped" and back["matcher"] == "lenient"
    assert back["mapping"][0] == {"template": 0, "slot": 0, "gold_slot": "Perpetrator"}
    assert set(back["per_slot"]) == set(GOLD_SLOTS)
    assert "per_message" not in back


def test_format_table_puts_published_rows_beside_ours():
    r1 = evaluate(OBVIOUS_OUT, OBVIOUS_KEYS)
    r2 = evaluate(PRUNE_OUT, PRUNE_KEYS)
    table = format_table({"ours": r1, "ours (2 seeds)": [r1, r2]})
    lines = table.strip().splitlines()
    assert lines[0].startswith("| system | P | R | F1 | TP | FP | FN |")
    assert "| Sha et al. 2016 | 0.39 | 0.70 | 0.50 |  |  |  |" in lines
    assert f"| ours | {r1.precision:.3f} | 1.000 | {r1.f1:.3f} | 4 | 2 | 0 |" in lines
    assert any(line.startswith("| ours (2 seeds) | ") and "±" in line for line in lines)
    assert "Chambers" not in format_table({"ours": r1}, published=False)


def test_read_assignments_roundtrip_and_missing_columns(tmp_path):
    path = tmp_path / "assignments.csv"
    OBVIOUS_OUT.to_csv(path, index=False)
    res = evaluate(read_assignments(path), OBVIOUS_KEYS)
    assert (res.tp, res.fp, res.fn) == (4, 2, 0)
    OBVIOUS_OUT.drop(columns=["slot"]).to_csv(path, index=False)
    with pytest.raises(InputError, match="slot"):
        read_assignments(path)


# --- the fast path against the protocol read literally -------------------------------------


def rows_by_doc(sys_out) -> dict[str, list[tuple[str, int, int]]]:
    grouped: dict[str, list[tuple[str, int, int]]] = {}
    cols = (sys_out.doc_id, sys_out["head"], sys_out.template, sys_out.slot)
    for d, h, t, s in zip(*cols, strict=True):
        grouped.setdefault(d, []).append((h, int(t), int(s)))
    return grouped


def brute_force_counts(rows, gold, roles, g, matcher="lenient"):
    """Counts of gold slot g when the heads of ``roles`` are sent to it, message by message."""
    total = Counts()
    for d in gold:
        heads = [h for h, t, s in rows.get(d, []) if (t, s) in roles]
        total = total + count_message_slot(heads, gold[d][g], matcher)
    return total


def brute_force(sys_out, keys, mapping, matcher="lenient"):
    gold, rows = extract_gold(keys), rows_by_doc(sys_out)
    total = Counts()
    for g in GOLD_SLOTS:
        roles = {(t, s) for t, s, gg in mapping if gg == g}
        total = total + brute_force_counts(rows, gold, roles, g, matcher)
    return total


def brute_force_type_maps(sys_out, keys, n_t, n_s):
    """Steps 1-3 with loops over itertools and count_message_slot."""
    rows = rows_by_doc(sys_out)
    chosen = set()
    for typ, golds in TYPE_GOLD_SLOTS.items():
        gold = extract_gold(keys, types=(typ,))
        f1 = {
            (t, s, g): round(brute_force_counts(rows, gold, {(t, s)}, g).f1, 12)
            for t, s, g in itertools.product(range(n_t), range(n_s), golds)
        }
        best = None
        for t in range(n_t):
            for phi in all_partial_maps(golds, n_s):
                score = sum(f1[t, s, g] for g, s in phi.items())
                rank = (-round(score, 9), t, len(phi), [phi.get(g, n_s) for g in golds])
                if best is None or rank < best[0]:
                    best = (rank, t, phi)
        _, t, phi = best
        chosen |= {(t, s, g) for g, s in phi.items()}
    return chosen


def all_partial_maps(golds, n_s):
    for k in range(len(golds) + 1):
        for sub in itertools.combinations(golds, k):
            for slots in itertools.permutations(range(n_s), k):
                yield dict(zip(sub, slots, strict=True))


def random_case(seed: int):
    rng = np.random.default_rng(seed)
    words = ["fmln", "erp", "army", "priests", "bomb", "bus", "mayor", "house", "guerrillas"]
    types = ["ATTACK", "BOMBING", "KIDNAPPING", "ARSON", "BOMBING / ATTACK", "ROBBERY"]
    keys, rows = [], []
    for i in range(12):
        mid = f"M{i}"
        if rng.random() < 0.25:
            keys.append(irrelevant(mid))
        for j in range(int(rng.integers(1, 3))):
            slots = {
                g: [
                    ("? " if rng.random() < 0.3 else "") + " / ".join(rng.choice(words, 2)).upper()
                    for _ in range(int(rng.integers(0, 3)))
                ]
                for g in GOLD_SLOTS
            }
            k = key(mid, str(rng.choice(types)), optional=bool(rng.random() < 0.2), **slots)
            keys.append(KeyTemplate(mid, str(j + 1), k.optional, False, k.incident_types, k.slots))
        for _ in range(int(rng.integers(0, 10))):
            rows.append((mid, str(rng.choice(words)), int(rng.integers(3)), int(rng.integers(3))))
    return out(*rows), keys


@pytest.mark.parametrize("seed", range(4))
def test_fast_counts_equal_the_literal_protocol(seed):
    sys_out, keys = random_case(seed)
    mapping = [(0, 0, "Perpetrator"), (1, 0, "Perpetrator"), (1, 1, "Victim"), (2, 2, "Target")]
    for matcher in ("lenient", "strict"):
        res = evaluate(sys_out, keys, mapping=mapping, matcher=matcher)
        assert Counts(res.tp, res.fp, res.fn) == brute_force(sys_out, keys, mapping, matcher)


@pytest.mark.parametrize("seed", range(4))
def test_type_maps_equal_an_exhaustive_loop(seed):
    sys_out, keys = random_case(seed)
    fast = set(learn_mapping(sys_out, keys, prune=False, shape=(3, 3)))
    assert len(fast) >= 2  # the case is not trivial
    assert fast == brute_force_type_maps(sys_out, keys, 3, 3)


# --- real keys -----------------------------------------------------------------------------

@pytest.mark.muc4
def test_oracle_output_on_tst1_tst2_scores_one(muc4_dir: Path):
    from aesi_lib.corpus.muc4_keys import read_muc4_keys

    paths = [muc4_dir / "tst1/key-tst1.v7", muc4_dir / "tst2/key-tst2.v4"]
    keys = [k for p in paths for k in read_muc4_keys(p)]
    gold = extract_gold(keys)
    # One mention per gold entity, its head in a role of its own per gold slot.
    rows = [
        (d, head_token(e.alternatives[0]), 0, i)
        for d, slots in gold.items()
        for i, g in enumerate(GOLD_SLOTS)
        for e in slots[g]
    ]
    res = evaluate(out(*rows), keys, matcher="strict")
    assert res.mapping == [(0, i, g) for i, g in enumerate(GOLD_SLOTS)]
    assert (res.tp, res.fp, res.fn) == (572, 0, 0)
    assert recall_ceiling(out(*rows), keys) == 1.0
