"""Entity rule R18 (aesi_lib.entities.pronouns): personal pronouns as arguments, read as their
antecedents; off in EntityRules' defaults, on in the default preset. On sentences parsed by
spaCy."""

from __future__ import annotations

import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.entities import EntityRecord, EntityRules, extract_entities
from aesi_lib.entities.pronouns import antecedent_order, pronoun_antecedent
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


PRONOUNS = EntityRules(pronoun_arguments=True)


def test_the_rule_is_off_in_the_rules_defaults(spacy_parser):
    text = "They attacked Windows users."
    assert triples(spacy_parser, text, EntityRules()) == {("user", "attack", "dobj")}
    assert ("they", "attack", "nsubj") in triples(spacy_parser, text, PRONOUNS)


def test_the_default_preset_turns_it_on():
    from aesi_lib.run.config import RunConfig
    from aesi_lib.run.pipeline import entity_rules
    from aesi_lib.run.presets import preset

    assert entity_rules(RunConfig.from_dict(preset("default"))).pronoun_arguments
    assert not entity_rules(RunConfig.from_dict(preset("reproduction"))).pronoun_arguments


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


def test_the_rule_changes_the_stored_configuration():
    assert stored_config_id("spacy", PRONOUNS) != stored_config_id("spacy", EntityRules())
    assert stored_config_id("spacy", EntityRules()) == stored_config_id("spacy")
