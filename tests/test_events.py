"""Filled events (``aesi_lib.events``): template kinds, document entities and incidents, on
hand-made documents whose incidents are worked out here by hand."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from aesi_lib.events.entities import (
    DESCRIPTION,
    NAME,
    around_phrase,
    document_entities,
    of_complement,
    strip_titles,
)
from aesi_lib.events.incidents import EVENT_COLUMNS, document_events, event_rows, write_events
from aesi_lib.events.kinds import (
    BACKGROUND,
    DISCOURSE,
    EVENT,
    TemplateKind,
    least_count,
    predicate_weights,
    template_kinds,
)
from aesi_lib.events.schema import EventSchema, completed_export, event_schema
from aesi_lib.run.outputs import event_summary
from aesi_lib.run.roles import template_roles

TITLES = {"minister", "leader", "mayor", "general", "front", "liberation"}


def is_title(word: str) -> bool:
    return word in TITLES


TEXTS = {
    # Two incidents (a kidnapping in template 1, a bombing in template 2), a background
    # template (0: say, take), and one entity with three mentions (Oqueli).
    "d1": ("Gunmen kidnapped MNR leader Hector Oqueli Colindres in Guatemala City. "
           "The FMLN said Oqueli was taken to a farm. "
           "Terrorists bombed the bridge with dynamite. "
           "The Farabundo Marti National Liberation Front denied that it held Hector Oqueli."),
    # Background only: no event.
    "d2": "The president said the talks took place in the capital.",
}


def _row(doc: str, sent: int, eid: int, mention: str, predicate: str, dep: str,
         template: int, slot: int, phrase: str | None = None, proper: bool = False,
         occurrence: int = 0) -> dict:
    start = -1
    for _ in range(occurrence + 1):
        start = TEXTS[doc].index(mention, start + 1)
    head = mention.split()[-1]
    return {"doc_id": doc, "sent_id": sent, "entity_id": eid, "head": head,
            "mention": mention, "predicate": predicate, "dep": dep, "template": template,
            "slot": slot, "start_char": start, "end_char": start + len(mention),
            "phrase": phrase or mention, "proper": proper}


def export() -> pd.DataFrame:
    return pd.DataFrame([
        _row("d1", 0, 0, "Gunmen", "kidnap", "nsubj", 1, 0),
        _row("d1", 0, 1, "MNR leader Hector Oqueli Colindres", "kidnap", "dobj", 1, 1,
             proper=True),
        _row("d1", 0, 2, "Guatemala City", "kidnap", "prep_in", 1, 2, proper=True),
        _row("d1", 1, 3, "FMLN", "say", "nsubj", 0, 0, proper=True),
        _row("d1", 1, 4, "Oqueli", "take", "dobj", 0, 1, proper=True),
        _row("d1", 1, 5, "a farm", "take", "prep_to", 0, 2, phrase="farm"),
        _row("d1", 2, 6, "Terrorists", "bomb", "nsubj", 2, 0),
        _row("d1", 2, 7, "the bridge", "bomb", "dobj", 2, 1, phrase="bridge"),
        _row("d1", 2, 8, "dynamite", "bomb", "prep_with", 2, 2),
        _row("d1", 3, 9, "Farabundo Marti National Liberation Front", "deny", "nsubj", 0, 0,
             proper=True),
        _row("d1", 3, 10, "Hector Oqueli", "hold", "dobj", 1, 1, proper=True),
        _row("d2", 0, 11, "president", "say", "nsubj", 0, 0),
        _row("d2", 0, 12, "talks", "take", "nsubj", 0, 3),
    ])


WEIGHTS = {"kidnap": 3.0, "hold": 1.0, "bomb": 3.0, "say": 0.0, "take": 0.0, "deny": 0.5}
KINDS = {0: TemplateKind(0, BACKGROUND, 0.1, 0.4, 1.0),
         1: TemplateKind(1, EVENT, 2.5, 0.0, 0.5),
         2: TemplateKind(2, EVENT, 3.0, 0.0, 0.5)}
SCHEMA = EventSchema(KINDS, WEIGHTS, is_title)
NAMES = {0: "say/take/deny", 1: "kidnap/hold", 2: "bomb"}


def rows_of(frame: pd.DataFrame | None = None, **kwargs) -> pd.DataFrame:
    frame = export() if frame is None else frame
    return event_rows(frame, SCHEMA, template_roles(frame), NAMES, **kwargs)


def test_incidents_are_event_templates_within_a_document_with_entities_in_their_roles():
    rows = rows_of()
    assert list(rows.columns) == list(EVENT_COLUMNS)
    incidents = rows.groupby(["doc_id", "incident"])[["template", "trigger"]].first()
    # The background template (0) yields none; d2, all background, reports no event.
    assert incidents.to_dict("index") == {("d1", 0): {"template": 1, "trigger": "kidnap"},
                                          ("d1", 1): {"template": 2, "trigger": "bomb"}}
    kidnapping = rows[rows["incident"] == 0]
    # Oqueli: three mentions, one entity, its most complete name without the title; two of
    # its mentions carry the kidnapping's slot 1, the third (object of "take") another
    # template, so it is no evidence of this incident.
    oqueli = kidnapping[kidnapping["slot"] == 1]
    assert oqueli["entity_text"].unique().tolist() == ["Hector Oqueli Colindres"]
    assert oqueli["entity_kind"].unique().tolist() == [NAME]
    assert oqueli["entity_id"].tolist() == [1, 10]
    assert oqueli["entity"].nunique() == 1
    # Confidence: the kidnapping's weight (3 + 3 + 3 + 1) of the document's (10 + 9 + 0.5).
    assert kidnapping["confidence"].iloc[0] == pytest.approx(10 / 19.5)
    assert rows.loc[rows["incident"] == 1, "confidence"].iloc[0] == pytest.approx(9 / 19.5)
    # Every evidence span slices the text as the user gave it.
    for row in rows.itertuples():
        assert TEXTS[row.doc_id][row.start_char:row.end_char] == row.mention


def test_the_records_of_a_document_hold_incidents_roles_entities_and_their_mentions(tmp_path):
    rows = rows_of()
    documents = list(document_events(rows))
    assert list(document_events(rows, chunk_rows=1)) == documents
    assert [d["doc_id"] for d in documents] == ["d1"]
    kidnapping, bombing = documents[0]["incidents"]
    assert kidnapping["template_name"] == "kidnap/hold" and kidnapping["trigger"] == "kidnap"
    assert kidnapping["sentences"] == [0, 3] and kidnapping["trigger_sentences"] == [0]
    victim = next(r for r in kidnapping["roles"] if r["slot"] == 1)
    assert [(e["text"], [m["mention"] for m in e["mentions"]]) for e in victim["entities"]] \
        == [("Hector Oqueli Colindres", ["MNR leader Hector Oqueli Colindres", "Hector Oqueli"])]
    assert bombing["roles"][0]["entities"][0]["text"] == "Terrorists"
    paths = write_events(rows, tmp_path)
    lines = [json.loads(line) for line in open(paths["jsonl"], encoding="utf-8")]
    assert lines == documents
    assert pd.read_parquet(paths["parquet"]).equals(rows)
    summary = event_summary(rows, ["d1", "d2"])
    assert summary["d2"] == []
    assert [(i["template_name"], i["roles"][1]) for i in summary["d1"]] == [
        ("kidnap/hold", ["Hector Oqueli Colindres"]), ("bomb", ["bridge"])]


def test_an_incident_below_the_least_confidence_is_not_reported():
    rows = rows_of(min_confidence=0.5)
    assert rows[["doc_id", "template"]].drop_duplicates().values.tolist() == [["d1", 1]]
    assert rows_of(min_confidence=0.99).empty
    assert list(rows_of(min_confidence=0.99).columns) == list(EVENT_COLUMNS)


def test_without_weights_the_confidence_is_the_share_of_mentions():
    frame = export()
    rows = event_rows(frame, EventSchema(KINDS, {}, None), template_roles(frame), NAMES)
    shares = rows.groupby("incident")["confidence"].first().tolist()
    assert shares == pytest.approx([4 / 11, 3 / 11])


def test_a_bare_scoring_file_reads_as_heads_without_spans():
    bare = export()[["doc_id", "head", "template", "slot"]]
    rows = event_rows(bare, EventSchema(KINDS, {}, None), template_roles(completed_export(
        bare)), NAMES)
    assert rows["start_char"].eq(-1).all() and rows["trigger"].eq("").all()
    assert rows["incident"].nunique() == 2


def test_names_with_the_same_last_word_are_two_unless_one_holds_the_others_words():
    heads = ["Romero", "Romero", "Romero"]
    phrases = ["Humberto Romero", "Archbishop Oscar Arnulfo Romero", "Romero"]
    entities = document_entities(heads, phrases, [True] * 3, lambda w: w == "archbishop")
    assert [(e.text, e.mentions) for e in entities] == [
        ("Humberto Romero", (0,)), ("Oscar Arnulfo Romero", (1, 2))]


def test_names_lose_their_titles_and_groups_keep_their_words():
    assert strip_titles("Defense Minister General Enrique Lopez", is_title) == "Enrique Lopez"
    assert strip_titles("Msgr Arnulfo Romero", None) == "Arnulfo Romero"
    assert strip_titles("National Liberation Front", is_title) == "National Liberation Front"
    assert strip_titles("Romero", is_title) == "Romero"


def test_entities_merge_descriptions_by_head_names_by_shorter_forms_and_acronyms():
    heads = ["guerrillas", "Front", "FMLN", "guerrillas", "Colindres", "Oqueli", "Perez",
             "URNG", "Unity", "ELN", "post", "post"]
    phrases = ["urban guerrillas", "Farabundo Marti National Liberation Front", "FMLN",
               "guerrillas", "leader Hector Oqueli Colindres", "Oqueli", "Jose Perez", "URNG",
               "Guatemalan National Revolutionary Unity", "ELN", "border post", "reception post"]
    proper = [False, True, True, False, True, True, True, True, False, True, False, False]
    entities = document_entities(heads, phrases, proper, is_title)
    assert [(e.text, e.kind, e.mentions) for e in entities] == [
        ("urban guerrillas", DESCRIPTION, (0, 3)),
        # An acronym in another order (Spanish), one initial short.
        ("Farabundo Marti National Liberation Front", NAME, (1, 2)),
        ("Hector Oqueli Colindres", NAME, (4, 5)),
        ("Jose Perez", NAME, (6,)),
        # A description whose acronym is a name becomes a name.
        ("Guatemalan National Revolutionary Unity", NAME, (7, 8)),
        ("ELN", NAME, (9,)),
        # One head word, neither phrase within the other: two entities.
        ("border post", DESCRIPTION, (10,)), ("reception post", DESCRIPTION, (11,))]


class FakeWordNet:
    """Tagged counts and verb classes of a few verbs, as WordNet would give them."""

    COUNTS = {"kidnap": 0, "bomb": 0, "say": 2000, "take": 1500, "report": 50}
    CLASSES = {"say": "verb.communication", "report": "verb.communication",
               "kidnap": "verb.contact", "bomb": "verb.competition", "take": "verb.social"}

    def verb_tagged_count(self, lemma: str) -> int:
        return self.COUNTS.get(lemma, 0)

    def verb_class(self, lemma: str) -> str | None:
        return self.CLASSES.get(lemma)

    def is_person_noun(self, word: str) -> bool:
        return word in TITLES


def test_templates_of_salient_verbs_are_events_of_saying_discourse_else_background():
    rows = []
    for doc in range(30):
        rows += [{"doc_id": f"d{doc}", "predicate": p, "template": t}
                 for p, t in (("say", 0), ("take", 0), ("take", 0), ("kidnap", 1),
                              ("bomb", 1), ("report", 2), ("report", 2))]
    frame = pd.DataFrame(rows)
    wordnet = FakeWordNet()
    weights = predicate_weights(frame["predicate"], wordnet.verb_tagged_count)
    # A predicate's weight: the log of its share of the corpus over its reference share
    # (tagged count + 5 over their sum), 0 at least.
    reference = {p: (c + 5) / sum(v + 5 for v in FakeWordNet.COUNTS.values())
                 for p, c in FakeWordNet.COUNTS.items()}
    share = {"say": 1 / 7, "take": 2 / 7, "kidnap": 1 / 7, "bomb": 1 / 7, "report": 2 / 7}
    for p in share:
        assert weights[p] == pytest.approx(max(0.0, math.log(share[p] / reference[p])))
    assert weights["say"] == weights["take"] == 0.0 and weights["kidnap"] > 3
    # The least count of a weighted predicate: W_T's 20 on a corpus of MUC-4's size.
    assert (least_count(98_112), least_count(25_000), least_count(529)) == (20, 5, 2)
    kinds = template_kinds(frame, weights, wordnet.verb_class)
    # 0: a third of its mentions are of saying, its verbs not salient; 1: salient verbs;
    # 2: all of saying.
    assert {t: k.kind for t, k in kinds.items()} == {0: BACKGROUND, 1: EVENT, 2: DISCOURSE}
    assert kinds[0].discourse_share == pytest.approx(1 / 3)
    assert kinds[2].documents == 1.0
    schema = event_schema(frame, wordnet)
    assert schema.kinds == kinds and schema.is_title("minister")


def test_without_wordnet_every_template_is_an_event_template():
    frame = pd.DataFrame({"doc_id": ["a", "b"], "predicate": ["say", "kill"],
                          "template": [0, 1]})
    schema = event_schema(frame, None)
    assert all(k.kind == EVENT and math.isnan(k.salience) for k in schema.kinds.values())
    assert schema.weights == {"kill": 0.0, "say": 0.0} and schema.is_title is None
    assert TemplateKind.from_dict(schema.kinds[0].to_dict()).kind == EVENT


def test_a_kept_reading_reads_the_events_as_the_reading_computed_from_the_export(tmp_path):
    """What a run's events step keeps (``aesi_lib.run.reading``) and ``aesi extract`` reads
    gives the events of new documents that the reading computed again from the run's whole
    export gives; a NaN salience survives the file, the title test is given back."""
    from aesi_lib.run.pipeline import document_event_rows, kept_run_reading, run_schema
    from aesi_lib.run.reading import RunReading, load_reading, save_reading

    frame = export()
    nan_kinds = {**KINDS, 0: TemplateKind(0, BACKGROUND, float("nan"), float("nan"), 1.0)}
    reading = RunReading(EventSchema(nan_kinds, WEIGHTS, is_title), *run_schema(frame))
    save_reading(reading, tmp_path / "reading.json")
    kept = load_reading(tmp_path / "reading.json", is_title)
    assert kept.roles == reading.roles and kept.names == reading.names
    assert kept.events.weights == WEIGHTS and kept.events.is_title is is_title
    assert math.isnan(kept.events.kinds[0].salience)
    assert kept.events.kinds[1] == KINDS[1] and kept.events.kinds[2] == KINDS[2]
    new = frame[frame["doc_id"] == "d1"]
    pd.testing.assert_frame_equal(document_event_rows(new, kept),
                                  document_event_rows(new, reading))
    assert load_reading(tmp_path / "reading.json").events.is_title is None
    # A run made before readings were kept: computed from its export.
    frame.to_parquet(tmp_path / "assignments.parquet", index=False)
    again = kept_run_reading(None, str(tmp_path / "assignments.parquet"), None)
    assert again.roles == reading.roles and again.names == run_schema(frame)[1]


def test_names_with_numbers_keep_them_so_two_dates_are_two_entities():
    """A date's phrase is its month (the phrase drops numbers): read from the mention, *25
    January* and *22 January* stay apart, and a bare *January* joins a dated one."""
    heads = ["January", "January", "January", "Windows", "Windows"]
    phrases = ["January", "January", "January", "Windows", "Windows"]
    mentions = ["25 January", "22 January", "January", "Windows 10", "Windows 7"]
    entities = document_entities(heads, phrases, [True] * 5, None, mentions)
    assert [(e.text, e.mentions) for e in entities] == [
        ("25 January", (0, 2)), ("22 January", (1,)), ("Windows 10", (3,)),
        ("Windows 7", (4,))]
    # Without the mentions' texts, the phrases merge them.
    assert [e.text for e in document_entities(heads, phrases, [True] * 5)] == [
        "January", "Windows"]


def test_a_description_is_written_with_the_of_complement_of_its_first_mention():
    heads = ["members", "members", "OFFICES", "terrorists", "bombs"]
    phrases = ["members", "members", "OFFICES", "terrorists", "bombs"]
    mentions = ["ten members of the\nFMLN", "members", "OFFICES OF LAWYER LUIS ROSSMAN",
                "terrorists of the FMLN, who fled", "bombs in the capital"]
    entities = document_entities(heads, phrases, [False] * 5, None, mentions)
    assert [(e.text, e.mentions) for e in entities] == [
        # The complement ends where an aside begins; other prepositions are not kept.
        ("members of the FMLN", (0, 1)), ("OFFICES OF LAWYER LUIS ROSSMAN", (2,)),
        ("terrorists of the FMLN", (3,)), ("bombs", (4,))]
    assert [e.text for e in document_entities(heads, phrases, [False] * 5, None, mentions,
                                              of_complement_words=0)] == [
        "members", "OFFICES", "terrorists", "bombs"]


def test_an_of_complement_is_kept_only_when_short_and_found_after_the_phrase():
    assert of_complement("members", "members of the FMLN") == " of the FMLN"
    assert of_complement("members", "members of the FMLN", max_words=2) == ""
    assert of_complement("members", "members of the FMLN", max_words=3) == " of the FMLN"
    # A pronoun's phrase is its antecedent's, which its mention does not hold.
    assert of_complement("guerrillas", "they") == ""
    assert of_complement("", "of the FMLN") == ""
    assert of_complement("attack", "attack on the post of the army") == ""


def test_a_bare_pronoun_fills_no_role_and_an_incident_of_only_such_reports_nothing():
    """*it* in "denied that it held Hector Oqueli", its antecedent not found, says nobody a
    reader can name: it fills no role, and the incident's confidence is unchanged."""
    pronoun = _row("d1", 3, 11, "it", "hold", "nsubj", 1, 0)
    frame = pd.concat([export(), pd.DataFrame([pronoun])], ignore_index=True)
    rows = rows_of(frame)
    assert "it" not in set(rows["mention"])
    assert rows.groupby("incident")["confidence"].first().tolist() == pytest.approx(
        [11 / 20.5, 9 / 20.5])
    # A name spelled as a pronoun (*US*, the country) is a name, and fills its role.
    named = frame.copy()
    named.loc[named["mention"] == "it", "proper"] = True
    assert "it" in set(rows_of(named)["mention"])
    # The bombing told only by the pronoun: no incident of template 2.
    alone = frame[frame["template"] != 2].copy()
    alone.loc[alone["mention"] == "it", ["template", "predicate"]] = [2, "bomb"]
    assert set(rows_of(alone)["template"]) == {1}


def test_around_phrase_reads_the_mention_as_the_phrase_writes_it():
    assert around_phrase("members", "ten members of the\nFMLN") == ("ten", " of the FMLN")
    assert around_phrase("guerrillas", "they") is None
