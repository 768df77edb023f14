"""Entity rule R17 by its parts (aesi_lib.entities.modifier_rule, issue 67): a noun inside an
argument's phrase, by the links asked for, is an argument of the same predicate in the
argument's position; off by default. On sentences parsed by spaCy."""

from __future__ import annotations

import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.entities import EntityRules, extract_entities
from aesi_lib.entities.positions import ARGUMENT_POSITIONS, argument_position
from aesi_lib.entities.rules import stored_config_id
from aesi_lib.parse.spacy_backend import SpacyParser


@pytest.fixture(scope="session")
def spacy_parser() -> SpacyParser:
    return SpacyParser().load()


def triples(parser: SpacyParser, text: str, rules: EntityRules) -> set[tuple[str, str, str]]:
    parsed = next(parser.parse([Document("t", text, "test", "test")]))
    return {(r.head_lemma, r.predicate, r.dep) for r in extract_entities(parsed, rules)}


TEXT = "The hackers attacked Windows users and stole the data of the hospital's patients."


def test_each_link_adds_only_its_own_nouns(spacy_parser):
    base = triples(spacy_parser, TEXT, EntityRules())
    assert ("window", "attack", "dobj>compound") not in base
    compound = triples(spacy_parser, TEXT, EntityRules(modifier_links=("compound",))) - base
    prep = triples(spacy_parser, TEXT, EntityRules(modifier_links=("prep",))) - base
    both = triples(spacy_parser, TEXT, EntityRules(modifier_links=("poss", "prep"))) - base
    assert {dep.split(">")[1] for _, _, dep in compound} == {"compound"}
    assert ("patient", "steal", "dobj>of") in prep
    assert {dep.split(">")[1] for _, _, dep in prep} == {"of"}
    # The possessor of the of-object is two links down.
    assert ("hospital", "steal", "dobj>poss") in both


def test_a_modifier_takes_its_arguments_position_and_is_recorded():
    assert ARGUMENT_POSITIONS[argument_position("dobj>of")] == "object"
    assert ARGUMENT_POSITIONS[argument_position("nsubj>compound")] == "subject"
    assert stored_config_id("p", EntityRules(modifier_links=("prep", "compound"))) == (
        stored_config_id("p", EntityRules()) + ";modifiers=compound+prep")
