"""Coreference chains (aesi_lib.entities.chains, aesi_lib.entities.mentions).

Each sieve is pinned by a short document parsed with the project's spaCy parser: one case it
must link, run with that sieve alone (or with the sieves it builds on), and one it must not.
"""

from __future__ import annotations

import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.entities import extract_entities
from aesi_lib.entities.acronyms import acronym_matches, is_acronym_candidate
from aesi_lib.entities.chains import (
    SIEVES,
    ChainOptions,
    CoreferenceResult,
    coreference_chains,
    resolve_coreference,
)
from aesi_lib.entities.mentions import Mention, detect_mentions
from aesi_lib.parse.backends import ParserConfig, make_parser
from aesi_lib.parse.base import Parser
from aesi_lib.parse.types import ParsedDocument, Sentence, Token


@pytest.fixture(scope="module")
def parser() -> Parser:
    return make_parser(ParserConfig())


def parse(parser: Parser, text: str) -> ParsedDocument:
    return next(parser.parse([Document("t", text, "test", "test")]))


def resolve(parser: Parser, text: str, *sieves: str, window: int = 3) -> CoreferenceResult:
    options = ChainOptions.only(sieves, pronoun_window=window) if sieves else ChainOptions()
    return resolve_coreference(parse(parser, text), options)


def mention(result: CoreferenceResult, head: str, sent: int | None = None,
            nth: int = 0) -> Mention:
    """The nth mention whose head is ``head`` (case-insensitive), optionally in one sentence."""
    found = [m for m in result.mentions if m.head.lower() == head.lower()
             and (sent is None or m.sent_id == sent)]
    assert len(found) > nth, f"no mention {head!r} in {[m.head for m in result.mentions]}"
    return found[nth]


def linked(result: CoreferenceResult, a: Mention, b: Mention) -> bool:
    return result.chains[a.key] == result.chains[b.key]


# --- S1 exact string match -------------------------------------------------------------------

def test_exact_match_links_the_same_phrase(parser):
    r = resolve(parser, "The car bomb exploded near the embassy. Police said the car bomb was "
                        "hidden in a truck.", "exact_match")
    assert linked(r, mention(r, "bomb", 0), mention(r, "bomb", 1))
    assert [link.sieve for link in r.links] == ["exact_match"]


def test_exact_match_needs_the_whole_phrase(parser):
    r = resolve(parser, "The car bomb exploded near the embassy. The bomb was hidden in a "
                        "truck.", "exact_match")
    assert not linked(r, mention(r, "bomb", 0), mention(r, "bomb", 1))
    assert r.links == ()


# --- S2 appositive ---------------------------------------------------------------------------

GARCIA = "Garcia, the mayor of San Pedro, was killed. The mayor had received threats."


def test_appositive_links_name_and_description(parser):
    r = resolve(parser, GARCIA, "appositive")
    garcia, mayor0, mayor1 = mention(r, "Garcia"), mention(r, "mayor", 0), mention(r, "mayor", 1)
    assert linked(r, garcia, mayor0)
    assert not linked(r, garcia, mayor1)  # needs a head-match sieve
    assert not linked(r, garcia, mention(r, "Pedro"))  # inside the apposition, not it


def test_appositive_then_strict_head_reaches_the_later_description(parser):
    r = resolve(parser, GARCIA, "appositive", "strict_head")
    assert linked(r, mention(r, "Garcia"), mention(r, "mayor", 1))
    assert r.links[-1].sieve == "strict_head"


def test_appositive_in_a_list_is_not_a_link(parser):
    # spaCy attaches "his son" as an apposition of "Gacha" and "people" as its conjunct.
    r = resolve(parser, "We have been informed that Rodriguez Gacha, his son, and the people "
                        "with them have been killed.", "appositive")
    assert not linked(r, mention(r, "Gacha"), mention(r, "son"))


def test_two_names_side_by_side_are_not_an_apposition(parser):
    r = resolve(parser, "The rebels killed Joaquin Villalobos, Shafik Handal.", "appositive")
    assert mention(r, "Handal").dep == "appos"
    assert not linked(r, mention(r, "Villalobos"), mention(r, "Handal"))


# --- S3 predicate nominative -----------------------------------------------------------------

def test_predicate_nominative(parser):
    r = resolve(parser, "Jose Garcia is the mayor of San Pedro.", "predicate_nominative")
    assert linked(r, mention(r, "Garcia"), mention(r, "mayor"))


@pytest.mark.parametrize("text, subject, predicate", [
    ("Jose Garcia is not the mayor.", "Garcia", "mayor"),   # negated
    ("The attack was a mistake.", "attack", "mistake"),      # indefinite: a classification
])
def test_predicate_nominative_negative(parser, text, subject, predicate):
    r = resolve(parser, text, "predicate_nominative")
    assert not linked(r, mention(r, subject), mention(r, predicate))


def test_predicate_nominative_on_universal_dependencies():
    # "Garcia is the mayor" as Stanza parses it: the predicate noun heads the clause.
    toks = (Token("Garcia", "Garcia", "PROPN", "NNP", 3, "nsubj"),
            Token("is", "be", "AUX", "VBZ", 3, "cop"),
            Token("the", "the", "DET", "DT", 3, "det"),
            Token("mayor", "mayor", "NOUN", "NN", -1, "root"),
            Token(".", ".", "PUNCT", ".", 3, "punct"))
    doc = ParsedDocument("ud", (Sentence(toks),))
    chains = coreference_chains(doc, ChainOptions.only(["predicate_nominative"]))
    assert chains == {(0, 0): 0, (0, 3): 0}
    assert coreference_chains(doc, ChainOptions.only([])) == {(0, 0): 0, (0, 3): 1}


# --- S4 role appositive ----------------------------------------------------------------------

ROLE = "Mayor Jose Garcia was killed by the guerrillas. The mayor had received threats."


def test_role_appositive_makes_the_title_a_mention_linked_to_the_name(parser):
    r = resolve(parser, ROLE, "role_appositive", "strict_head")
    title = mention(r, "Mayor", 0)
    assert title.role_of == mention(r, "Garcia").head_index
    assert title.kind == "nominal" and title.animacy == "animate"
    assert linked(r, mention(r, "Garcia"), mention(r, "mayor", 1))


def test_without_role_appositive_the_title_stays_apart(parser):
    r = resolve(parser, ROLE, "strict_head")
    assert not linked(r, mention(r, "Garcia"), mention(r, "mayor", 1))
    assert linked(r, mention(r, "Mayor", 0), mention(r, "mayor", 1))


# --- S5 acronyms -----------------------------------------------------------------------------

FRONT = ("The Farabundo Marti National Liberation Front claimed the attack. The FMLN said "
         "that its commandos had destroyed the bridge.")


@pytest.mark.parametrize("text", [FRONT, FRONT.upper()])
def test_acronym_links_the_full_name(parser, text):
    r = resolve(parser, text, "acronym")
    assert linked(r, mention(r, "Front"), mention(r, "FMLN"))
    assert [link.sieve for link in r.links] == ["acronym"]


def test_acronym_needs_the_initials(parser):
    r = resolve(parser, "The National Police arrested the men. The FMLN said nothing.",
                "acronym")
    assert not linked(r, mention(r, "Police"), mention(r, "FMLN"))


def test_parenthesised_acronym_is_an_apposition_then_an_exact_match(parser):
    r = resolve(parser, "The Farabundo Marti National Liberation Front (FMLN) claimed the "
                        "attack. The FMLN said it would continue.", "exact_match", "appositive")
    front, fmln0, fmln1 = mention(r, "Front"), mention(r, "FMLN", 0), mention(r, "FMLN", 1)
    assert linked(r, front, fmln0) and linked(r, front, fmln1)


@pytest.mark.parametrize("acronym, words, expected", [
    ("FMLN", ("Farabundo", "Marti", "National", "Liberation", "Front"), True),  # one extra
    ("FPMR", ("Manuel", "Rodriguez", "Patriotic", "Front"), True),               # reordered
    ("PCD", ("Dominican", "Communist", "Party"), True),
    ("MNR", ("National", "Revolutionary", "Movement"), True),
    ("ARENA", ("Nationalist", "Republican", "Alliance"), False),  # a translation, not initials
    ("ELN", ("National", "Liberation", "Army"), False),
    ("FMLN", ("Farabundo", "Marti"), False),
    ("NM", ("National", "Movement", "Front"), False),  # no extra word for two letters
    ("FM", ("Front",), False),
])
def test_acronym_matches(acronym, words, expected):
    assert acronym_matches(acronym, words) is expected


@pytest.mark.parametrize("head, n_words, lemma, expected", [
    ("FMLN", 1, "FMLN", True),
    ("PLACE", 1, "place", False),      # a common word the truecaser knew
    ("UN", 1, "UN", False),            # two letters
    ("FMLN", 2, "FMLN", False),        # not a one-word phrase
    ("Fmln", 1, "Fmln", False),
])
def test_acronym_candidates(head, n_words, lemma, expected):
    assert is_acronym_candidate(head, n_words, lemma) is expected


# --- S6 strict head match --------------------------------------------------------------------

BASES = ("The guerrillas attacked a military base. The naval base was not attacked. The base "
         "was destroyed.")


def test_strict_head_links_a_definite_phrase_to_the_nearest_compatible_one(parser):
    r = resolve(parser, BASES, "strict_head")
    military, naval, base = (mention(r, "base", s) for s in range(3))
    assert linked(r, naval, base)            # nearest earlier "base", no extra modifier
    assert not linked(r, military, naval)    # "naval" is not among "military"'s modifiers


def test_strict_head_needs_the_same_head(parser):
    r = resolve(parser, "The bomb damaged the car. The car was parked near the bomb site.",
                "strict_head")
    assert linked(r, mention(r, "car", 0), mention(r, "car", 1))
    assert not linked(r, mention(r, "bomb", 0), mention(r, "car", 0))
    assert not linked(r, mention(r, "bomb", 0), mention(r, "site", 1))


# --- S7 relaxed head match -------------------------------------------------------------------

def test_relaxed_head_links_a_part_of_a_persons_name(parser):
    text = ("Attorney General Roberto Garcia Alvarado was killed yesterday. Garcia had "
            "received threats.")
    strict = resolve(parser, text, "strict_head")
    relaxed = resolve(parser, text, "strict_head", "relaxed_head")
    assert not linked(strict, mention(strict, "Alvarado"), mention(strict, "Garcia", 1))
    assert linked(relaxed, mention(relaxed, "Alvarado"), mention(relaxed, "Garcia", 1))


def test_relaxed_head_keeps_modifiers_compatible(parser):
    r = resolve(parser, "The first bomb exploded at the bank. The second bomb was defused by "
                        "the police.")  # every sieve on
    assert not linked(r, mention(r, "bomb", 0), mention(r, "bomb", 1))


def test_relaxed_head_links_when_the_modifier_is_in_the_cluster(parser):
    # "American" is a word of the earlier cluster only through the apposition: strict head
    # match compares the modifiers with one mention, relaxed with the whole cluster.
    text = "The embassy, the American mission, was attacked. The American embassy was closed."
    strict = resolve(parser, text, "appositive", "strict_head")
    relaxed = resolve(parser, text, "appositive", "strict_head", "relaxed_head")
    assert not linked(strict, mention(strict, "embassy", 0), mention(strict, "embassy", 1))
    assert linked(relaxed, mention(relaxed, "embassy", 0), mention(relaxed, "embassy", 1))
    assert linked(relaxed, mention(relaxed, "mission"), mention(relaxed, "embassy", 1))


# --- S8 pronouns -----------------------------------------------------------------------------

def test_pronoun_joins_its_antecedent_and_is_returned_as_an_argument(parser):
    r = resolve(parser, "The guerrillas attacked the base. They killed two soldiers.",
                "pronouns")
    they = mention(r, "They")
    assert linked(r, mention(r, "guerrillas"), they)
    assert not linked(r, mention(r, "base"), they)
    assert r.linked_pronouns() == [they]
    assert they.arguments == (("kill", "nsubj"),)
    (record,) = r.pronoun_entities()
    assert (record.sent_id, record.head_index, record.predicate, record.dep) == (1, 0, "kill",
                                                                                 "nsubj")


@pytest.mark.parametrize("text, pronoun, antecedent, other", [
    # number: "they" cannot be the soldier
    ("The soldier arrived at the base. They left.", "They", None, "soldier"),
    # gender: "he" cannot be the woman
    ("The woman was kidnapped. He escaped.", "He", None, "woman"),
    # animacy: "he" is the priest, "it" the bomb
    ("The priest found the bomb. It exploded and he was injured.", "he", "priest", "bomb"),
    ("The priest found the bomb. It exploded and he was injured.", "It", "bomb", "priest"),
    # binding: a non-reflexive object is not its own verb's subject
    ("The soldiers saw them.", "them", None, "soldiers"),
])
def test_pronoun_agreement(parser, text, pronoun, antecedent, other):
    r = resolve(parser, text, "pronouns")
    p = mention(r, pronoun)
    if antecedent is not None:
        assert linked(r, p, mention(r, antecedent))
    assert not linked(r, p, mention(r, other))


def test_pronoun_window(parser):
    text = ("The guerrillas attacked the town. Nothing was left. Nothing was left. "
            "They escaped.")
    r = resolve(parser, text, "pronouns", window=3)
    assert linked(r, mention(r, "guerrillas"), mention(r, "They"))
    r = resolve(parser, text, "pronouns", window=2)
    assert not linked(r, mention(r, "guerrillas"), mention(r, "They"))
    assert r.linked_pronouns() == []


def test_possessive_pronoun_not_inside_its_own_phrase(parser):
    r = resolve(parser, FRONT, "acronym", "pronouns")
    its, commandos = mention(r, "its"), mention(r, "commandos")
    assert linked(r, its, mention(r, "FMLN"))
    assert not linked(r, its, commandos)
    assert its.arguments == ()  # a possessive is no verb argument


def test_pronoun_is_not_the_phrase_it_is_part_of(parser):
    # i-within-i: "their" cannot be "the wives of their commanders".
    r = resolve(parser, "The guerrillas attacked the town. The wives of their commanders were "
                        "kidnapped.", "pronouns")
    their = mention(r, "their")
    assert linked(r, their, mention(r, "guerrillas"))
    assert not linked(r, their, mention(r, "wives"))


def test_pleonastic_it_is_not_a_mention(parser):
    r = resolve(parser, "It was reported that the army attacked the town.")
    assert [m.head for m in r.mentions] == ["army", "town"]


# --- mentions, ids and options ---------------------------------------------------------------

def test_every_entity_head_is_a_mention_and_ids_are_dense_and_ordered(parser):
    doc = parse(parser, GARCIA + " He was buried in San Pedro. The guerrillas denied it.")
    chains = coreference_chains(doc)
    entity_keys = {(e.sent_id, e.head_index) for e in extract_entities(doc)}
    assert entity_keys and entity_keys <= set(chains)
    ordered = [chains[k] for k in sorted(chains)]
    first_seen = list(dict.fromkeys(ordered))
    assert first_seen == list(range(len(first_seen)))  # 0..n-1 by first mention
    assert coreference_chains(doc) == chains  # deterministic
    assert resolve_coreference(doc).chains == chains


def test_mentions_carry_features(parser):
    doc = parse(parser, "Mr. Garcia and the guerrillas were at the embassy. He saw them.")
    ms = {m.head.lower(): m for m in detect_mentions(doc)}
    assert (ms["garcia"].kind, ms["garcia"].gender) == ("proper", "male")
    assert (ms["guerrillas"].number, ms["guerrillas"].animacy) == ("plural", "animate")
    assert (ms["embassy"].number, ms["embassy"].animacy) == ("singular", "inanimate")
    assert (ms["he"].kind, ms["them"].number) == ("pronoun", "plural")
    assert ms["garcia"].modifiers == ()  # "Mr." is an honorific, not a modifier


def test_options():
    assert ChainOptions().enabled == SIEVES
    only = ChainOptions.only(["pronouns", "exact_match"], pronoun_window=1)
    assert only.enabled == ("exact_match", "pronouns") and only.pronoun_window == 1
    with pytest.raises(ValueError, match="unknown sieve"):
        ChainOptions.only(["coref"])
    with pytest.raises(ValueError, match="pronoun_window"):
        ChainOptions(pronoun_window=-1)


def test_no_sieve_gives_singletons(parser):
    doc = parse(parser, FRONT)
    chains = coreference_chains(doc, ChainOptions.only([]))
    assert sorted(chains.values()) == list(range(len(chains)))


def test_empty_document():
    result = resolve_coreference(ParsedDocument("empty", ()))
    assert result.chains == {} and result.mentions == () and result.links == ()
