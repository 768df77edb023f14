"""The rules that read arguments off event nouns (R12, R14, R15 and R16 of
:mod:`aesi_lib.entities.rules`, whose docstring states them): the noun's own prepositional
and possessive arguments, the subject of a support verb whose object it is, its modifiers
that name who acts, and the agent a verb of accusation or claim gives it. Which nouns name
events, and which modifiers name agents, the WordNet lexicon of
:mod:`aesi_lib.entities.event_nouns` decides (``lexicon`` below: ``lookup(lemma)`` and
``is_agent(lemma, upos)``).
"""

from __future__ import annotations

from typing import Any

from aesi_lib.entities.sentence_view import (
    CLEAR_POBJ,
    CLEAR_PREP,
    DEP_OBJECT,
    DEP_SUBJECT,
    OBJECT,
    PASSIVE_SUBJECT,
    PREP_PREFIX,
    RELATIVE_CLAUSE,
    SUBJECT,
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
    with its ``EventNoun``, in token order. R12 and R14-R16 all read them from here."""
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
    possessors = [(c, of_dep) for c in view.children[event]
                  if view.tokens[c].dep in CLEAR_POSS | UD_POSS and view.is_noun(c)]
    return possessors + [(n, _event_preposition_dep(name, of_dep))
                         for n, name in prepositional_objects(view, event)]


def prepositional_objects(view: SentenceView, noun: int) -> list[tuple[int, str]]:
    """(object noun, preposition) of a noun's prepositional modifiers: ClearNLP ``prep`` with
    its ``pobj``, or a UD ``nmod``/``obl`` with its ``case``."""
    out: list[tuple[int, str]] = []
    for c in view.children[noun]:
        dep = view.tokens[c].dep
        if dep in CLEAR_PREP:
            name = view.preposition(c)
            out += [(o, name) for o in view.kids(c, CLEAR_POBJ)]
        elif dep in UD_OBLIQUE:
            name = oblique_preposition(view, c)
            if name:
                out.append((c, name))
    return [(n, name) for n, name in out if view.is_noun(n)]


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


#: Verbs of rule R16 that say who did an event (lemma, the agent's entity dependency, the
#: event's entity dependency): ``the army accused the FMLN of the attack`` -> the FMLN is the
#: attack's agent. A closed class of English, like ``SUPPORT_VERBS``.
ATTRIBUTION_VERBS: frozenset[tuple[str, str, str]] = frozenset({
    ("accuse", DEP_OBJECT, "prep_of"), ("suspect", DEP_OBJECT, "prep_of"),
    ("blame", DEP_OBJECT, "prep_for"), ("blame", "prep_on", DEP_OBJECT),
    ("charge", DEP_OBJECT, "prep_with"), ("implicate", DEP_OBJECT, "prep_in"),
    ("involve", DEP_OBJECT, "prep_in"), ("attribute", "prep_to", DEP_OBJECT),
    ("claim", DEP_SUBJECT, DEP_OBJECT), ("claim", DEP_SUBJECT, "prep_for"),
    ("admit", DEP_SUBJECT, DEP_OBJECT), ("admit", DEP_SUBJECT, "prep_for"),
})
#: Nouns through which a verb of R16 reaches its event (``claimed responsibility for the
#: attack``): the event is their ``for``, ``in`` or ``of`` argument.
RESPONSIBILITY_NOUNS = frozenset({"responsibility", "authorship", "credit", "involvement",
                                  "participation"})
RESPONSIBILITY_PREPOSITIONS = frozenset({"for", "in", "of"})


def attributed_agents(view: SentenceView, verb_arguments: dict[int, list[tuple[int, str]]],
                      events: dict[int, Any]) -> list[tuple[int, int, str]]:
    """(agent token, event-noun token, the noun's verb) of every verb of
    ``ATTRIBUTION_VERBS`` whose event argument is one of the sentence's ``events``
    (:func:`sentence_event_nouns`), directly or through a noun of ``RESPONSIBILITY_NOUNS``
    (R16)."""
    out = []
    for verb, pairs in verb_arguments.items():
        tok = view.tokens[verb]
        lemma = tok.lemma.lower() or tok.text.lower()
        for agent_dep, event_dep in sorted((a, e) for v, a, e in ATTRIBUTION_VERBS
                                           if v == lemma):
            agents = [n for n, dep in pairs if dep == agent_dep]
            arguments = [n for n, dep in pairs if dep == event_dep]
            # The parser often attaches the prepositional one of the two to the other
            # argument (accused [the FMLN of the attack]; blamed [the attack on the FMLN]).
            arguments += _attached(view, agents, event_dep)
            agents += _attached(view, arguments, agent_dep)
            out += [(n, event, events[event].verb)
                    for argument in arguments
                    for event in _attributed_events(view, argument, events)
                    for n in agents if n != event]
    return out


# R16: the adjective that says who did an event, and how it reaches its noun.
RESPONSIBLE = "responsible"
PREDICATIVE = frozenset({"acomp"})
OBJECT_PREDICATIVE = frozenset({"oprd", "xcomp"})
ATTRIBUTIVE = frozenset({"amod"})


def responsible_agents(view: SentenceView, events: dict[int, Any]
                       ) -> list[tuple[int, int, str]]:
    """(agent token, event-noun token, the noun's verb) of every *responsible for* an event
    noun of ``events`` (R16): its subject (``the FMLN is responsible for the attack``; through
    a relative pronoun to the noun it modifies), the object of the verb it completes (``held
    the FMLN responsible for``) or the noun it modifies (``the group responsible for``), with
    their conjuncts."""
    out = []
    for i, tok in enumerate(view.tokens):
        if tok.upos != "ADJ" or (tok.lemma or tok.text).lower() != RESPONSIBLE:
            continue
        targets = [o for o, name in prepositional_objects(view, i)
                   if name == "for" and o in events]
        if not targets:
            continue
        # UD makes the adjective the head of its clause; ClearNLP hangs it on the copula.
        agents = view.kids(i, SUBJECT | PASSIVE_SUBJECT)
        head = tok.head if 0 <= tok.head < len(view.tokens) else None
        if head is not None and tok.dep in PREDICATIVE:
            agents += view.kids(head, SUBJECT | PASSIVE_SUBJECT)
        elif head is not None and tok.dep in OBJECT_PREDICATIVE:
            agents += view.kids(head, OBJECT)
        elif head is not None and tok.dep in ATTRIBUTIVE:
            agents.append(head)
        clause = head if head is not None and tok.dep in PREDICATIVE else i
        agents = [_antecedent(view, a, clause) for a in agents]
        out += [(m, event, events[event].verb) for a in agents if a is not None
                for m in view.conjuncts(a) if view.is_noun(m) for event in targets]
    return out


def _antecedent(view: SentenceView, subject: int, clause: int) -> int | None:
    """The subject itself, or for a relative pronoun the noun its relative clause modifies."""
    if not view.is_relative_pronoun(subject):
        return subject
    tok = view.tokens[clause]
    if tok.dep in RELATIVE_CLAUSE and 0 <= tok.head < len(view.tokens):
        return tok.head
    return None


def _attached(view: SentenceView, nouns: list[int], dep: str) -> list[int]:
    """The objects of the preposition that ``dep`` names (``prep_of``) attached to ``nouns``."""
    if not dep.startswith(PREP_PREFIX):
        return []
    return [o for noun in nouns for o, name in prepositional_objects(view, noun)
            if PREP_PREFIX + name == dep]


def _attributed_events(view: SentenceView, argument: int, events: dict[int, Any]) -> list[int]:
    """The event nouns an argument of an attribution verb names: itself, or the ``for``,
    ``in`` or ``of`` arguments of a responsibility noun."""
    if argument in events:
        return [argument]
    tok = view.tokens[argument]
    if (tok.lemma or tok.text).lower() not in RESPONSIBILITY_NOUNS:
        return []
    return [n for n, name in prepositional_objects(view, argument)
            if name in RESPONSIBILITY_PREPOSITIONS and n in events]


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
