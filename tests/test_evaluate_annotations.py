"""Scoring a run against a span-annotated corpus (``aesi_lib.evaluate.annotations``), on a
hand-made file whose counts are worked out here by hand."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from test_cli_failures import aesi, one_line_error

from aesi_lib.errors import InputError
from aesi_lib.evaluate.annotations import (
    GoldArgument,
    cross_fitted,
    head_spans,
    learn_cells,
    match_index,
    missed_kinds,
    read_annotations,
    score_annotations,
)

TEXTS = {
    "1": "The hackers stole the data of Acme Corp users.",
    "2": "Hackers encrypted the files of the city of Baltimore.",
    "3": "Researchers patched the Windows flaw.",
    "4": "The hackers demanded a ransom from the hospital.",
}


def _mention(doc: str, mention: str, phrase: str, predicate: str, dep: str, template: int,
             slot: int) -> dict:
    start = TEXTS[doc].index(mention)
    return {"doc_id": doc, "head": phrase.split()[-1], "mention": mention, "phrase": phrase,
            "predicate": predicate, "dep": dep, "template": template, "slot": slot,
            "start_char": start, "end_char": start + len(mention)}


def export() -> pd.DataFrame:
    return pd.DataFrame([
        _mention("1", "hackers", "hackers", "steal", "nsubj", 0, 0),
        _mention("1", "data of Acme Corp users", "data", "steal", "dobj", 0, 1),
        _mention("2", "Hackers", "Hackers", "encrypt", "nsubj", 0, 0),
        _mention("2", "files of the city of Baltimore", "files", "encrypt", "dobj", 0, 1),
        _mention("3", "Researchers", "Researchers", "patch", "nsubj", 1, 0),
        _mention("3", "Windows flaw", "Windows flaw", "patch", "dobj", 1, 1),
        _mention("4", "hackers", "hackers", "demand", "nsubj", 0, 0),
        _mention("4", "hospital", "hospital", "demand", "prep_from", 0, 2),
    ])


def _argument(doc: str, role: str, text: str) -> dict:
    start = TEXTS[doc].index(text)
    return {"role": role, "start": start, "end": start + len(text), "text": text}


def write_annotations(path) -> None:
    lines = [
        {"id": "1", "events": [{"type": "Attack", "subtype": "Databreach", "arguments": [
            _argument("1", "Attacker", "The hackers"),
            _argument("1", "Data", "data of Acme Corp users"),
            _argument("1", "Victim", "Acme Corp users")]}]},
        {"id": "2", "arguments": [_argument("2", "Attacker", "Hackers"),
                                  _argument("2", "Victim", "city of Baltimore")]},
        {"id": "3", "arguments": [_argument("3", "Releaser", "Researchers")]},
        {"id": "4", "arguments": [_argument("4", "Attacker", "The hackers"),
                                  _argument("4", "Attacker", "hackers"),
                                  _argument("4", "Victim", "the hospital")]},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def test_the_file_is_read_with_events_or_without_and_one_entity_per_role_and_text(tmp_path):
    path = tmp_path / "gold.jsonl"
    write_annotations(path)
    gold = read_annotations(path)
    assert len(gold) == 9
    assert gold[0] == GoldArgument("1", "Attacker", 0, 11, "Attacker|the hackers",
                                   "Attack/Databreach", "The hackers")
    # "The hackers" and "hackers" in document 4: two texts, two entities without ids.
    assert len({a.entity for a in gold if a.doc_id == "4" and a.role == "Attacker"}) == 2


def test_a_bad_line_is_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "1", "arguments": [{"role": "A", "start": 5}]}\n')
    with pytest.raises(InputError, match="line 1: an argument needs 'role', 'start' and 'end'"):
        read_annotations(path)
    path.write_text('{"id": "1"}\nnot json\n')
    with pytest.raises(InputError, match="line 2: not JSON"):
        read_annotations(path)


def test_the_head_is_where_the_phrase_ends_inside_the_mention():
    frame = export()
    starts, ends = head_spans(frame)
    data = frame.index[frame["mention"] == "data of Acme Corp users"][0]
    assert TEXTS["1"][starts[data]:ends[data]] == "data"
    flaw = frame.index[frame["mention"] == "Windows flaw"][0]
    assert TEXTS["3"][starts[flaw]:ends[flaw]] == "flaw"


def test_a_mention_matches_when_the_spans_overlap_and_its_head_is_inside(tmp_path):
    path = tmp_path / "gold.jsonl"
    write_annotations(path)
    index = match_index(export(), read_annotations(path))
    # "data of Acme Corp users" (head: data) overlaps the Victim "Acme Corp users" but its
    # head lies outside it: a Data argument only. "files of the city of Baltimore" (head:
    # files) is not the Victim "city of Baltimore" either.
    assert index.matches[("1", 22, 45)] == {"Data": frozenset({"Data|data of acme corp users"})}
    assert index.matches[("2", 22, 52)] == {}
    assert index.ceiling(index.gold) == {"Attacker": 1.0, "Data": 1.0, "Releaser": 1.0,
                                         "Victim": pytest.approx(1 / 3)}


def test_cells_are_learned_on_one_half_and_scored_on_the_other(tmp_path):
    path = tmp_path / "gold.jsonl"
    write_annotations(path)
    index = match_index(export(), read_annotations(path))
    cells = learn_cells(index, "aesi", ["1", "2", "3", "4"], multi=False)
    assert cells["Attacker"] == [(0, 0)] and cells["Releaser"] == [(1, 0)]
    assert cells["Victim"] == [(0, 2)]
    # Halves {1, 3} and {2, 4}. Mapped on {1, 3}: Attacker (0, 0), Data (0, 1), Releaser
    # (1, 0), Victim none (no mention matches its one entity there); scored on {2, 4}:
    # Attacker takes "Hackers" (2) and "hackers" (4), both right, and finds all 3 entities
    # (the "hackers" of 4 is inside both of its Attacker spans); Data takes "files..." (2),
    # wrong. Mapped on {2, 4}: Attacker (0, 0), Victim (0, 2); scored on {1, 3}: the
    # "hackers" of 1 right, no mention of (0, 2) there.
    counts = cross_fitted(index, "aesi", multi=False, halves=(["1", "3"], ["2", "4"]))
    attacker, data, victim = counts["Attacker"], counts["Data"], counts["Victim"]
    assert (attacker.p_num, attacker.p_den, attacker.r_num, attacker.r_den) == (3, 3, 4, 4)
    assert (data.p_num, data.p_den) == (0, 1)
    assert (victim.p_num, victim.p_den, victim.r_den) == (0, 0, 3)
    assert counts["Releaser"].r_den == 1 and counts["Releaser"].r_num == 0


def test_the_scores_hold_both_baselines_and_both_mappings(tmp_path):
    path = tmp_path / "gold.jsonl"
    write_annotations(path)
    scores = score_annotations(export(), read_annotations(path))
    assert {k for k in scores if "/" in k} == {
        f"{s}/{m}" for s in ("aesi", "position", "predicate+position")
        for m in ("single", "multi")}
    assert scores["documents"] == 4 and scores["gold_arguments"] == 9
    single = scores["aesi/single"]
    assert set(single["roles"]) == {"Attacker", "Data", "Releaser", "Victim"}
    assert 0 <= single["macro_f1"] <= 1 and single["micro"]["r_den"] == 9


def test_aesi_evaluate_scores_an_export_against_an_annotations_file(tmp_path):
    export_path, gold_path = tmp_path / "assignments.csv", tmp_path / "gold.jsonl"
    export().to_csv(export_path, index=False)
    write_annotations(gold_path)
    done = aesi(tmp_path, "evaluate", "--assignments", str(export_path), "--annotations",
                str(gold_path), "--json", str(tmp_path / "scores.json"))
    assert done.returncode == 0, done.stderr
    assert "4 annotated documents, 9 gold arguments" in done.stdout
    assert "| aesi | multi |" in done.stdout and "| predicate+position | single |" in done.stdout
    stored = json.loads((tmp_path / "scores.json").read_text())
    assert stored["ceiling"]["Victim"] == pytest.approx(1 / 3)
    # Annotations of other documents: one line naming the file.
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "99", "arguments": [{"role": "A", "start": 0, "end": 3}]}\n')
    line = one_line_error(aesi(tmp_path, "evaluate", "--assignments", str(export_path),
                               "--annotations", str(other)), "other.jsonl",
                          "none of its 1 documents")
    assert "is in" in line


def test_what_no_mention_reaches_is_told_by_what_it_is(tmp_path):
    path = tmp_path / "gold.jsonl"
    write_annotations(path)
    gold = read_annotations(path)
    # Document 5 has no mention at all: a pronoun, an amount, and a name where no mention is.
    gold += [GoldArgument("5", "Attacker", 0, 4, "Attacker|they", "", "They"),
             GoldArgument("5", "Number-of-Data", 11, 17, "n|40,000", "", "40,000"),
             GoldArgument("5", "Victim", 30, 34, "Victim|acme", "", "Acme")]
    missed = missed_kinds(export(), gold)
    assert missed.to_dict("records") == [
        {"role": "Attacker", "kind": "pronoun", "entities": 1},
        {"role": "Number-of-Data", "kind": "number or amount", "entities": 1},
        # "Acme Corp users" and "city of Baltimore": inside mentions whose heads ("data",
        # "files") lie outside them; "Acme" of document 5: no mention there.
        {"role": "Victim", "kind": "inside a mention, not its head", "entities": 2},
        {"role": "Victim", "kind": "no mention there", "entities": 1}]
