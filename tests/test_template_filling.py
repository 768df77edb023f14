"""The template-filling metric of GTT and IterX (``aesi_lib.evaluate.template_filling``), on
hand-made keys whose scores are counted here by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from aesi_lib.corpus.types import KeyFiller, KeyTemplate
from aesi_lib.evaluate.incident_map import TemplateMap, learn_template_map, predicted_templates
from aesi_lib.evaluate.template_filling import (
    TYPE_ROLE,
    FilledTemplate,
    align_document,
    gold_templates,
    normalize_mention,
    score_templates,
)

ROLE_SLOT = {"PerpInd": 9, "PerpOrg": 10, "Target": 12, "Victim": 18, "Weapon": 6,
             "description": 19}


def key(mid: str, typ: str = "ATTACK", **roles: list[str]) -> KeyTemplate:
    """A key template; ``Victim=["JOSE / PEPE", "? ANA"]``: ``/`` separates alternatives."""
    slots = {ROLE_SLOT[role]: tuple(
        KeyFiller(tuple(a.strip() for a in line.lstrip("? ").split(" / ")),
                  line.startswith("?"), line) for line in lines)
        for role, lines in roles.items()}
    return KeyTemplate(mid, "1", False, False, tuple(t.strip() for t in typ.split("/")), slots)


def irrelevant(mid: str) -> KeyTemplate:
    return KeyTemplate(mid, "*", False, True, ("*",), {})


def test_mentions_are_compared_lowercased_without_punctuation_and_articles():
    assert normalize_mention("The  F.M.L.N.'s\nCommand") == "fmlns command"
    assert normalize_mention("A BOMB") == "bomb"
    assert normalize_mention("ANTHEM") == "anthem"          # "an" only as a word


def test_gold_templates_take_the_five_roles_and_drop_strings_the_text_lacks():
    keys = [key("D1", "ATTACK / BOMBING", PerpInd=["URBAN GUERRILLAS / GUERRILLAS"],
                Victim=["? JOSE PEREZ"], description=["PEASANTS"], Weapon=["DYNAMITE"]),
            key("D1", "ATTACK / BOMBING", PerpInd=["URBAN GUERRILLAS / GUERRILLAS"],
                Victim=["? JOSE PEREZ"], description=["PEASANTS"], Weapon=["DYNAMITE"]),
            irrelevant("D2")]
    texts = {"D1": "Urban guerrillas killed Jose Perez with a bomb.", "D2": "Nothing."}
    gold = gold_templates(keys, texts)
    assert list(gold) == ["D1", "D2"] and gold["D2"] == []
    assert len(gold["D1"]) == 1                              # identical templates count once
    template = gold["D1"][0]
    assert template.types == ("attack", "bombing")
    assert template.entities("PerpInd") == (("urban guerrillas", "guerrillas"),)
    assert template.entities("Victim") == (("jose perez",),)   # optional counts as any other
    assert template.entities("Weapon") == ()                 # "dynamite" is not in the text
    assert "description" not in template.roles               # HUM TGT: DESCRIPTION is not used
    assert gold_templates(keys)["D1"][0].entities("Weapon") == (("dynamite",),)


def _filled(typ, **roles):
    return FilledTemplate((typ,), {r: tuple((normalize_mention(m),) for m in ms)
                                   for r, ms in roles.items()})


def test_a_document_is_scored_under_its_best_one_to_one_alignment():
    gold = [FilledTemplate(("attack",), {"PerpInd": (("guerrillas",),),
                                         "Victim": (("jose",), ("ana",))}),
            FilledTemplate(("kidnapping",), {"Victim": (("mayor",),)})]
    pred = [_filled("kidnapping", Victim=["mayor", "jose"]),
            _filled("attack", PerpInd=["guerrillas"], Victim=["ana"]),
            _filled("bombing", Weapon=["bomb"])]
    counts, mapping = align_document(pred, gold)
    assert mapping == (1, 0, -1)
    # Types: 2 aligned of 3 predicted and 2 gold.
    assert (counts[TYPE_ROLE].p_num, counts[TYPE_ROLE].p_den) == (2, 3)
    assert (counts[TYPE_ROLE].r_num, counts[TYPE_ROLE].r_den) == (2, 2)
    # Victim: mayor and ana right, jose wrong (another template's victim); found mayor, ana.
    v = counts["Victim"]
    assert (v.p_num, v.p_den, v.r_num, v.r_den) == (2, 3, 2, 3)
    assert (counts["PerpInd"].p_num, counts["PerpInd"].r_num) == (1, 1)
    assert (counts["Weapon"].p_num, counts["Weapon"].p_den) == (0, 1)   # spurious template


def test_types_must_agree_and_a_slash_type_takes_either():
    gold = [FilledTemplate(("attack", "bombing"), {"Target": (("embassy",),)})]
    counts, mapping = align_document([_filled("bombing", Target=["the embassy"])], gold)
    assert mapping == (0,) and counts["Target"].p_num == 1
    counts, mapping = align_document([_filled("arson", Target=["embassy"])], gold)
    assert mapping == (-1,) and counts["Target"].p_num == 0 and counts["Target"].r_den == 1


def test_the_split_score_sums_documents_and_averages_over_roles_and_types():
    gold = {"D1": [FilledTemplate(("attack",), {"PerpOrg": (("fmln",),),
                                                "Target": (("bridge",),)})],
            "D2": []}
    pred = {"D1": [_filled("attack", PerpOrg=["FMLN"], Target=["tower"])],
            "D2": [_filled("attack", PerpOrg=["army"])],
            "D3": [_filled("attack", PerpOrg=["police"])]}      # not in the split: not counted
    result = score_templates(pred, gold)
    micro = result.micro
    # Correct: type of D1, fmln -> 2 of 5 predicted (2 types, fmln, tower, army).
    assert (micro.p_num, micro.p_den) == (2, 5)
    # Found: type of D1, fmln -> 2 of 3 gold (1 type, fmln, bridge).
    assert (micro.r_num, micro.r_den) == (2, 3)
    assert micro.f1 == pytest.approx(2 * 0.4 * (2 / 3) / (0.4 + 2 / 3))
    assert result.to_dict()["Target"]["r_den"] == 1 and result.documents == 2


def _events(rows: list[tuple[str, int, int, str, int, int, str, str]]) -> pd.DataFrame:
    """Event rows: (doc, incident, template, trigger, slot, entity, text, kind), each an
    evidence mention of sentence 0 whose predicate is its incident's trigger."""
    frame = pd.DataFrame(rows, columns=["doc_id", "incident", "template", "trigger", "slot",
                                        "entity", "entity_text", "entity_kind"])
    return frame.assign(sent_id=0, predicate=frame["trigger"])


def test_an_incident_becomes_one_template_of_its_sub_types_type_with_entities_in_roles():
    events = _events([
        ("D1", 0, 4, "attack", 0, 0, "The guerrillas", "description"),
        ("D1", 0, 4, "attack", 2, 1, "two peasants", "description"),
        ("D1", 0, 4, "attack", 2, 1, "two peasants", "description"),   # one entity, once
        ("D1", 0, 4, "attack", 0, 2, "FMLN", "name"),
        ("D1", 1, 7, "explode", 0, 3, "Lopez", "name"),
        ("D2", 0, 4, "kidnap", 2, 0, "Jose Perez", "name"),
        ("D2", 1, 9, "say", 0, 1, "police", "description")])         # no type: no template
    tmap = TemplateMap(types={4: "attack", 7: "bombing"},
                       trigger_types={(4, "kidnap"): "kidnapping"},
                       roles={(4, 0, "description"): "PerpInd", (4, 0, "name"): "PerpOrg",
                              (4, 2, "description"): "Victim", (4, 2, "name"): "Victim"})
    pred = predicted_templates(events, tmap)
    assert [t.types for t in pred["D1"]] == [("attack",), ("bombing",)]
    assert pred["D1"][0].roles == {"PerpInd": (("guerrillas",),), "Victim": (("two peasants",),),
                                   "PerpOrg": (("fmln",),)}
    assert pred["D1"][1].roles == {}
    assert [(t.types, t.roles) for t in pred["D2"]] == [(("kidnapping",),
                                                         {"Victim": (("jose perez",),)})]
    assert tmap.incident_type(9, "say") is None
    assert tmap.to_dict()["roles"]["4/0/name"] == "PerpOrg"


def test_an_incident_whose_sentences_stand_for_two_types_becomes_two_templates():
    events = _events([
        ("D1", 0, 4, "murder", 2, 0, "Hoyos", "name"),
        ("D1", 0, 4, "murder", 2, 1, "Pastrana", "name"),
        ("D1", 0, 4, "murder", 2, 0, "Hoyos", "name"),
        ("D1", 0, 4, "murder", 0, 2, "gunmen", "description")]).assign(
        sent_id=[0, 1, 2, 2], predicate=["murder", "kidnap", "murder", "murder"])
    tmap = TemplateMap(types={4: "attack"}, trigger_types={(4, "kidnap"): "kidnapping"},
                       roles={(4, 2, "name"): "Victim", (4, 0, "description"): "PerpInd"})
    pred = predicted_templates(events, tmap)
    # Sentences 0 and 2 are the murder's, sentence 1 (whose own trigger is kidnap) the
    # kidnapping's, each with the entities of its own sentences.
    assert [(t.types, t.roles) for t in pred["D1"]] == [
        (("attack",), {"Victim": (("hoyos",),), "PerpInd": (("gunmen",),)}),
        (("kidnapping",), {"Victim": (("pastrana",),)})]
    assert [t.types for t in predicted_templates(events, tmap, split=False)["D1"]] == [
        ("attack",)]


def test_a_sentence_that_names_only_new_victims_or_targets_starts_another_template():
    # Two murders told one after the other in one incident: sentence 2 names a victim the
    # template so far does not hold, so it starts another; sentence 1 names no victim or
    # target and stays, and sentence 3 names the second victim again beside a target.
    events = _events([
        ("D1", 0, 4, "murder", 0, 0, "gunmen", "description"),
        ("D1", 0, 4, "murder", 2, 1, "Hoyos", "name"),
        ("D1", 0, 4, "murder", 5, 2, "rifles", "description"),
        ("D1", 0, 4, "murder", 0, 0, "gunmen", "description"),
        ("D1", 0, 4, "murder", 2, 3, "Pastrana", "name"),
        ("D1", 0, 4, "murder", 2, 3, "Pastrana", "name"),
        ("D1", 0, 4, "murder", 3, 4, "his car", "description")]).assign(
        sent_id=[0, 0, 1, 2, 2, 3, 3])
    tmap = TemplateMap(types={4: "attack"}, trigger_types={},
                       roles={(4, 0, "description"): "PerpInd", (4, 2, "name"): "Victim",
                              (4, 3, "description"): "Target", (4, 5, "description"): "Weapon"})
    pred = predicted_templates(events, tmap)
    assert [(t.types, t.roles) for t in pred["D1"]] == [
        (("attack",), {"PerpInd": (("gunmen",),), "Victim": (("hoyos",),),
                       "Weapon": (("rifles",),)}),
        (("attack",), {"PerpInd": (("gunmen",),), "Victim": (("pastrana",),),
                       "Target": (("his car",),)})]
    # A perpetrator named again does not split; without roles to split by, one template.
    assert [t.roles for t in predicted_templates(events, tmap, split_roles=())["D1"]] == [
        {"PerpInd": (("gunmen",),), "Victim": (("hoyos",), ("pastrana",)),
         "Weapon": (("rifles",),), "Target": (("his car",),)}]
    assert len(predicted_templates(events, tmap, split=False)["D1"]) == 1


def test_the_map_learns_types_sub_types_and_several_cells_a_role_on_dev():
    # Twelve DEV documents, each an attack by guerrillas on a named victim, five of them
    # kidnappings whose incidents' trigger is "kidnap" (the least count of a sub-type of its
    # own); each incident holds the perpetrator in slot 0 and the victim in slot 2 (a name)
    # or slot 3 (a name too), and a spurious description in slot 5.
    keys, events, rows = [], [], []
    for i in range(12):
        doc, victim = f"D{i}", f"VICTIM{i}"
        kidnapping = i >= 7
        keys.append(key(doc, "KIDNAPPING" if kidnapping else "ATTACK",
                        PerpInd=["GUERRILLAS"], Victim=[victim]))
        trigger = "kidnap" if kidnapping else "attack"
        events += [(doc, 0, 1, trigger, 0, 0, "guerrillas", "description"),
                   (doc, 0, 1, trigger, 2 if i % 2 else 3, 1, victim.lower(), "name"),
                   (doc, 0, 1, trigger, 5, 2, "people", "description")]
        rows += [{"doc_id": doc, "head": "GUERRILLAS", "template": 1, "slot": 0},
                 {"doc_id": doc, "head": victim, "template": 1, "slot": 2},
                 {"doc_id": doc, "head": "PEOPLE", "template": 0, "slot": 5}]
    tmap = learn_template_map(_events(events), pd.DataFrame(rows), keys)
    assert tmap.types == {1: "attack"}
    assert tmap.trigger_types == {(1, "kidnap"): "kidnapping"}
    assert tmap.roles == {(1, 0, "description"): "PerpInd", (1, 2, "name"): "Victim",
                          (1, 3, "name"): "Victim"}
    pred = predicted_templates(_events(events), tmap)
    gold = gold_templates(keys)
    assert score_templates(pred, gold).micro.f1 == pytest.approx(1.0)


def test_the_map_learns_a_sub_type_from_sentences_whose_trigger_is_not_the_incidents():
    # Twelve DEV documents, seven bombings and five arsons (by their keys); in each arson a
    # second sentence's own trigger is "burn", while every incident's trigger stays "explode".
    # Learned from the incidents' triggers, "burn" would have no type of its own; from the
    # sentences', it is arson.
    keys, events = [], []
    for i in range(12):
        doc, arson = f"D{i}", i >= 7
        keys.append(key(doc, "ARSON" if arson else "BOMBING", Target=[f"HOUSE{i}"]))
        events += [(doc, 0, 1, "explode", 2, 0, f"house{i}", "description", 0, "explode"),
                   (doc, 0, 1, "explode", 2, 0, f"house{i}", "description", 0, "explode")]
        if arson:
            events.append((doc, 0, 1, "explode", 2, 0, f"house{i}", "description", 1, "burn"))
    frame = pd.DataFrame(events, columns=["doc_id", "incident", "template", "trigger", "slot",
                                          "entity", "entity_text", "entity_kind", "sent_id",
                                          "predicate"])
    rows = pd.DataFrame([{"doc_id": f"D{i}", "head": f"HOUSE{i}", "template": 1, "slot": 2}
                         for i in range(12)])
    tmap = learn_template_map(frame, rows, keys)
    assert tmap.types == {1: "bombing"}
    assert tmap.trigger_types == {(1, "burn"): "arson"}
    # An arson document's incident reads as a bombing (sentence 0) and an arson (sentence 1).
    assert [t.types for t in predicted_templates(frame, tmap)["D9"]] == [("bombing",),
                                                                        ("arson",)]


def test_aesi_evaluate_prints_the_template_filling_metric_with_dev_keys(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    from aesi_lib.corpus.demo import demo_data_dir

    keys = demo_data_dir() / "demo-key.muc4"
    export = tmp_path / "assignments.csv"
    pd.DataFrame([{"doc_id": f"DEMO-{i:04d}", "head": "GUERRILLAS", "mention": "the guerrillas",
                   "template": 0, "slot": 0} for i in range(1, 41)]).to_csv(export, index=False)
    repo = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "aesi_cli", "evaluate", "--assignments",
                           str(export), "--keys", str(keys), "--map-keys", str(keys), "--json",
                           str(tmp_path / "scores.json")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "template filling (the metric of GTT and IterX, mapped on DEV):" in done.stdout
    assert "| micro |" in done.stdout and "| PerpInd |" in done.stdout
    stored = json.loads((tmp_path / "scores.json").read_text())["template_filling"]
    assert set(stored) >= {"micro", "map", "PerpInd", "Weapon"}
    assert stored["texts_checked"] is False             # the demo's texts are not MUC-4's
    assert "the MUC-4 texts were not found" in done.stdout
