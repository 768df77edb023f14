"""The rules that read arguments off event nouns (R12, R14 and R15 of
:mod:`aesi_lib.entities.rules`, whose docstring states them): the noun's own prepositional
and possessive arguments, the subject of a support verb whose object it is, and its modifiers
that name who acts. Which nouns name events, and which modifiers name agents, the WordNet
lexicon of :mod:`aesi_lib.entities.event_nouns` decides (``lexicon`` below: ``lookup(lemma)``
and ``is_agent(lemma, upos)``).
"""

from __future__ import annotations

from typing import Any

from aesi_lib.entities.sentence_view import (
    CLEAR_POBJ,
    CLEAR_PREP,
    DEP_OBJECT,
    DEP_SUBJECT,
    PREP_PREFIX,
    UD_OBLIQUE,
    SentenceView,
    oblique_preposition,
    particles,
)

#: Support verbs of rule R14 (lemma, required particle or ""): the verbs whose subject is the
#: agent of the event their object names. A closed class of English; the event nouns
#: themselves are decided by WordNet (R12).
SUPPORT_VERBS: frozenset[tuple[str, str]] = frozenset({
    ("carry", "out"), ("commit", ""), ("perpetrate", ""), ("stage", ""), ("launch", ""),
    ("mount", ""), ("conduct", ""),
})

# R12: the prepositions whose object is the event's object or subject.
EVENT_OBJECT_PREPOSITIONS = frozenset({"on", "against", "upon"})
EVENT_OF = frozenset({"of"})
CLEAR_POSS = frozenset({"poss"})
UD_POSS = frozenset({"nmod:poss"})


def sentence_event_nouns(view: SentenceView, lexicon: Any) -> dict[int, Any]:
    """The sentence's event nouns (R12): each common noun token the lexicon maps to a verb,
    with its ``EventNoun``, in token order. R12, R14 and R15 all read them from here."""
    events = {}
    for i, tok in enumerate(view.tokens):
        if tok.upos == "NOUN":
            meaning = lexicon.lookup(tok.lemma or tok.text)
            if meaning is not None:
                events[i] = meaning
    return events


def event_noun_arguments(view: SentenceView, event: int, of_dep: str
                         ) -> list[tuple[int, str]]:
    """(argument token, entity dependency) pairs of an event noun (R12)."""
    out: list[tuple[int, str]] = []
    for c in view.children[event]:
        dep = view.tokens[c].dep
        if dep in CLEAR_POSS or dep in UD_POSS:
            out.append((c, of_dep))
        elif dep in CLEAR_PREP:
            name = view.preposition(c)
            out += [(o, _event_preposition_dep(name, of_dep)) for o in view.kids(c, CLEAR_POBJ)]
        elif dep in UD_OBLIQUE:
            name = oblique_preposition(view, c)
            if name:
                out.append((c, _event_preposition_dep(name, of_dep)))
    return [(n, d) for n, d in out if view.is_noun(n)]


def _event_preposition_dep(name: str, of_dep: str) -> str:
    if name in EVENT_OF:
        return of_dep
    if name in EVENT_OBJECT_PREPOSITIONS:
        return DEP_OBJECT
    return DEP_SUBJECT if name == "by" else PREP_PREFIX + name


def support_verb_agents(view: SentenceView, verb_arguments: dict[int, list[tuple[int, str]]],
                        events: dict[int, Any]) -> list[tuple[int, int, str]]:
    """(subject token, event-noun token, the noun's verb) of every support verb whose object
    is one of the sentence's ``events`` (:func:`sentence_event_nouns`; R14)."""
    out = []
    for verb, pairs in verb_arguments.items():
        tok = view.tokens[verb]
        lemma, verb_particles = tok.lemma.lower() or tok.text.lower(), particles(view, verb)
        if not any(lemma == v and (not p or p in verb_particles) for v, p in SUPPORT_VERBS):
            continue
        subjects = [n for n, dep in pairs if dep == DEP_SUBJECT]
        for event in (n for n, dep in pairs if dep == DEP_OBJECT and n in events):
            out += [(n, event, events[event].verb) for n in subjects if n != event]
    return out


# R15: the modifiers of an event noun that may name its agent.
NOUN_MODIFIERS = frozenset({"compound", "amod"})


def agentive_modifiers(view: SentenceView, events: dict[int, Any], lexicon: Any
                       ) -> list[tuple[int, int, str]]:
    """(modifier token, event-noun token, the noun's verb) of every modifier of one of the
    sentence's ``events`` (:func:`sentence_event_nouns`) that names who acts (R15)."""
    out = []
    for event, meaning in events.items():
        if view.tokens[event].dep in NOUN_MODIFIERS:
            continue
        for modifier in view.kids(event, NOUN_MODIFIERS):
            out += [(m, event, meaning.verb) for m in view.conjuncts(modifier)
                    if lexicon.is_agent(view.tokens[m].lemma or view.tokens[m].text,
                                        view.tokens[m].upos)]
    return out
