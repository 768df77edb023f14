"""The event-noun lexicon of rule R12 (aesi_lib.entities.event_nouns), on WordNet."""

from __future__ import annotations

import pickle

import pytest

from aesi_lib.entities.event_nouns import EventNoun, EventNounLexicon, agent_modifier, event_noun
from aesi_lib.errors import ResourceMissingError
from aesi_lib.lexicon.wordnet import load_wordnet


@pytest.fixture(scope="module")
def lexicon() -> EventNounLexicon:
    try:
        return EventNounLexicon(load_wordnet(None))
    except ResourceMissingError as exc:
        pytest.skip(f"no WordNet here ({exc}); scripts/setup.sh installs wordnet-base")


def test_acts_and_events_map_to_their_verb(lexicon):
    assert lexicon.lookup("murder") == EventNoun("murder", "dobj")
    assert lexicon.lookup("bombing") == EventNoun("bomb", "dobj")
    assert lexicon.lookup("kidnapping").verb == "kidnap"
    assert lexicon.lookup("death") == EventNoun("die", "nsubj")     # intransitive
    assert lexicon.lookup("Attack").verb == "attack"                # any case


def test_other_nouns_are_not_event_nouns(lexicon):
    for noun in ("priest", "embassy", "bomb", "member", "committee", "qwertyuiop"):
        assert lexicon.lookup(noun) is None
    # Only the first (most frequent) sense counts: WordNet 3.0 lists "character
    # assassination" (a communication) first.
    assert lexicon.lookup("assassination") is None


def test_abstract_senses_admit_later_act_senses_of_nouns_that_name_no_thing(lexicon):
    abstract = EventNounLexicon(lexicon.wordnet, senses="abstract")
    assert abstract.lookup("assassination") == EventNoun("assassinate", "dobj")
    assert abstract.lookup("injury").verb == "injure"
    # A sense that names a thing, place or group keeps the noun out, whatever its later
    # act senses (the act of constructing, of officiating, of courting).
    for noun in ("building", "office", "court", "priest", "bomb", "qwertyuiop"):
        assert abstract.lookup(noun) is None, noun
    # Nouns whose first sense is an act or event are read as before.
    for noun in ("murder", "bombing", "kidnapping", "death", "attack"):
        assert abstract.lookup(noun) == lexicon.lookup(noun), noun
    reader = lexicon.wordnet.reader
    assert event_noun(reader, "assassination", "abstract") == abstract.lookup("assassination")
    assert event_noun(reader, "assassination", "first") is None


def test_the_sense_choice_names_the_rows_it_made(lexicon):
    abstract = EventNounLexicon(lexicon.wordnet, senses="abstract")
    assert abstract.config_id != lexicon.config_id
    copy = pickle.loads(pickle.dumps(abstract))
    assert (copy.senses, copy.config_id) == ("abstract", abstract.config_id)
    assert copy.lookup("assassination") == EventNoun("assassinate", "dobj")
    with pytest.raises(ValueError, match="sense choice 'second'"):
        EventNounLexicon(lexicon.wordnet, senses="second")
    with pytest.raises(ValueError, match="sense choice 'all'"):
        event_noun(lexicon.wordnet.reader, "murder", "all")


def test_the_rule_reads_only_wordnet(lexicon):
    reader = lexicon.wordnet.reader
    assert event_noun(reader, "murder") == lexicon.lookup("murder")
    assert lexicon.config_id.startswith("event-nouns-1;wordnet-")


def test_the_lexicon_pickles_by_reopening_wordnet(lexicon):
    copy = pickle.loads(pickle.dumps(lexicon))
    assert copy.lookup("murder") == lexicon.lookup("murder")
    assert copy.config_id == lexicon.config_id


def test_agent_modifiers_are_persons_groups_and_unknown_names(lexicon):
    reader = lexicon.wordnet.reader
    for lemma, upos in (("guerrilla", "NOUN"), ("army", "NOUN"), ("police", "NOUN"),
                        ("fmln", "PROPN"), ("terrorist", "ADJ")):
        assert agent_modifier(reader, lemma, upos), (lemma, upos)
    # Things, places and times are no agents; an adjective of its own describes the event
    # (criminal's first noun sense is a person); a common noun WordNet does not know is
    # no name; only nouns, names and adjectives are asked about.
    for lemma, upos in (("bomb", "NOUN"), ("dynamite", "NOUN"), ("april", "PROPN"),
                        ("criminal", "ADJ"), ("salvadoran", "ADJ"), ("fmln", "NOUN"),
                        ("terrorist", "VERB")):
        assert not agent_modifier(reader, lemma, upos), (lemma, upos)
    assert lexicon.is_agent("Guerrilla", "NOUN")
