"""MUC-4 answer-key reader: one test per quirk of the key format, bad input, real-file counts."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from aesi_lib.corpus.muc4 import load_muc4_split
from aesi_lib.corpus.muc4_keys import SLOT_LABELS, read_muc4_keys, split_alternatives
from aesi_lib.corpus.types import KeyFiller, KeyTemplate
from aesi_lib.errors import InputError

VALUE_COLUMN = 36


def slot_line(number: int, value: str) -> str:
    return (f"{number}.".ljust(4) + SLOT_LABELS[number]).ljust(VALUE_COLUMN) + value


def block(message_id: str = "TST1-MUC3-0001", **slots: str | list[str]) -> str:
    """A 25-slot key block; ``s4="ATTACK"`` sets slot 4, a list adds continuation lines."""
    values: dict[int, list[str]] = {0: [message_id], 1: ["1"], 4: ["ATTACK"]}
    for name, value in slots.items():
        values[int(name[1:])] = [value] if isinstance(value, str) else value
    lines: list[str] = []
    for n in range(len(SLOT_LABELS)):
        first, *more = values.get(n, ["-"])
        lines.append(slot_line(n, first))
        lines += [" " * VALUE_COLUMN + v for v in more]
    return "\n".join(lines)


def irrelevant_block(message_id: str) -> str:
    return "\n".join(slot_line(n, message_id if n == 0 else "*") for n in range(25))


def read(tmp_path: Path, text: str | bytes) -> list[KeyTemplate]:
    path = tmp_path / "key.muc4"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return read_muc4_keys(path)


def one(tmp_path: Path, **slots: str | list[str]) -> KeyTemplate:
    (template,) = read(tmp_path, "\n" + block(**slots) + "\n")
    return template


# ----------------------------------------------------------------------------- quirks


def test_plain_block(tmp_path: Path) -> None:
    t = one(tmp_path, s9='"TERRORIST"')
    assert (t.message_id, t.template_number, t.optional, t.is_irrelevant) == (
        "TST1-MUC3-0001", "1", False, False)
    assert t.incident_types == ("ATTACK",)
    assert t.slots[9] == (KeyFiller(("TERRORIST",), False, '"TERRORIST"'),)
    assert sorted(t.slots) == list(range(25))
    assert t.source.endswith("key.muc4")


def test_comment_lines_are_skipped(tmp_path: Path) -> None:
    text = (";;; gk converted single murder to attack\n" + block() + "\n;;;  DEA note\n\n"
            "; a comment between blocks\n" + block("TST1-MUC3-0002") + "\n")
    assert [t.message_id for t in read(tmp_path, text)] == ["TST1-MUC3-0001", "TST1-MUC3-0002"]


def test_optional_template(tmp_path: Path) -> None:
    t = one(tmp_path, s1="2 (OPTIONAL)")
    assert t.optional and t.template_number == "2"
    assert t.slots[1][0].raw == "2 (OPTIONAL)"


def test_question_mark_marks_optional_filler(tmp_path: Path) -> None:
    t = one(tmp_path, s9=['? "TERRORIST"', '"SOLDIERS"'], s8="?TERRORIST ACT")
    assert [(f.alternatives, f.optional) for f in t.slots[9]] == [
        (("TERRORIST",), True), (("SOLDIERS",), False)]
    assert t.slots[9][0].raw == '? "TERRORIST"'
    assert t.slots[8][0].optional and t.slots[8][0].alternatives == ("TERRORIST ACT",)


def test_slash_alternatives_strip_quotes(tmp_path: Path) -> None:
    t = one(tmp_path, s10='"FARABUNDO MARTI NATIONAL LIBERATION FRONT" / "FMLN"/"F.M.L.N."')
    assert t.slots[10][0].alternatives == (
        "FARABUNDO MARTI NATIONAL LIBERATION FRONT", "FMLN", "F.M.L.N.")


def test_colon_clause_between_strings(tmp_path: Path) -> None:
    t = one(tmp_path, s19='"FORMER DEFENSE MINISTER" / "MINISTER": "ENRIQUE LOPEZ ALBUJAR"')
    assert t.slots[19][0].alternatives == (
        "FORMER DEFENSE MINISTER", "MINISTER", "ENRIQUE LOPEZ ALBUJAR")


def test_set_fill_colon_clause_keeps_raw(tmp_path: Path) -> None:
    t = one(tmp_path, s20='CIVILIAN: "JESUITS"', s23='DEATH: "MAIDS" / "WOMEN"', s21='6: "JESUITS"')
    assert t.slots[20][0] == KeyFiller(("CIVILIAN", "JESUITS"), False, 'CIVILIAN: "JESUITS"')
    assert t.slots[23][0].alternatives == ("DEATH", "MAIDS", "WOMEN")
    assert t.slots[21][0].alternatives == ("6", "JESUITS")


def test_set_fill_with_empty_string_and_null_number(tmp_path: Path) -> None:
    t = one(tmp_path, s7='GUN: "-"', s21='-: "ORLANDO LETELIER"', s14='-80 / 57-: "MEN"')
    assert t.slots[7][0].alternatives == ("GUN",)
    assert t.slots[21][0].alternatives == ("ORLANDO LETELIER",)
    assert t.slots[14][0].alternatives == ("-80", "57-", "MEN")


def test_location_colons_and_parenthesised_slash_stay(tmp_path: Path) -> None:
    t = one(tmp_path, s3="EL SALVADOR: USULUTAN (CITY / DEPARTMENT) / GUATEMALA")
    assert t.slots[3][0].alternatives == ("EL SALVADOR: USULUTAN (CITY / DEPARTMENT)", "GUATEMALA")


def test_continuation_lines_are_extra_fillers(tmp_path: Path) -> None:
    t = one(tmp_path, s6=['"MORTAR"', '"RIFLE"'], s7=['MORTAR: "MORTAR"', 'RIFLE: "RIFLE"'])
    assert [f.alternatives for f in t.slots[6]] == [("MORTAR",), ("RIFLE",)]
    assert [f.raw for f in t.slots[7]] == ['MORTAR: "MORTAR"', 'RIFLE: "RIFLE"']


def test_all_star_block_is_irrelevant(tmp_path: Path) -> None:
    (t,) = read(tmp_path, irrelevant_block("DEV-MUC3-0002 (NCCOSC)") + "\n")
    assert t.is_irrelevant and t.message_id == "DEV-MUC3-0002"
    assert t.template_number == "*" and t.incident_types == ()
    assert all(t.slots[n] == () for n in range(1, 25))
    assert t.slots[0][0].raw == "DEV-MUC3-0002 (NCCOSC)"


def test_star_slots_in_a_real_template_are_not_irrelevant(tmp_path: Path) -> None:
    t = one(tmp_path, s4="KIDNAPPING", s6="*", s12="*")
    assert not t.is_irrelevant and t.slots[6] == () and t.slots[12] == ()


def test_site_tags_dropped_from_id(tmp_path: Path) -> None:
    t = one(tmp_path, s0="DEV-MUC3-0061 (NOSC, CALSPAN)")
    assert t.message_id == "DEV-MUC3-0061"
    assert t.slots[0][0].raw == "DEV-MUC3-0061 (NOSC, CALSPAN)"


def test_slash_incident_types(tmp_path: Path) -> None:
    assert one(tmp_path, s4="BOMBING / ATTACK").incident_types == ("BOMBING", "ATTACK")


def test_dash_and_star_are_empty(tmp_path: Path) -> None:
    t = one(tmp_path, s9="-", s10="*", s11="? -", s2="- 18 DEC 89")
    assert t.slots[9] == t.slots[10] == t.slots[11] == ()
    assert t.slots[2][0].alternatives == ("- 18 DEC 89",)


def test_trailing_blanks_tabs_and_crlf(tmp_path: Path) -> None:
    text = block(s1="1 ", s4="ATTACK \t", s21='1: "DRIVER" \t').replace("\n", "\r\n") + "\r\n"
    (t,) = read(tmp_path, text)
    assert t.template_number == "1" and t.incident_types == ("ATTACK",)
    assert t.slots[21][0].raw == '1: "DRIVER"'


def test_escaped_quotes_and_broken_quotes(tmp_path: Path) -> None:
    t = one(tmp_path, s10='"\\"9 MAY\\" FPL" / "FPL"', s6='MACHINEGUNS"',
            s23='INJURY: "16 OTHERS / "OTHERS"', s13='ORGANIZATION OFFICE: ""OFFICES"')
    assert t.slots[10][0].alternatives == ('"9 MAY" FPL', "FPL")
    assert t.slots[6][0].alternatives == ("MACHINEGUNS",)
    assert t.slots[23][0].alternatives == ("INJURY", "16 OTHERS", "OTHERS")
    assert t.slots[13][0].alternatives == ("ORGANIZATION OFFICE", "OFFICES")


def test_slots_out_of_order_are_accepted(tmp_path: Path) -> None:
    lines = block(s18='"NAME"', s19='"DESCRIPTION"').split("\n")
    lines[18], lines[19] = lines[19], lines[18]
    (t,) = read(tmp_path, "\n".join(lines))
    assert t.slots[18][0].alternatives == ("NAME",)
    assert t.slots[19][0].alternatives == ("DESCRIPTION",)


def test_split_alternatives_drops_repeats() -> None:
    assert split_alternatives('"A": "A" / "B"') == ("A", "B")


# ----------------------------------------------------------------------------- bad input


def _error(tmp_path: Path, text: str | bytes) -> InputError:
    with pytest.raises(InputError) as info:
        read(tmp_path, text)
    assert info.value.path == str(tmp_path / "key.muc4")
    assert str(tmp_path / "key.muc4") in str(info.value)
    return info.value


def test_missing_slot_0(tmp_path: Path) -> None:
    text = "\n" + block() + "\n\n" + "\n".join(block().split("\n")[1:]) + "\n"
    err = _error(tmp_path, text)
    assert "line 28" in str(err) and "no slot 0" in str(err)


def test_unparseable_slot_number(tmp_path: Path) -> None:
    text = block().replace("12. PHYS TGT: ID", "1Z. PHYS TGT: ID")
    assert "line 13: cannot parse slot number" in str(_error(tmp_path, text))


def test_slot_number_out_of_range(tmp_path: Path) -> None:
    text = block() + "\n25. EXTRA: SLOT                     -"
    assert "line 26: slot number 25" in str(_error(tmp_path, text))


def test_wrong_slot_label(tmp_path: Path) -> None:
    text = block().replace("4.  INCIDENT: TYPE", "4.  INCIDENT: KIND")
    assert "line 5: slot 4 should start with label" in str(_error(tmp_path, text))


def test_repeated_slot(tmp_path: Path) -> None:
    lines = block().split("\n")
    lines[5] = lines[4]
    assert "line 6: slot 4 appears twice" in str(_error(tmp_path, "\n".join(lines)))


def test_continuation_before_any_slot(tmp_path: Path) -> None:
    text = "\n" + " " * VALUE_COLUMN + '"STRAY"\n' + block()
    assert "line 2: continuation line before any slot" in str(_error(tmp_path, text))


def test_non_ascii_binary_junk(tmp_path: Path) -> None:
    lines = block().encode().split(b"\n")
    lines[2] += b" \xff\xfe\x80"
    assert "line 3: non-text bytes" in str(_error(tmp_path, b"\n".join(lines)))
    assert "line 1: control characters" in str(_error(tmp_path, b"\x00\x01\x02" + block().encode()))


def test_empty_and_missing_key_files(tmp_path: Path) -> None:
    assert "empty file" in str(_error(tmp_path, "\n  \n"))
    assert "no key blocks" in str(_error(tmp_path, ";;; only a comment\n"))
    with pytest.raises(InputError, match="no such file"):
        read_muc4_keys(tmp_path / "absent.muc4")


# ----------------------------------------------------------------------------- real key files


@pytest.fixture(scope="module")
def splits(muc4_dir: Path):
    return {name: load_muc4_split(muc4_dir, name) for name in ("dev", "tst1", "tst2")}


def _by_message(keys: list[KeyTemplate]) -> dict[str, list[KeyTemplate]]:
    out: dict[str, list[KeyTemplate]] = defaultdict(list)
    for k in keys:
        out[k.message_id].append(k)
    return out


# README table: key blocks, all-* blocks, msgs with no relevant incident, real templates,
# OPTIONAL, msgs with >=1 real template.
README_COUNTS = {
    "dev": (1717, 603, 600, 1114, 161, 700),
    "tst1": (135, 50, 50, 85, 6, 50),
    "tst2": (140, 34, 34, 106, 25, 66),
}

# README table: (all, non-optional) per incident type of the real templates.
README_TYPES = {
    "dev": {"ATTACK": (636, 522), "BOMBING": (298, 274), "KIDNAPPING": (114, 109),
            "ARSON": (43, 37), "ROBBERY": (17, 9), "FORCED WORK STOPPAGE": (6, 2)},
    "tst1": {"ATTACK": (48, 44), "BOMBING": (22, 20), "KIDNAPPING": (6, 6), "ARSON": (7, 7),
             "ROBBERY": (2, 2)},
    "tst2": {"ATTACK": (49, 43), "BOMBING": (28, 23), "KIDNAPPING": (25, 12), "ARSON": (1, 1),
             "ROBBERY": (1, 1), "FORCED WORK STOPPAGE": (1, 1), "BOMBING / ATTACK": (1, 0)},
}


@pytest.mark.muc4
@pytest.mark.parametrize("name", ["dev", "tst1", "tst2"])
def test_key_counts_match_readme(splits, name: str) -> None:
    keys = splits[name].keys
    assert keys is not None
    by_msg = _by_message(keys)
    real = [k for k in keys if not k.is_irrelevant]
    measured = (
        len(keys),
        sum(k.is_irrelevant for k in keys),
        sum(all(k.is_irrelevant for k in ks) for ks in by_msg.values()),
        len(real),
        sum(k.optional for k in real),
        sum(any(not k.is_irrelevant for k in ks) for ks in by_msg.values()),
    )
    assert measured == README_COUNTS[name]


@pytest.mark.muc4
@pytest.mark.parametrize("name", ["dev", "tst1", "tst2"])
def test_incident_type_counts_match_readme(splits, name: str) -> None:
    real = [k for k in splits[name].keys if not k.is_irrelevant]
    every = Counter(" / ".join(k.incident_types) for k in real)
    required = Counter(" / ".join(k.incident_types) for k in real if not k.optional)
    assert {t: (every[t], required[t]) for t in every} == README_TYPES[name]


@pytest.mark.muc4
@pytest.mark.parametrize("name", ["dev", "tst1", "tst2"])
def test_every_key_has_a_text_and_every_text_a_key(splits, name: str) -> None:
    split = splits[name]
    assert set(_by_message(split.keys)) == {d.doc_id for d in split.documents}


@pytest.mark.muc4
def test_other_real_key_facts(splits) -> None:
    dev = _by_message(splits["dev"].keys)
    assert max(sum(not k.is_irrelevant for k in ks) for ks in dev.values()) == 14
    # The three DEV messages with a stray all-* block next to real templates (README).
    mixed = sorted(m for m, ks in dev.items() if len({k.is_irrelevant for k in ks}) == 2)
    assert mixed == ["DEV-MUC3-1012", "DEV-MUC3-1135", "DEV-MUC3-1230"]
    optional_fillers = {
        name: sum(f.optional for k in s.keys for fs in k.slots.values() for f in fs)
        for name, s in splits.items()
    }
    assert optional_fillers == {"dev": 242, "tst1": 15, "tst2": 86}
    assert all(k.template_number == "*" for s in splits.values() for k in s.keys
               if k.is_irrelevant)


@pytest.mark.muc4
def test_known_template(splits) -> None:
    t = next(k for k in splits["dev"].keys
             if k.message_id == "DEV-MUC3-0001" and k.template_number == "2")
    assert t.incident_types == ("ATTACK",)
    assert [f.alternatives for f in t.slots[6]] == [("MORTAR",), ("RIFLE",)]
    assert t.slots[9] == (KeyFiller(("TERRORIST",), True, '? "TERRORIST"'),)
    assert t.slots[10] == ()
    assert t.slots[13][0].alternatives == ("TRANSPORTATION ROUTE", "LAS CANAS BRIDGE")
