"""Entity rules R17-R19 (aesi_lib.entities.reach_rules): noun modifiers, pronouns with their
antecedents, numbers; each off by default, on sentences parsed by spaCy."""

from __future__ import annotations

import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.entities import EntityRecord, EntityRules, extract_entities
from aesi_lib.entities.reach_rules import antecedent_order, pronoun_antecedent
from aesi_lib.entities.rules import stored_config_id
from aesi_lib.parse.spacy_backend import SpacyParser


@pytest.fixture(scope="session")
def spacy_parser() -> SpacyParser:
    return SpacyParser().load()


def rows(parser: SpacyParser, text: str, rules: EntityRules) -> list[EntityRecord]:
    parsed = next(parser.parse([Document("t", text, "test", "test")]))
    return extract_entities(parsed, rules)


def triples(parser: SpacyParser, text: str, rules: EntityRules) -> set[tuple[str, str, str]]:
    return {(r.head_lemma, r.predicate, r.dep) for r in rows(parser, text, rules)}


MODIFIERS = EntityRules(noun_modifiers=True)
PRONOUNS = EntityRules(pronoun_arguments=True)
NUMBERS = EntityRules(number_arguments=True)


def test_every_rule_is_off_by_default(spacy_parser):
    text = "They attacked Windows users and killed 15 of the workers."
    assert triples(spacy_parser, text, EntityRules()) == {("user", "attack", "dobj")}


def test_r17_nouns_inside_an_argument_are_arguments_of_its_predicate(spacy_parser):
    got = triples(spacy_parser, "The hackers attacked Windows users and stole the details of "
                  "police officers.", MODIFIERS)
    assert ("windows", "attack", "dobj>compound") in got
    assert ("officer", "steal", "dobj>of") in got
    # Two links down: the compound inside the of-object.
    assert ("police", "steal", "dobj>compound") in got
    # What a verb rule gives already is not repeated with a modifier's dependency.
    assert not any(h == "hacker" and ">" in d for h, _, d in got)


def test_r17_possessors_and_their_spans(spacy_parser):
    text = "The attackers took control of the hospital's computer systems."
    found = {r.head_lemma: r for r in rows(spacy_parser, text, MODIFIERS)}
    assert found["hospital"].dep == "dobj>poss"
    assert found["hospital"].predicate == "take"
    assert text[found["hospital"].start_char:found["hospital"].end_char].startswith("hospital")
    assert found["system"].dep == "dobj>of"


def test_r18_pronouns_are_arguments_read_as_their_antecedent(spacy_parser):
    text = ("The hackers stole the details of police officers. They took control of the "
            "servers. The group said it would strike again.")
    found = [r for r in rows(spacy_parser, text, PRONOUNS)
             if text[r.start_char:r.end_char] in {"They", "it"}]
    they = next(r for r in found if r.mention == "They")
    # The previous sentence's subject, not its nearest plural noun (officers).
    assert (they.head, they.head_lemma, they.predicate, they.dep, they.phrase) == (
        "hackers", "hacker", "take", "nsubj", "hackers")
    assert text[they.start_char:they.end_char] == "They"
    it = next(r for r in found if r.mention == "it")
    assert (it.head_lemma, it.predicate) == ("group", "strike")


def test_r18_a_pronoun_without_an_agreeing_noun_stays_itself(spacy_parser):
    found = rows(spacy_parser, "He fled.", PRONOUNS)
    assert [(r.head_lemma, r.predicate, r.dep) for r in found] == [("he", "flee", "nsubj")]


def test_r18_antecedent_order_and_agreement():
    # (sentence offset, token, subject): own sentence nearest first, then the previous
    # sentence's subjects from the left, then its other nouns nearest first.
    before = [(-1, 0, True), (-1, 5, False), (-1, 8, False), (0, 1, False), (0, 3, True)]
    assert antecedent_order(before) == [4, 3, 0, 2, 1]
    assert pronoun_antecedent("they", ["NN", "NNPS", "NNS"]) == 1
    assert pronoun_antecedent("He", ["NNS", "NNP"]) == 1
    assert pronoun_antecedent("it", ["NNS"]) == -1


def test_r19_numbers_and_quantifiers_that_are_arguments(spacy_parser):
    got = triples(spacy_parser, "The bomb killed 15.", NUMBERS)
    assert ("15", "kill", "dobj") in got
    # A number that counts a noun is not an argument of its own.
    assert triples(spacy_parser, "The bomb killed 15 peasants.", NUMBERS) == {
        ("bomb", "kill", "nsubj"), ("peasant", "kill", "dobj")}


def test_each_rule_changes_the_stored_configuration():
    ids = {stored_config_id("spacy", rules) for rules in
           (EntityRules(), MODIFIERS, PRONOUNS, NUMBERS)}
    assert len(ids) == 4
    assert stored_config_id("spacy", EntityRules()) == stored_config_id("spacy")
