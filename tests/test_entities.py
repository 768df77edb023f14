"""Entity rules (aesi_lib.entities): one test per rule, on sentences parsed by spaCy.

Label-set independence (UD vs ClearNLP) is tested on hand-built parses at the end, and with
Stanza documents in test_parse_stanza.py.
"""

from __future__ import annotations

import dataclasses

import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.entities import (
    ENTITY_COLUMNS,
    EntityRecord,
    EntityRules,
    entities_frame,
    extract_entities,
    mention_text,
)
from aesi_lib.entities.event_nouns import EventNoun
from aesi_lib.entities.rules import stored_config_id
from aesi_lib.parse.spacy_backend import SpacyParser
from aesi_lib.parse.types import ParsedDocument, Sentence, Token


@pytest.fixture(scope="session")
def spacy_parser() -> SpacyParser:
    # Loaded once per session (shared with other modules through the pipeline cache).
    return SpacyParser().load()


def entities(parser: SpacyParser, text: str, rules: EntityRules | None = None
             ) -> list[EntityRecord]:
    parsed = next(parser.parse([Document("t", text, "test", "test")]))
    return extract_entities(parsed) if rules is None else extract_entities(parsed, rules)


def triples(parser: SpacyParser, text: str, rules: EntityRules | None = None
            ) -> set[tuple[str, str, str]]:
    return {(r.head_lemma, r.predicate, r.dep) for r in entities(parser, text, rules)}


def test_r1_pronouns_are_not_heads(spacy_parser):
    assert triples(spacy_parser, "He killed them.") == set()
    assert triples(spacy_parser, "The guerrillas attacked the village.") == {
        ("guerrilla", "attack", "nsubj"), ("village", "attack", "dobj")}


def test_r2_copula_and_prepositional_verbs_are_not_predicates(spacy_parser):
    assert triples(spacy_parser, "The mayor is a lawyer.") == set()
    got = triples(spacy_parser, "According to the police, the terrorists attacked the bridge.")
    assert ("police", "accord", "prep_to") not in got
    assert ("police", "attack", "prep_according_to") in got


def test_r3_subject(spacy_parser):
    assert ("soldier", "find", "nsubj") in triples(spacy_parser, "Soldiers found 20 bodies.")


def test_r4_direct_and_indirect_objects(spacy_parser):
    got = triples(spacy_parser, "The army gave the peasants food.")
    assert got == {("army", "give", "nsubj"), ("peasant", "give", "iobj"),
                   ("food", "give", "dobj")}


def test_r5_passive_subject_is_object_and_agent_is_subject(spacy_parser):
    assert triples(spacy_parser, "The mayor was kidnapped by guerrillas.") == {
        ("mayor", "kidnap", "dobj"), ("guerrilla", "kidnap", "nsubj")}
    assert triples(spacy_parser, "The mayor was kidnapped.") == {("mayor", "kidnap", "dobj")}


def test_r6_prepositional_arguments(spacy_parser):
    got = triples(spacy_parser, "The soldiers fought in the mountains near the border.")
    assert ("mountain", "fight", "prep_in") in got
    # "near the border" modifies the noun, not the verb.
    assert not any(h == "border" for h, _, _ in got)
    got = triples(spacy_parser, "Because of the attack, the army closed the road yesterday.")
    assert ("attack", "close", "prep_because_of") in got
    # A bare temporal noun is not an argument.
    assert not any(h == "yesterday" for h, _, _ in got)


def test_r7_conjoined_nouns(spacy_parser):
    got = triples(spacy_parser, "The guerrillas killed the priest and his housekeeper.")
    assert {("priest", "kill", "dobj"), ("housekeeper", "kill", "dobj")} <= got
    # A chain of conjuncts, and a pronoun as the first conjunct.
    got = triples(spacy_parser,
                  "Guerrillas attacked the embassy, the bank, and the police station in Lima.")
    assert {("embassy", "attack", "dobj"), ("bank", "attack", "dobj"),
            ("station", "attack", "dobj")} <= got
    got = triples(spacy_parser, "The terrorists killed him and his bodyguard.")
    assert ("bodyguard", "kill", "dobj") in got


def test_r7_appositions_are_arguments_too(spacy_parser):
    got = triples(spacy_parser, "The gunmen killed his secretary, Ronnie Moffit, in Washington.")
    assert {("secretary", "kill", "dobj"), ("moffit", "kill", "dobj")} <= got
    got = triples(spacy_parser,
                  "Hilda Flores, a Social Democratic leader, was kidnapped by the guerrillas.")
    assert {("flores", "kidnap", "dobj"), ("leader", "kidnap", "dobj"),
            ("guerrilla", "kidnap", "nsubj")} == got
    # The apposition has a mention of its own; the argument's mention leaves it out.
    records = {r.head_lemma: r.mention for r in entities(
        spacy_parser, "The gunmen killed his secretary, Ronnie Moffit, in Washington.")}
    assert records["secretary"] == "his secretary"
    assert records["moffit"] == "Ronnie Moffit"


def test_r8_conjoined_verbs_share_the_subject(spacy_parser):
    text = "The bomb exploded and destroyed the house."
    assert {("bomb", "explode", "nsubj"), ("bomb", "destroy", "nsubj")} <= triples(
        spacy_parser, text)
    # The voice of the second verb decides the dependency.
    got = triples(spacy_parser, "The bomb exploded and was found by the police.")
    assert {("bomb", "find", "dobj"), ("police", "find", "nsubj")} <= got
    off = triples(spacy_parser, text, EntityRules(conj_verbs=False))
    assert ("bomb", "destroy", "nsubj") not in off


def test_r9_relative_pronouns_resolve_to_the_modified_noun(spacy_parser):
    text = "The bomb, which exploded in the car, destroyed the house."
    got = triples(spacy_parser, text)
    assert {("bomb", "explode", "nsubj"), ("car", "explode", "prep_in"),
            ("bomb", "destroy", "nsubj")} <= got
    got = triples(spacy_parser, "The police arrested the man whom the guerrillas had hired.")
    assert {("man", "hire", "dobj"), ("guerrilla", "hire", "nsubj")} <= got
    got = triples(spacy_parser, "Police found the car in which the bomb exploded.")
    assert ("car", "explode", "prep_in") in got
    off = triples(spacy_parser, text, EntityRules(relative_clauses=False))
    assert ("bomb", "explode", "nsubj") not in off


def test_r10_participles_take_the_modified_noun(spacy_parser):
    got = triples(spacy_parser, "The prisoners held in the jail escaped.")
    assert {("prisoner", "hold", "dobj"), ("jail", "hold", "prep_in"),
            ("prisoner", "escape", "nsubj")} <= got
    got = triples(spacy_parser, "The patrol guarding the bridge was attacked.")
    assert {("patrol", "guard", "nsubj"), ("bridge", "guard", "dobj"),
            ("patrol", "attack", "dobj")} <= got
    off = triples(spacy_parser, "The prisoners held in the jail escaped.",
                  EntityRules(participles=False))
    assert ("prisoner", "hold", "dobj") not in off


def test_r11_subject_control_without_object(spacy_parser):
    got = triples(spacy_parser, "The rebels tried to seize the town.")
    assert {("rebel", "seize", "nsubj"), ("town", "seize", "dobj")} <= got
    # With an object the controller is ambiguous: nothing is inferred.
    got = triples(spacy_parser, "The army forced the peasants to leave the area.")
    assert not any(p == "leave" and d == "nsubj" for _, p, d in got)
    off = triples(spacy_parser, "The rebels tried to seize the town.", EntityRules(control=False))
    assert ("rebel", "seize", "nsubj") not in off


def test_upper_case_text_keeps_document_case_and_compound_mentions(spacy_parser):
    records = entities(spacy_parser,
                       "THE TERRORISTS DYNAMITED THE LAS CANAS BRIDGE IN SAN SALVADOR.")
    by_head = {r.head: r for r in records}
    assert by_head["BRIDGE"].mention == "LAS CANAS BRIDGE"
    assert by_head["BRIDGE"].head_lemma == "bridge"
    assert by_head["BRIDGE"].predicate == "dynamite"
    assert by_head["BRIDGE"].dep == "dobj"
    assert by_head["SALVADOR"].dep == "prep_in"
    assert by_head["TERRORISTS"].head_lemma == "terrorist"


def test_mention_drops_articles_conjuncts_and_clauses(spacy_parser):
    records = entities(spacy_parser, "The guerrillas killed the priest and his housekeeper.")
    mentions = {r.head: r.mention for r in records}
    assert mentions == {"guerrillas": "guerrillas", "priest": "priest",
                        "housekeeper": "his housekeeper"}
    records = entities(spacy_parser, "The bomb, which exploded in the car, destroyed the house.")
    assert {r.mention for r in records if r.head == "bomb"} == {"bomb"}
    records = entities(spacy_parser, "No measures were taken.")
    assert [r.mention for r in records] == ["No measures"]


def test_record_fields_and_order(spacy_parser):
    records = entities(spacy_parser, "Soldiers found 20 bodies. The mayor was kidnapped.")
    assert [(r.sent_id, r.head_index, r.head, r.predicate, r.dep) for r in records] == [
        (0, 0, "Soldiers", "find", "nsubj"), (0, 3, "bodies", "find", "dobj"),
        (1, 1, "mayor", "kidnap", "dobj")]
    assert all(r.doc_id == "t" and r.ner == "" for r in records)


def test_entities_frame_columns_and_types(spacy_parser):
    frame = entities_frame(entities(spacy_parser, "The guerrillas attacked the village."))
    assert tuple(frame.columns) == ENTITY_COLUMNS == (
        "doc_id", "sent_id", "head_index", "head", "head_lemma", "mention", "predicate", "dep",
        "ner", "start_char", "end_char", "predicate_index", "phrase", "proper")
    assert len(frame) == 2
    assert str(frame["sent_id"].dtype) == "int64"
    # Both mentions are arguments of "attacked", token 2 of the sentence.
    assert frame["predicate_index"].tolist() == [2, 2]
    empty = entities_frame([])
    assert tuple(empty.columns) == ENTITY_COLUMNS and len(empty) == 0


# ---------------------------------------------------------------- label sets, no parser needed

def _sentence(rows: list[tuple[str, str, str, str, int, str]]) -> Sentence:
    """Rows of (text, lemma, upos, tag, head 1-based, dep)."""
    return Sentence(tokens=tuple(
        Token(text=t, lemma=lem, upos=u, tag=x, head=h - 1, dep=d)
        for t, lem, u, x, h, d in rows))


# "The bomb was placed by terrorists in the church according to police ."
CLEAR = _sentence([
    ("The", "the", "DET", "DT", 2, "det"), ("bomb", "bomb", "NOUN", "NN", 4, "nsubjpass"),
    ("was", "be", "AUX", "VBD", 4, "auxpass"), ("placed", "place", "VERB", "VBN", 0, "ROOT"),
    ("by", "by", "ADP", "IN", 4, "agent"), ("terrorists", "terrorist", "NOUN", "NNS", 5, "pobj"),
    ("in", "in", "ADP", "IN", 4, "prep"), ("the", "the", "DET", "DT", 9, "det"),
    ("church", "church", "NOUN", "NN", 7, "pobj"),
    ("according", "accord", "VERB", "VBG", 4, "prep"), ("to", "to", "ADP", "IN", 10, "prep"),
    ("police", "police", "NOUN", "NN", 11, "pobj"), (".", ".", "PUNCT", ".", 4, "punct"),
])
UD = _sentence([
    ("The", "the", "DET", "DT", 2, "det"), ("bomb", "bomb", "NOUN", "NN", 4, "nsubj:pass"),
    ("was", "be", "AUX", "VBD", 4, "aux:pass"), ("placed", "place", "VERB", "VBN", 0, "root"),
    ("by", "by", "ADP", "IN", 6, "case"), ("terrorists", "terrorist", "NOUN", "NNS", 4,
                                          "obl:agent"),
    ("in", "in", "ADP", "IN", 9, "case"), ("the", "the", "DET", "DT", 9, "det"),
    ("church", "church", "NOUN", "NN", 4, "obl"),
    ("according", "accord", "VERB", "VBG", 12, "case"), ("to", "to", "ADP", "IN", 10, "fixed"),
    ("police", "police", "NOUN", "NN", 4, "obl"), (".", ".", "PUNCT", ".", 4, "punct"),
])


def test_ud_and_clearnlp_labels_give_the_same_entities():
    expected = {("bomb", "place", "dobj"), ("terrorist", "place", "nsubj"),
                ("church", "place", "prep_in"), ("police", "place", "prep_according_to")}
    for sentence in (CLEAR, UD):
        records = extract_entities(ParsedDocument("x", (sentence,)))
        assert {(r.head_lemma, r.predicate, r.dep) for r in records} == expected


def test_ud_by_on_a_passive_without_agent_subtype_is_the_agent():
    rows = [("The", "the", "DET", "DT", 2, "det"), ("mayor", "mayor", "NOUN", "NN", 4,
                                                    "nsubj:pass"),
            ("was", "be", "AUX", "VBD", 4, "aux:pass"),
            ("kidnapped", "kidnap", "VERB", "VBN", 0, "root"),
            ("by", "by", "ADP", "IN", 6, "case"), ("rebels", "rebel", "NOUN", "NNS", 4, "obl")]
    records = extract_entities(ParsedDocument("x", (_sentence(rows),)))
    assert {(r.head_lemma, r.dep) for r in records} == {("mayor", "dobj"), ("rebel", "nsubj")}


def test_mention_text_helper():
    assert mention_text(CLEAR, 8) == "church"
    assert mention_text(CLEAR, 1) == "bomb"


def test_character_spans_point_at_the_mention_in_the_text(spacy_parser):
    text = "Yesterday the guerrillas attacked the military base near the border."
    records = entities(spacy_parser, text)
    assert records
    for r in records:
        assert text[r.start_char:r.end_char] == r.mention
    spans = {text[r.start_char:r.end_char] for r in records}
    assert {"guerrillas", "military base"} <= spans


# ---------------------------------------------------------------- R12 event nouns

class _Lexicon:
    """A stand-in for the WordNet event-noun lexicon: a fixed table."""

    config_id = "test-lexicon"

    def __init__(self, table: dict[str, tuple[str, str]]) -> None:
        self.table = table

    def lookup(self, lemma: str) -> EventNoun | None:
        hit = self.table.get(lemma.lower())
        return EventNoun(*hit) if hit else None

    def is_agent(self, lemma: str, upos: str) -> bool:
        return (lemma.lower(), upos) in AGENTS


AGENTS = {("terrorist", "ADJ"), ("fmln", "PROPN"), ("guerrilla", "PROPN"), ("army", "NOUN")}


EVENT_RULES = EntityRules(event_nouns=_Lexicon({
    "murder": ("murder", "dobj"), "attack": ("attack", "dobj"), "death": ("die", "nsubj")}))


def test_r12_arguments_of_event_nouns_are_arguments_of_their_verb(spacy_parser):
    text = "The government condemned the murder of six priests."
    assert triples(spacy_parser, text) == {("government", "condemn", "nsubj"),
                                           ("murder", "condemn", "dobj")}
    got = triples(spacy_parser, text, EVENT_RULES)
    assert got == {("government", "condemn", "nsubj"), ("murder", "condemn", "dobj"),
                   ("priest", "murder", "dobj")}


def test_r12_prepositions_and_possessives(spacy_parser):
    got = triples(spacy_parser, "The rebels claimed the attack on the embassy.", EVENT_RULES)
    assert ("embassy", "attack", "dobj") in got
    got = triples(spacy_parser, "Police investigated the mayor's death in Lima.", EVENT_RULES)
    assert ("mayor", "die", "nsubj") in got
    assert ("lima", "die", "prep_in") in got
    # A noun the lexicon does not know gives nothing.
    got = triples(spacy_parser, "The members of the committee met.", EVENT_RULES)
    assert not {t for t in got if t[0] == "committee"}


def test_r12_the_noun_is_the_predicate_token_and_rows_are_not_repeated(spacy_parser):
    records = entities(spacy_parser, "They denounced the murder of the priest.", EVENT_RULES)
    priest = [r for r in records if r.head_lemma == "priest"]
    assert len(priest) == 1
    assert priest[0].predicate == "murder"
    parsed = next(spacy_parser.parse([Document("t", "They denounced the murder of the priest.",
                                               "test", "test")]))
    tokens = parsed.sentences[0].tokens
    assert tokens[priest[0].predicate_index].lemma.lower() == "murder"


def test_r12_ud_labels():
    # "the attack on the embassy by rebels" under a verb, UD style
    rows = [("They", "they", "PRON", "PRP", 2, "nsubj"),
            ("condemned", "condemn", "VERB", "VBD", 0, "root"),
            ("the", "the", "DET", "DT", 4, "det"), ("attack", "attack", "NOUN", "NN", 2, "obj"),
            ("on", "on", "ADP", "IN", 7, "case"), ("the", "the", "DET", "DT", 7, "det"),
            ("embassy", "embassy", "NOUN", "NN", 4, "nmod"),
            ("by", "by", "ADP", "IN", 9, "case"), ("rebels", "rebel", "NOUN", "NNS", 4, "nmod")]
    records = extract_entities(ParsedDocument("x", (_sentence(rows),)), EVENT_RULES)
    got = {(r.head_lemma, r.predicate, r.dep) for r in records}
    assert ("embassy", "attack", "dobj") in got
    assert ("rebel", "attack", "nsubj") in got


def test_r12_changes_the_stored_configuration():
    assert stored_config_id("p") == stored_config_id("p", EntityRules())
    assert stored_config_id("p", EVENT_RULES) == "p;entities=7;test-lexicon"


def test_a_verb_with_a_particle_is_its_bare_verb(spacy_parser):
    text = "The guerrillas carried out the attack. A bomb went off near the embassy."
    assert triples(spacy_parser, text) == {
        ("guerrilla", "carry", "nsubj"), ("attack", "carry", "dobj"),
        ("bomb", "go", "nsubj"), ("embassy", "go", "prep_near")}
    # UD labels: the particle is no part of the predicate either.
    rows = [("Rebels", "rebel", "NOUN", "NNS", 2, "nsubj"),
            ("blew", "blow", "VERB", "VBD", 0, "root"), ("up", "up", "ADP", "RP", 2,
                                                          "compound:prt"),
            ("the", "the", "DET", "DT", 5, "det"), ("bridge", "bridge", "NOUN", "NN", 2, "obj")]
    records = extract_entities(ParsedDocument("x", (_sentence(rows),)))
    assert {(r.head_lemma, r.predicate, r.dep) for r in records} == {
        ("rebel", "blow", "nsubj"), ("bridge", "blow", "dobj")}


SUPPORT_RULES = dataclasses.replace(EVENT_RULES, support_verbs=True)


def test_r14_the_subject_of_a_support_verb_is_the_agent_of_its_event_noun(spacy_parser):
    for text in ("The FMLN carried out the attack.", "The attack was carried out by the FMLN."):
        got = triples(spacy_parser, text, SUPPORT_RULES)
        assert ("fmln", "attack", "nsubj") in got, text
        assert ("fmln", "carry", "nsubj") in got, text
        # Without R14, the FMLN is only the subject of carry.
        assert ("fmln", "attack", "nsubj") not in triples(spacy_parser, text, EVENT_RULES)
    records = entities(spacy_parser, "Terrorists committed the murder.", SUPPORT_RULES)
    agent = [r for r in records if r.predicate == "murder" and r.dep == "nsubj"]
    assert [(r.head_lemma, r.predicate_index) for r in agent] == [("terrorist", 3)]


def test_r14_other_verbs_and_other_objects_give_no_agent(spacy_parser):
    # condemn is no support verb: the government did not attack.
    got = triples(spacy_parser, "The government condemned the attack.", SUPPORT_RULES)
    assert ("government", "attack", "nsubj") not in got
    # carry without its particle, and a support verb whose object names no event.
    for text in ("The soldiers carried the attack plans.", "The rebels launched leaflets."):
        got = triples(spacy_parser, text, SUPPORT_RULES)
        assert not {t for t in got if t[2] == "nsubj" and t[1] not in ("carry", "launch")}
    assert stored_config_id("p", SUPPORT_RULES) == "p;entities=7;test-lexicon;support"
    # R14 reads R12's lexicon: without it the rule is off and the store says so.
    assert stored_config_id("p", EntityRules(support_verbs=True)) == stored_config_id("p")


AGENTIVE_RULES = dataclasses.replace(EVENT_RULES, agentive_modifiers=True)


def test_r15_a_modifier_that_names_an_agent_is_the_subject_of_the_event(spacy_parser):
    text = "The terrorist attack killed two soldiers."
    records = entities(spacy_parser, text, AGENTIVE_RULES)
    agent = [r for r in records if r.predicate == "attack"]
    # The tagger calls "terrorist" an adjective here; the rule asks the lexicon about it.
    assert [(r.head_lemma, r.dep, r.predicate_index, r.mention) for r in agent] == [
        ("terrorist", "nsubj", 2, "terrorist")]
    assert text[agent[0].start_char:agent[0].end_char] == "terrorist"
    assert not [r for r in entities(spacy_parser, text, EVENT_RULES) if r.predicate == "attack"]
    got = triples(spacy_parser, "The army condemned the FMLN attack on the bridge.",
                  AGENTIVE_RULES)
    assert {("fmln", "attack", "nsubj"), ("bridge", "attack", "dobj")} <= got
    assert ("guerrilla", "attack", "nsubj") in triples(
        spacy_parser, "Guerrilla attacks destroyed the bridge.", AGENTIVE_RULES)


def test_r15_other_modifiers_and_name_parts_give_no_agent(spacy_parser):
    for text in ("The bomb attack destroyed the bridge.",
                 "The criminal attack destroyed the bridge."):
        assert not {t for t in triples(spacy_parser, text, AGENTIVE_RULES)
                    if t[1] == "attack"}, text
    # An event noun inside a name (a compound of the name's head) has no agent of its own.
    rows = [("FMLN", "fmln", "PROPN", "NNP", 3, "compound"),
            ("attack", "attack", "NOUN", "NN", 3, "compound"),
            ("unit", "unit", "NOUN", "NN", 4, "nsubj"), ("fled", "flee", "VERB", "VBD", 0,
                                                        "root")]
    records = extract_entities(ParsedDocument("x", (_sentence(rows),)), AGENTIVE_RULES)
    assert {(r.head_lemma, r.predicate, r.dep) for r in records} == {("unit", "flee", "nsubj")}
    assert stored_config_id("p", AGENTIVE_RULES) == "p;entities=7;test-lexicon;agentive"
    assert stored_config_id("p", EntityRules(agentive_modifiers=True)) == stored_config_id("p")


def test_r15_on_wordnet(spacy_parser):
    from aesi_lib.entities.event_nouns import EventNounLexicon
    from aesi_lib.errors import ResourceMissingError
    from aesi_lib.lexicon.wordnet import load_wordnet

    try:
        lexicon = EventNounLexicon(load_wordnet(None))
    except ResourceMissingError as exc:
        pytest.skip(f"no WordNet here ({exc}); scripts/setup.sh installs wordnet-base")
    rules = EntityRules(event_nouns=lexicon, agentive_modifiers=True)
    got = triples(spacy_parser, "Terrorist attacks and a bomb attack destroyed the bridge.",
                  rules)
    assert ("terrorist", "attack", "nsubj") in got
    assert ("bomb", "attack", "nsubj") not in got


ATTRIBUTION_RULES = dataclasses.replace(EVENT_RULES, attribution_verbs=True)


def added_by(parser: SpacyParser, text: str, rules: EntityRules) -> set[tuple[str, str, str]]:
    """The triples ``rules`` give beyond R12's."""
    return triples(parser, text, rules) - triples(parser, text, EVENT_RULES)


@pytest.mark.parametrize(("text", "expected"), [
    # The event is the verb's own argument, or hangs on the agent the parser attached it to.
    ("The army accused the FMLN of the attack.", {("fmln", "attack", "nsubj")}),
    ("The FMLN was accused of the murder.", {("fmln", "murder", "nsubj")}),
    ("The government blamed the attack on the FMLN.", {("fmln", "attack", "nsubj")}),
    ("The police blamed the FMLN for the attack.", {("fmln", "attack", "nsubj")}),
    ("The army accused the FMLN and the ERP of the attack.",
     {("fmln", "attack", "nsubj"), ("erp", "attack", "nsubj")}),
    ("The ELN claimed the attack.", {("eln", "attack", "nsubj")}),
    # Through a responsibility noun.
    ("The FMLN claimed responsibility for the attack.", {("fmln", "attack", "nsubj")}),
    # responsible for: subject, relative pronoun, object predicative, modified noun.
    ("The FMLN is responsible for the attack.", {("fmln", "attack", "nsubj")}),
    ("The FMLN, which was responsible for the attack, denied it.",
     {("fmln", "attack", "nsubj")}),
    ("The army held the FMLN responsible for the attack.", {("fmln", "attack", "nsubj")}),
    ("The group responsible for the attack fled.", {("group", "attack", "nsubj")}),
])
def test_r16_who_is_said_to_have_done_the_event_is_its_subject(spacy_parser, text, expected):
    assert added_by(spacy_parser, text, ATTRIBUTION_RULES) == expected


def test_r16_other_verbs_and_other_objects_give_no_agent(spacy_parser):
    for text in ("The government condemned the attack.",
                 "The army accused the FMLN of lying.",
                 "The FMLN claimed responsibility for the leaflets.",
                 "The mayor is responsible for the budget."):
        assert not added_by(spacy_parser, text, ATTRIBUTION_RULES), text
    assert stored_config_id("p", ATTRIBUTION_RULES) == "p;entities=7;test-lexicon;attribution"
    # R16 reads R12's lexicon: without it the rule is off and the store says so.
    assert stored_config_id("p", EntityRules(attribution_verbs=True)) == stored_config_id("p")


def test_r16_ud_labels():
    # "The FMLN was accused of the attack ." and "The FMLN is responsible for the attack ."
    accused = [("The", "the", "DET", "DT", 2, "det"), ("FMLN", "FMLN", "PROPN", "NNP", 4,
                                                      "nsubj:pass"),
               ("was", "be", "AUX", "VBD", 4, "aux:pass"),
               ("accused", "accuse", "VERB", "VBN", 0, "root"),
               ("of", "of", "ADP", "IN", 7, "case"), ("the", "the", "DET", "DT", 7, "det"),
               ("attack", "attack", "NOUN", "NN", 4, "obl")]
    responsible = [("The", "the", "DET", "DT", 2, "det"),
                   ("FMLN", "FMLN", "PROPN", "NNP", 4, "nsubj"),
                   ("is", "be", "AUX", "VBZ", 4, "cop"),
                   ("responsible", "responsible", "ADJ", "JJ", 0, "root"),
                   ("for", "for", "ADP", "IN", 7, "case"), ("the", "the", "DET", "DT", 7, "det"),
                   ("attack", "attack", "NOUN", "NN", 4, "obl")]
    for rows in (accused, responsible):
        records = extract_entities(ParsedDocument("x", (_sentence(rows),)), ATTRIBUTION_RULES)
        assert ("fmln", "attack", "nsubj") in {(r.head_lemma, r.predicate, r.dep)
                                               for r in records}


def test_the_phrase_keeps_what_names_or_describes_the_head_and_drops_how_many(spacy_parser):
    records = entities(spacy_parser, "About 50 heavily armed men attacked the Las Canas bridge "
                                     "and killed three young peasants.")
    phrases = {r.head_lemma: (r.phrase, r.proper) for r in records}
    assert phrases["man"] == ("heavily armed men", False)
    assert phrases["bridge"] == ("Las Canas bridge", False)
    assert phrases["peasant"] == ("young peasants", False)


def test_the_phrase_keeps_a_hyphenated_word_whole_as_the_document_writes_it(spacy_parser):
    records = entities(spacy_parser, "THE TERRORISTS ATTACKED A SIX-VEHICLE MILITARY CONVOY AND "
                                     "KILLED HIS 15-YEAR-OLD DAUGHTER.")
    phrases = {r.head: r.phrase for r in records}
    assert phrases["CONVOY"] == "SIX-VEHICLE MILITARY CONVOY"
    assert phrases["DAUGHTER"] == "15-YEAR-OLD DAUGHTER"
    records = entities(spacy_parser, "Guerrillas placed two medium-sized bombs near a "
                                     "four-wheel drive vehicle.")
    phrases = {r.head: r.phrase for r in records}
    assert phrases["bombs"] == "medium-sized bombs"
    assert phrases["vehicle"] == "four-wheel drive vehicle"
