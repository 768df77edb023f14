"""Event nouns: nouns that name an act or event of a verb, so that their arguments are
arguments of that verb (rule R12 of :mod:`aesi_lib.entities.rules`), and the modifiers of
such nouns that name who acts (rule R15).

"The murder of six Jesuits" says what "six Jesuits were murdered" says, but a verb-argument
extractor sees no predicate in it. Of the 345 gold entities of TST1+TST2 that the default's
seed-0 run misses, 51 have a word attached to such a noun (the murder *of*, the attack *on*,
the kidnapping *of*, a possessive, a compound as in *bomb* attack).

Which nouns count, and as which verb, is read from WordNet, never from the corpus, so that a
new document is labelled by the same rule as the training corpus:

* the noun's first (most frequent) noun sense is an act or an event (lexicographer files
  ``noun.act`` and ``noun.event``);
* WordNet links that sense's lemma to verb lemmas (derivationally related forms); the verb is
  the one with the most links and tag counts (each link counts one plus its tag count), ties
  to the alphabetically first (``kidnapping`` -> ``kidnap``, ``death`` -> ``die``);
* the argument that ``of`` or a possessive introduces is the verb's object when a verb sense
  that the noun links to has a sentence frame with an object (``the murder of the priest``:
  the priest was murdered), else its subject (``the death of the priest``: the priest died).

First senses keep rare readings out, and also some wanted ones: WordNet 3.0 lists *character
assassination* (a communication) first, so ``assassination`` is not an event noun by the first
sense. The sense choice ``"abstract"`` (``features.event_noun_senses``) lets such nouns in: when
the first sense is no act or event linked to a verb, the first later act or event sense that
WordNet links to a verb counts, provided no sense of the noun names a thing rather than a
happening (an artifact, a place, an object, a substance, a body part, a plant, an animal, food,
a person, a group, a possession, an amount or a time: *building*, *office* and *court* stay
out). ``assassination`` -> ``assassinate``, ``investigation`` -> ``investigate``, ``injury``
-> ``injure``; about 220 nouns of the MUC-4 corpus, ``result`` and ``respect`` among them.

A modifier of an event noun names the event's agent (*terrorist* attack, *guerrilla* ambush,
*FMLN* ambush; rule R15) when WordNet's first noun sense of it is a person or a group, or
when it is a proper noun WordNet does not know (most organisations' acronyms). An adjective
counts only when WordNet knows the word as a noun alone (the tagger's *terrorist* attack);
an adjective of its own (*criminal*, *national*, *heavy*, whose first noun senses are persons
too) describes the event rather than its agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Lexicographer files of the noun senses that name acts and events.
EVENT_LEXNAMES = frozenset({"noun.act", "noun.event"})
# WordNet's generic verb frames with an object ("Somebody ----s something", ...): a verb
# with one of them takes the of-argument of its noun as its object. Numbers as in WordNet's
# frames list (wninput(5WN)).
TRANSITIVE_FRAMES = frozenset({8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 26, 28, 29,
                               30, 31, 32, 33, 34, 35})
# The sense choices of :func:`event_noun`: the first sense alone, or also a later act or event
# sense of a noun that names no thing.
SENSE_CHOICES = ("first", "abstract")
# Lexicographer files of the noun senses that name a thing, a place, a person or group, an
# amount or a time: a noun with one of them is no event noun by a later sense.
THING_LEXNAMES = frozenset({
    "noun.artifact", "noun.location", "noun.object", "noun.substance", "noun.body",
    "noun.plant", "noun.animal", "noun.food", "noun.person", "noun.group", "noun.possession",
    "noun.quantity", "noun.time"})
DEP_SUBJECT = "nsubj"
DEP_OBJECT = "dobj"
# Lexicographer files of the noun senses that name who can act (R15).
AGENT_LEXNAMES = frozenset({"noun.person", "noun.group"})
AGENT_MODIFIER_UPOS = frozenset({"NOUN", "PROPN", "ADJ"})


@dataclass(frozen=True)
class EventNoun:
    """What an event noun stands for: its ``verb`` lemma and the dependency (``dobj`` or
    ``nsubj``) of the argument that ``of`` or a possessive introduces (``of_dep``)."""

    verb: str
    of_dep: str


def event_noun(reader: Any, lemma: str, senses: str = "first") -> EventNoun | None:
    """The verb an event noun stands for, by WordNet alone (see the module docstring).

    Parameters
    ----------
    reader : NLTK ``WordNetCorpusReader``
    lemma : the noun's lemma, lowercased
    senses : ``"first"``, the noun's first sense must be an act or event; or ``"abstract"``,
        failing that, the first act or event sense linked to a verb of a noun none of whose
        senses names a thing (:data:`THING_LEXNAMES`)

    Returns
    -------
    EventNoun or None
        None when no sense the choice allows is an act or event that WordNet relates to a
        verb.
    """
    _check_senses(senses)
    synsets = reader.synsets(lemma, pos="n")
    if not synsets:
        return None
    found = None
    if synsets[0].lexname() in EVENT_LEXNAMES:
        found = _verb_of_sense(synsets[0], lemma)
    if found is not None or senses == "first":
        return found
    if any(s.lexname() in THING_LEXNAMES for s in synsets):
        return None
    for sense in synsets[1:]:
        if sense.lexname() in EVENT_LEXNAMES:
            found = _verb_of_sense(sense, lemma)
            if found is not None:
                return found
    return None


def _check_senses(senses: str) -> None:
    if senses not in SENSE_CHOICES:
        raise ValueError(f"unknown event-noun sense choice {senses!r}: use one of "
                         f"{', '.join(SENSE_CHOICES)}")


def _verb_of_sense(sense: Any, lemma: str) -> EventNoun | None:
    """The verb of one act or event sense of a noun: among the verbs WordNet links to the
    sense's lemma ``lemma``, the one with the most links and tag counts (see the module
    docstring); None when it links to no verb."""
    counts: dict[str, int] = {}
    frames: dict[str, set[int]] = {}
    for noun_lemma in sense.lemmas():
        if noun_lemma.name().lower() != lemma:
            continue
        for related in noun_lemma.derivationally_related_forms():
            if related.synset().pos() == "v":
                # Each link counts once beside its tag count: databases without tag counts
                # (Debian's wordnet-base) then prefer the verb linked by more senses.
                verb = related.name().lower()
                counts[verb] = counts.get(verb, 0) + related.count() + 1
                frames.setdefault(verb, set()).update(related.frame_ids())
    if not counts:
        return None
    verb = min(counts, key=lambda v: (-counts[v], v))
    return EventNoun(verb, DEP_OBJECT if frames[verb] & TRANSITIVE_FRAMES else DEP_SUBJECT)


def agent_modifier(reader: Any, lemma: str, upos: str) -> bool:
    """Whether a modifier of an event noun names the event's agent, by WordNet alone (rule
    R15; see the module docstring).

    Parameters
    ----------
    reader : NLTK ``WordNetCorpusReader``
    lemma : the modifier's lemma, lowercased
    upos : its universal part of speech (``NOUN``, ``PROPN`` or ``ADJ``; any other is no agent)

    Returns
    -------
    bool
    """
    if upos not in AGENT_MODIFIER_UPOS:
        return False
    senses = reader.synsets(lemma, pos="n")
    if not senses:
        return upos == "PROPN"
    if senses[0].lexname() not in AGENT_LEXNAMES:
        return False
    return upos != "ADJ" or not reader.synsets(lemma, pos="a")


class EventNounLexicon:
    """Memoised :func:`event_noun` and :func:`agent_modifier` over a WordNet lexicon; what
    rules R12 and R14-R16 consult.

    Parameters
    ----------
    wordnet : ``aesi_lib.lexicon.wordnet.WordNetLexicon``
        Its reader answers the lookups; it pickles by reopening the same database, and so
        does this lexicon (Dask workers, parse batches in other processes).
    senses : the sense choice of :func:`event_noun`, ``"first"`` or ``"abstract"``
    """

    def __init__(self, wordnet: Any, senses: str = "first") -> None:
        _check_senses(senses)
        self.wordnet = wordnet
        self.senses = senses
        self._found: dict[str, EventNoun | None] = {}
        self._agents: dict[tuple[str, str], bool] = {}

    def __reduce__(self) -> tuple[Any, tuple[Any, str]]:
        return (EventNounLexicon, (self.wordnet, self.senses))

    def __repr__(self) -> str:
        return f"EventNounLexicon({self.wordnet!r}, senses={self.senses!r})"

    @property
    def config_id(self) -> str:
        """Names the rule, its sense choice (the first sense's id is that of the stores made
        before the choice existed) and its database, for the store's record of how rows
        were made."""
        choice = "" if self.senses == "first" else f"-{self.senses}"
        return f"event-nouns-1{choice};wordnet-{self.wordnet.version}"

    def lookup(self, lemma: str) -> EventNoun | None:
        """:func:`event_noun` of ``lemma`` (lowercased), memoised."""
        lemma = lemma.lower()
        if lemma not in self._found:
            # The reader seeks in shared file handles: one lookup at a time, under the
            # WordNet lexicon's lock (its noun lookups use the same reader).
            with self.wordnet.lock:
                self._found[lemma] = event_noun(self.wordnet.reader, lemma, self.senses)
        return self._found[lemma]

    def is_agent(self, lemma: str, upos: str) -> bool:
        """:func:`agent_modifier` of ``lemma`` (lowercased) as a ``upos``, memoised."""
        key = (lemma.lower(), upos)
        if key not in self._agents:
            with self.wordnet.lock:
                self._agents[key] = agent_modifier(self.wordnet.reader, *key)
        return self._agents[key]
