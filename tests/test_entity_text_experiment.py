"""The harness of experiments/entity_text.py: one entity rule per configuration, each the
product's rule with its *of* complement cut at N words, the product's own among them."""

from __future__ import annotations

import pytest

from aesi_lib.events.entities import OF_COMPLEMENT_WORDS, document_entities
from experiments import entity_text

HEADS = ["members", "members", "OFFICES"]
PHRASES = ["members", "members", "OFFICES"]
MENTIONS = ["ten members of the FMLN", "members", "OFFICES OF THE NATIONAL TELECOMMUNICATIONS "
            "ENTERPRISE IN THE CAPITAL"]


def texts(rule) -> list[str]:
    return [e.text for e in rule(HEADS, PHRASES, [False] * 3, None, MENTIONS)]


def test_the_default_configuration_is_the_products_rule_and_phrase_alone_keeps_none():
    rules = entity_text.entity_rules()
    assert list(rules) == [entity_text.configuration_name(n)
                           for n in entity_text.COMPLEMENT_WORDS]
    default = [name for name in rules if name.endswith("(default)")]
    assert len(default) == 1
    assert texts(rules[default[0]]) == texts(document_entities)
    assert texts(rules["phrase alone"]) == ["members", "OFFICES"]


@pytest.mark.parametrize(("words", "expected"), [
    (3, ["members of the FMLN", "OFFICES"]),
    (9, ["members of the FMLN", "OFFICES OF THE NATIONAL TELECOMMUNICATIONS ENTERPRISE IN THE "
         "CAPITAL"])])
def test_each_configuration_cuts_the_complement_at_its_words(words, expected):
    assert texts(entity_text.entity_rules()[entity_text.configuration_name(words)]) == expected


def test_the_products_length_is_one_of_the_measured():
    assert OF_COMPLEMENT_WORDS in entity_text.COMPLEMENT_WORDS and 0 in entity_text.COMPLEMENT_WORDS
