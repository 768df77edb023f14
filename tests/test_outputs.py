"""What a run writes for a person: the schema file and per-document summaries."""

from __future__ import annotations

import pandas as pd

from aesi_lib.events.kinds import BACKGROUND, DISCOURSE, EVENT, TemplateKind
from aesi_lib.run.outputs import (
    documents_without_mentions,
    schema_markdown,
    schema_summary,
    without_mentions_warning,
)


def _export(rows: list[tuple[str, int, int, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["doc_id", "template", "slot", "predicate", "head"]).assign(
        mention=lambda f: f["head"], dep="nsubj")


# Template 0 is the reporting template of every document; template 1 the attack template of
# d1 only; template 2 a rare one.
EXPORT = _export([
    ("d1", 0, 0, "say", "police"), ("d1", 0, 0, "say", "police"), ("d1", 0, 1, "report", "radio"),
    ("d1", 1, 2, "kill", "soldier"), ("d1", 1, 3, "attack", "FMLN"),
    ("d2", 0, 0, "say", "army"), ("d2", 0, 0, "say", "army"), ("d2", 2, 4, "visit", "minister"),
    ("d3", 0, 0, "say", "police"), ("d3", 0, 1, "say", "spokesman"),
])


def test_schema_names_templates_by_predicates_and_slots_by_heads():
    schema = schema_summary(EXPORT, top=2)
    first = schema["templates"][0]
    assert first["template"] == 0 and first["mentions"] == 7 and first["documents"] == 3
    assert first["name"] == "say/report" and first["predicates"] == [["say", 6], ["report", 1]]
    assert first["slots"][0] == {"slot": 0, "name": "police/army", "mentions": 5,
                                 "heads": [["police", 3], ["army", 2]], "position": "subject",
                                 "share": round(5 / 7, 4), "minor": False,
                                 "role": "subject of say: police, army"}
    assert [t["template"] for t in schema["templates"]] == [0, 1, 2]
    assert first["roles"][0] == {"slot": 0, "role": first["slots"][0]["role"],
                                 "share": round(5 / 7, 4)}


def test_schema_markdown_lists_each_templates_roles_and_its_minor_slots():
    export = pd.concat([EXPORT] + [EXPORT[EXPORT["slot"] == 0]] * 20, ignore_index=True)
    text = schema_markdown(schema_summary(export))
    assert text.startswith("# Schema\n")
    section = text[text.index("## Template 0: say/report"):text.index("## Template 1")]
    assert "| slot 0 | 98.1% | subject of say: police, army |" in section
    assert "Minor slots (1, 1.9% of the mentions): 1." in section


def test_schema_shows_each_templates_kind_with_its_evidence_event_templates_first():
    kinds = {0: TemplateKind(0, DISCOURSE, 0.2, 0.86, 1.0),
             1: TemplateKind(1, EVENT, 3.4, 0.0, 1 / 3),
             2: TemplateKind(2, BACKGROUND, 0.5, 0.1, 1 / 3)}
    schema = schema_summary(EXPORT, kinds=kinds)
    assert [(t["template"], t["kind"]) for t in schema["templates"]] == [
        (1, EVENT), (0, DISCOURSE), (2, BACKGROUND)]
    assert schema["templates"][0]["kind_evidence"] == {
        "salience": 3.4, "discourse_share": 0.0, "documents": 1 / 3}
    text = schema_markdown(schema)
    assert "## Template 1: attack/kill (event)" in text
    assert "Salience 3.40, discourse verbs 0%." in text
    assert "Event templates come first" in text
    assert "(event)" not in schema_markdown(schema_summary(EXPORT))


def test_documents_without_mentions_are_counted_and_the_first_named():
    ids = [f"d{i}" for i in range(9)]
    missing = documents_without_mentions(ids, ["d0", "d0", "d4", "x"])
    assert missing == ["d1", "d2", "d3", "d5", "d6", "d7", "d8"]
    assert without_mentions_warning(missing, len(ids)) == (
        "7 of 9 documents gave no entity mention (not English?), so the export has no row of "
        "theirs: d1, d2, d3, d5, d6 and 2 more")
    assert without_mentions_warning(["es"], 7).endswith("theirs: es")
    assert documents_without_mentions(ids, ids) == []
