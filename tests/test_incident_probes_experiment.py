"""The probes of experiments/incident_probes.py on hand-made event rows: each does what its
name says, and leaves the rows of the product's rule otherwise as they are."""

from __future__ import annotations

import pandas as pd

from experiments import incident_probes


def rows(**columns) -> pd.DataFrame:
    n = len(columns["sent_id"])
    base = {"doc_id": ["d"] * n, "incident": [0] * n, "template": [1] * n, "slot": [0] * n,
            "entity": list(range(n)), "entity_id": list(range(n)),
            "entity_text": [f"e{i}" for i in range(n)], "entity_kind": ["description"] * n,
            "mention": [f"e{i}" for i in range(n)], "start_char": list(range(n))}
    return pd.DataFrame({**base, **columns})


def test_an_incident_is_split_where_its_sentences_are_far_apart():
    split = incident_probes.split_by_gap(rows(sent_id=[0, 1, 5, 6, 12]), 4)
    assert split["incident"].tolist() == [0, 0, 1, 1, 2]
    assert incident_probes.split_by_gap(rows(sent_id=[0, 1, 5]), 10)["incident"].tolist() == [
        0, 0, 0]


def test_the_least_eventful_documents_report_nothing():
    events = pd.concat([rows(sent_id=[0]).assign(doc_id="a"),
                        rows(sent_id=[0, 1]).assign(doc_id="b")])
    export = pd.DataFrame({"doc_id": ["a"] * 10 + ["b"] * 4})
    kept = incident_probes.drop_least_eventful(events, export, 0.5)
    assert set(kept["doc_id"]) == {"b"}
    assert len(incident_probes.drop_least_eventful(events, export, 0.0)) == 3


def test_a_name_inside_a_filler_fills_the_role_too():
    events = rows(sent_id=[0], mention=["members of the FMLN [Farabundo Marti Front]"],
                  entity_text=["members of the FMLN"])
    export = pd.DataFrame({"doc_id": ["d", "d"], "phrase": ["FMLN", "members"],
                           "proper": [True, False]})
    added = incident_probes.with_inner_names(events, export)
    inner = added[added["entity_kind"] == incident_probes.INNER_NAME]
    assert sorted(inner["entity_text"]) == ["farabundo marti front", "fmln"]
    assert set(inner["entity"]) == {1, 2} and list(added.columns) == list(events.columns)


def test_a_description_keeps_the_number_before_it():
    entities = incident_probes.numbered_descriptions(
        ["subversives", "Oqueli"], ["subversives", "Oqueli"], [False, True], None,
        ["THREE subversives", "Mr Oqueli"])
    assert [e.text for e in entities] == ["THREE subversives", "Oqueli"]
