"""Entity rules: the paper's entities e = (h, p, d, f) from a dependency parse.

An entity is a noun-phrase head that is an argument of a verb (Sha et al. 2016, Section 2).
The paper does not say which arguments count; the rules below are the usual choice of this
literature (Chambers & Jurafsky 2011), written out so that each can be read and tested. They work
on both label sets the parsers produce: ClearNLP/Stanford (spaCy: ``nsubj``, ``dobj``, ``prep`` +
``pobj``, ``nsubjpass``, ``agent``, ``dative``, ``relcl``) and Universal Dependencies (Stanza:
``nsubj``, ``obj``, ``obl`` + ``case``, ``nsubj:pass``, ``obl:agent``, ``iobj``, ``acl:relcl``).

Rules
-----
R1 heads
    The head is a NOUN or PROPN token (or a personal pronoun under R18). Numerals and
    everything else are left out.
R2 predicates
    The predicate is a VERB token (not AUX: copulas and auxiliaries are not predicates) that
    does not itself serve as a preposition or marker (``ACCORDING to``); its lowercased lemma is
    the entity's ``predicate``.
R3 subjects
    ``nsubj`` -> ``nsubj``.
R4 objects
    ``dobj`` / ``obj`` -> ``dobj``; ``iobj`` and a nominal ``dative`` -> ``iobj``.
R5 passives
    A passive subject (``nsubjpass`` / ``nsubj:pass``) -> ``dobj``; the ``by``-agent (``agent``
    + ``pobj``; ``obl:agent``; or ``by`` on a passive verb) -> ``nsubj``.
R6 prepositional arguments
    ``prep`` + ``pobj`` (ClearNLP) or ``obl`` / ``nmod`` with a ``case`` child (UD) ->
    ``prep_<preposition>``, the preposition lowercased; multiword prepositions are joined with
    ``_`` (``according to`` -> ``prep_according_to``: a ``prep`` chain in ClearNLP, ``case`` +
    ``fixed`` in UD; ``because of`` -> ``prep_because_of``). A prepositional ``dative``
    (``gave it to them``) is ``prep_to``. Bare obliques without a preposition (``obl:tmod``,
    ``npadvmod``: ``YESTERDAY``) are not arguments.
R7 conjoined and appositive nouns
    Every noun conjunct of an argument is an argument too, with the same predicate and
    dependency (``killed the priest and his housekeeper`` -> priest/dobj, housekeeper/dobj),
    also when the first conjunct is a pronoun. So is every noun in apposition to an argument,
    which names the same entity again (``killed his secretary, Ronnie Moffit`` ->
    secretary/dobj, Moffit/dobj; ``Hilda Flores, a Social Democratic leader, was killed`` ->
    leader/dobj too), and the conjuncts and appositions of these in turn.
R8 conjoined verbs share the subject
    A verb conjunct without a subject of its own takes the subject of the verb it is conjoined
    to; its own voice decides the dependency (``the bomb exploded and caused damage`` ->
    bomb/nsubj of explode and of cause; ``... exploded and was found`` -> bomb/dobj of find).
    Objects are not shared (``arrested and questioned the suspects`` attaches the object to one
    verb only, as the parser does).
R9 relative clauses
    A relative pronoun (who, whom, which, that) that is an argument in a relative clause is
    replaced by the noun the clause modifies (``the bomb, which exploded`` -> bomb/nsubj of
    explode; ``the car in which it exploded`` -> car/prep_in of explode).
R10 participles
    A participle that modifies a noun (``acl``) makes that noun its argument: past participle ->
    ``dobj`` (``inmates accused of ...`` -> inmate/dobj of accuse), present participle ->
    ``nsubj`` (``the court trying the people`` -> court/nsubj of try).
R11 subject control
    An ``xcomp`` verb without a subject takes the subject of its governing verb when that verb
    has no direct object (``they tried to escape`` -> subject of escape); with an object
    (``forced them to leave``) nothing is inferred.

R12 event nouns (only with ``EntityRules.event_nouns``, ``features.event_nouns``)
    A common noun that names an act or event of a verb (``murder``, ``kidnapping``,
    ``attack``; :mod:`aesi_lib.entities.event_nouns` decides by WordNet) is that verb for its
    prepositional and possessive noun arguments: ``of`` and a possessor take the dependency
    the lexicon gives (``the murder of the priest`` -> priest/dobj of murder, ``the death of
    the priest`` -> priest/nsubj of die), ``on``, ``against`` and ``upon`` -> ``dobj``
    (``the attack on the embassy``), ``by`` -> ``nsubj``, any other preposition
    ``prep_<preposition>``. The predicate is the verb's lemma, so these mentions join the
    verb's own (a template is tied by predicate); ``predicate_index`` is the noun. A
    (head, predicate, dependency) that a verb of the sentence already gives is not repeated.

(R13, phrasal verbs as predicates of their own, was removed: it measured no gain.)

R14 support verbs (only with R12 and ``EntityRules.support_verbs``, ``features.support_verbs``)
    The subject of a support verb (``SUPPORT_VERBS``: ``carry out``, ``commit``,
    ``perpetrate``, ``stage``, ``launch``, ``mount``, ``conduct``) whose direct object is an
    event noun is also the subject of that noun's verb: ``the FMLN carried out the attack``
    -> FMLN/nsubj of ``attack`` too (and ``the attack was carried out by the FMLN``, by R5).
    The support verb adds only its aspect; the agent is the event's. ``predicate_index`` is
    the noun, as in R12.

R15 agentive modifiers (only with R12 and ``EntityRules.agentive_modifiers``,
``features.agentive_modifiers``)
    A compound or adjectival modifier of an event noun that names who acts (WordNet decides:
    a person or group noun, or a proper noun WordNet does not know;
    :func:`aesi_lib.entities.event_nouns.agent_modifier`) is the subject of the noun's verb:
    ``the terrorist attack`` -> terrorist/nsubj of attack, ``an FMLN ambush`` ->
    FMLN/nsubj of ambush, and so are the conjuncts of such a modifier. This is
    the one rule whose head may be tagged an adjective (the tagger's ``terrorist`` attack),
    when WordNet knows the word as a noun only. An event noun that is itself a compound part
    of a name (``National Liberation Front``) has no modifiers here. ``predicate_index`` is
    the noun, as in R12.

R16 attribution verbs (only with R12 and ``EntityRules.attribution_verbs``,
``features.attribution_verbs``)
    A verb that says who did an event (``ATTRIBUTION_VERBS``: *accuse* / *suspect* X of,
    *blame* X for, *blame* the event on X, *charge* X with, *implicate* X in, *involve* X in,
    *attribute* the event to X, X *claims* or *admits* the event) gives its agent argument as
    the subject of the event noun's verb: ``the army accused the FMLN of the attack`` ->
    FMLN/nsubj of attack, ``the attack was blamed on the FMLN`` likewise. The event may also
    be the ``for``, ``in`` or ``of`` argument of a responsibility noun (``RESPONSIBILITY_NOUNS``)
    in that place: ``the FMLN claimed responsibility for the attack``. The arguments are the
    verb's own (R3-R7, so passives and conjuncts count), and a prepositional one may hang on
    the other argument instead (``accused [the FMLN of the attack]``). *Responsible for* an
    event noun gives it its subject, through a relative pronoun its antecedent, the object of
    the verb it completes (``held the FMLN responsible for``) or the noun it modifies (``the
    group responsible for the attack``). ``predicate_index`` is the noun, as in R12.

(R17, nouns inside an argument's phrase as arguments of its predicate, and R19, numbers and
quantifiers that are an argument, were measured on CASIE and MUC-4 and removed: R17 raised
CASIE's recall ceilings but lowered its F1 and MUC-4's, R19 raised CASIE's multi-slot F1 and
lowered MUC-4's; docs/experiments/reach-rules.md. Their code is at commit 5291fcb. R17 by its
parts, one link at a time, was measured and removed too: its code is at commit 28358f8.)

R18 pronouns (only with ``EntityRules.pronoun_arguments``, ``features.pronoun_arguments``)
    A personal pronoun (*he*, *she*, *it*, *they*, *we*, *I* and their object forms) is an
    argument head as a noun is (R3-R11). Its mention and span are the pronoun's; its head,
    lemma, phrase and ``proper`` are those of its antecedent, so that it reads and scores as
    the entity it stands for: the nearest preceding argument noun of its own sentence, else
    the previous sentence's first subject, else that sentence's nearest noun, whose number
    agrees (plural for *they*, *them*, *we*, *us*); the pronoun's own when none agrees.

Each (head token, predicate token, dependency) triple is kept once. R8-R11 can be switched off
with :class:`EntityRules` for ablations. R12 and R14-R16 are written in
:mod:`aesi_lib.entities.event_noun_rules`; the labels and the sentence view all rules read are
in :mod:`aesi_lib.entities.sentence_view`.

Mention
-------
The mention is the noun phrase of the head: its subtree without conjuncts, coordinators,
appositions, relative and participle clauses and other clausal attachments, narrowed to the
contiguous stretch around the head, with leading articles and demonstratives (``the``, ``a``,
``this``, ``those``) and punctuation at both ends removed; other determiners stay
(``no measures``). Compounds and names stay (``Las Canas bridge``), possessives and
prepositional modifiers stay (``his housekeeper``, ``chapel of the church``).
Token texts are as in the document (original case).

Phrase
------
The phrase is what a person would call the head in a list of who did what: the head with the
contiguous words before it that belong to its own noun phrase and name or describe it
(compounds, names, adjectives and the adverbs of these: ``heavily armed men``, ``Las Canas
bridge``), without leading articles, determiners, possessives, numbers and quantifiers
(``about 50 peasants`` -> ``peasants``), and nothing after the head. A word written with
hyphens is one word, kept whole (``medium-sized bombs``, not ``sized bombs``; ``15-year-old
daughter``), and the tokens are joined as the document writes them: one blank where it has
whitespace, none where it has none. ``proper`` says whether the head is a proper noun (a
name).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from aesi_lib.entities.event_noun_rules import (
    agentive_modifiers,
    attributed_agents,
    event_noun_arguments,
    responsible_agents,
    sentence_event_nouns,
    support_verb_agents,
)
from aesi_lib.entities.pronouns import is_pronoun_argument, resolve_pronouns
from aesi_lib.entities.sentence_view import (
    ANY_SUBJECT,
    CLEAR_AGENT,
    CLEAR_DATIVE,
    CLEAR_POBJ,
    CLEAR_PREP,
    CONJ,
    CONTROL,
    DEP_INDIRECT,
    DEP_OBJECT,
    DEP_SUBJECT,
    INDIRECT_OBJECT,
    NON_PREDICATE_DEPS,
    OBJECT,
    PARTICIPLE_CLAUSE,
    PASSIVE_SUBJECT,
    PREDICATE_UPOS,
    PREP_PREFIX,
    RELATIVE_CLAUSE,
    SUBJECT,
    UD_AGENT,
    UD_OBLIQUE,
    SentenceView,
    oblique_preposition,
)
from aesi_lib.parse.types import ParsedDocument, Sentence, Token

# Bump when the rules or the columns of an entity row change: a store whose documents were
# extracted by other rules re-extracts them (from the parse cache, nothing is parsed again).
# 2: rows carry ``predicate_index``; 3: character spans index the user's original text;
# 4: ``mention`` is the user's text of that span; 5: appositions are arguments (R7);
# 6: rows carry ``phrase`` and ``proper``; 7: a phrase keeps hyphenated words whole.
ENTITY_FORMAT_VERSION = 7


def stored_config_id(parser_config_id: str, rules: EntityRules | None = None) -> str:
    """The configuration a store records for a document: the parser's ``config_id``, the
    entity rules' :data:`ENTITY_FORMAT_VERSION`, the event-noun lexicon of R12 and whether
    R14-R16 are on, so that a change of any of them makes the document's rows again."""
    stored = f"{parser_config_id};entities={ENTITY_FORMAT_VERSION}"
    if rules is None:
        return stored
    if rules.event_nouns is not None:
        stored += f";{rules.event_nouns.config_id}"
        stored += "".join(f";{mark}" for switch, mark in _EVENT_NOUN_RULE_MARKS
                          if getattr(rules, switch))
    if rules.pronoun_arguments:
        stored += f";{_PRONOUN_RULE_MARK}"
    return stored


#: What :func:`stored_config_id` records for each of R14-R16 when it is on (only with R12,
#: whose event nouns they read), in this order.
_EVENT_NOUN_RULE_MARKS = (("support_verbs", "support"), ("agentive_modifiers", "agentive"),
                          ("attribution_verbs", "attribution"))
#: What :func:`stored_config_id` records for R18 when it is on.
_PRONOUN_RULE_MARK = "pronouns"


# Children left out of a mention (with their subtrees).
MENTION_EXCLUDED = frozenset({"conj", "cc", "preconj", "appos", "relcl", "acl:relcl", "acl",
                              "punct", "parataxis", "advcl", "ccomp", "dep", "list"})
# Leading articles and demonstratives are dropped from a mention; other determiners ("no",
# "any", "every") change its meaning and stay.
LEADING_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those"})
# Dependents before the head that are not part of its phrase (with their subtrees).
PHRASE_EXCLUDED = MENTION_EXCLUDED | frozenset({"det", "predet", "poss", "nmod:poss", "case",
                                                "prep", "nummod", "quantmod"})
# What joins the parts of a hyphenated word, which a phrase keeps whole.
HYPHENS = frozenset({"-", "\u2010", "\u2011", "\u2013"})
# Leading parts of speech and words a phrase drops: how many or which, not what.
PHRASE_LEADING_UPOS = frozenset({"DET", "NUM", "PUNCT", "ADP", "CCONJ", "PART", "PRON", "SYM"})
PHRASE_LEADING_WORDS = frozenset({"about", "some", "several", "many", "more", "most", "than",
                                  "least", "at", "over", "nearly", "almost", "approximately",
                                  "around", "only", "few", "other", "another", "all", "both",
                                  "each", "every", "any", "no", "such", "same", "up", "to"})


@dataclass(frozen=True, slots=True)
class EntityRecord:
    """One entity mention: the head noun, its predicate and the dependency between them.

    ``head_index`` is the head's token index within sentence ``sent_id`` (both 0-based);
    ``head`` its text as in the document; ``head_lemma`` its lemma lowercased; ``mention`` the
    noun phrase text; ``predicate`` the verb lemma lowercased; ``dep`` one of ``nsubj``,
    ``dobj``, ``iobj``, ``prep_<preposition>``; ``ner`` the head's named-entity type where the
    parse has one (the parsers of a run have no entity recognizer: ``""``; the column stays
    for the stores written before);
    ``start_char`` and ``end_char`` the mention's character span ``[start, end)`` in the
    document text (-1 when the parser gives no offsets); ``predicate_index`` the predicate's
    token index within the sentence (under R12 and R14-R16 the event noun's); ``phrase`` the
    head's phrase and ``proper`` whether the head is a proper noun ("Phrase" in the module
    docstring).
    """

    doc_id: str
    sent_id: int
    head_index: int
    head: str
    head_lemma: str
    mention: str
    predicate: str
    dep: str
    ner: str
    start_char: int = -1
    end_char: int = -1
    predicate_index: int = -1
    phrase: str = ""
    proper: bool = False


ENTITY_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(EntityRecord))


@dataclass(frozen=True)
class EntityRules:
    """Switches for the optional rules (R8-R16 in the module docstring): R8-R11 on by
    default; R12 on when ``event_nouns`` is a lexicon (an object with ``lookup(lemma)``
    returning an ``aesi_lib.entities.event_nouns.EventNoun`` or None, ``is_agent(lemma,
    upos)`` and ``config_id``); R14 with ``support_verbs`` and R12; R15 with
    ``agentive_modifiers`` and R12; R16 with ``attribution_verbs`` and R12; R18 with
    ``pronoun_arguments``."""

    conj_verbs: bool = True
    relative_clauses: bool = True
    participles: bool = True
    control: bool = True
    event_nouns: Any = None
    support_verbs: bool = False
    agentive_modifiers: bool = False
    attribution_verbs: bool = False
    pronoun_arguments: bool = False


DEFAULT_RULES = EntityRules()


def _is_head(view: SentenceView, i: int, rules: EntityRules) -> bool:
    """Whether token ``i`` can head an argument: a noun (R1), or a personal pronoun under
    R18."""
    return view.is_noun(i) or (rules.pronoun_arguments and is_pronoun_argument(view, i))


def _arguments(view: SentenceView, verb: int) -> list[tuple[int, str]]:
    """(argument token, entity dependency) pairs of one verb from its own dependents (R3-R6)."""
    out: list[tuple[int, str]] = []
    passive = view.is_passive(verb)
    for c in view.children[verb]:
        dep = view.tokens[c].dep
        if dep in SUBJECT:
            out.append((c, DEP_SUBJECT))
        elif dep in PASSIVE_SUBJECT:
            out.append((c, DEP_OBJECT))
        elif dep in OBJECT:
            out.append((c, DEP_OBJECT))
        elif dep in INDIRECT_OBJECT:
            out.append((c, DEP_INDIRECT))
        elif dep in CLEAR_DATIVE and view.tokens[c].upos != "ADP":
            out.append((c, DEP_INDIRECT))
        elif dep in CLEAR_AGENT:
            out += [(p, DEP_SUBJECT) for p in view.kids(c, CLEAR_POBJ)]
        elif dep in CLEAR_PREP or dep in CLEAR_DATIVE:
            out += _clear_prep_arguments(view, c, passive)
        elif dep in UD_AGENT:
            out.append((c, DEP_SUBJECT))
        elif dep in UD_OBLIQUE:
            prep = oblique_preposition(view, c)
            if prep:
                out.append((c, DEP_SUBJECT if prep == "by" and passive else PREP_PREFIX + prep))
    return out


def _clear_prep_arguments(view: SentenceView, prep: int, passive: bool
                          ) -> list[tuple[int, str]]:
    """Objects of a ClearNLP ``prep`` token, following a multiword chain (according -> to)."""
    name = view.preposition(prep)
    objects = view.kids(prep, CLEAR_POBJ)
    if not objects:
        for inner in view.kids(prep, CLEAR_PREP):
            inner_objects = view.kids(inner, CLEAR_POBJ)
            if inner_objects:
                name = f"{name}_{view.preposition(inner)}"
                objects = inner_objects
                break
    dep = DEP_SUBJECT if name == "by" and passive else PREP_PREFIX + name
    return [(o, dep) for o in objects]


def _surface_subjects(view: SentenceView, verb: int, rules: EntityRules,
                      depth: int = 0) -> list[int]:
    """Nouns that are the surface subject of ``verb``, own or inherited (R8-R11).

    Returns an empty list when the verb has a subject that is not a noun (a pronoun), so that
    nothing is inherited past it.
    """
    if depth > 20:  # malformed trees; real chains are short
        return []
    own = view.kids(verb, ANY_SUBJECT)
    if own:
        nouns: list[int] = []
        for s in own:
            if rules.relative_clauses and view.is_relative_pronoun(s):
                nouns += _antecedents(view, verb)
            else:
                nouns += [c for c in view.conjuncts(s) if _is_head(view, c, rules)]
        return nouns
    tok = view.tokens[verb]
    head = tok.head
    if head < 0:
        return []
    if rules.conj_verbs and tok.dep in CONJ and view.is_verb(head):
        return _surface_subjects(view, head, rules, depth + 1)
    if rules.participles and tok.dep in PARTICIPLE_CLAUSE and tok.tag in {"VBN", "VBG"}:
        return [c for c in view.conjuncts(head) if view.is_noun(c)] if view.is_noun(head) else []
    if (rules.control and tok.dep in CONTROL and view.is_verb(head)
            and not view.kids(head, OBJECT)):
        return _surface_subjects(view, head, rules, depth + 1)
    return []


def _antecedents(view: SentenceView, verb: int) -> list[int]:
    """The noun a relative clause headed by ``verb`` (or by a verb it is conjoined to) modifies."""
    seen = 0
    while view.tokens[verb].dep in CONJ and view.tokens[verb].head >= 0 and seen < 20:
        verb = view.tokens[verb].head
        seen += 1
    tok = view.tokens[verb]
    if tok.dep in RELATIVE_CLAUSE and tok.head >= 0 and view.is_noun(tok.head):
        return [tok.head]
    return []


def _verb_entities(view: SentenceView, verb: int, rules: EntityRules) -> list[tuple[int, str]]:
    """All (head noun, dependency) pairs of one verb (R1, R3-R11)."""
    pairs: list[tuple[int, str]] = []
    passive = view.is_passive(verb)
    for arg, dep in _arguments(view, verb):
        if rules.relative_clauses and view.is_relative_pronoun(arg):
            pairs += [(n, dep) for n in _antecedents(view, verb)]
            continue
        pairs += [(n, dep) for n in view.conjuncts(arg) if _is_head(view, n, rules)]
    if not view.kids(verb, ANY_SUBJECT):
        inherited_dep = DEP_OBJECT if passive else DEP_SUBJECT
        pairs += [(n, inherited_dep) for n in _surface_subjects(view, verb, rules)]
    return pairs


def mention_text(sentence: Sentence, head: int) -> str:
    """The noun phrase of token ``head`` (see "Mention" in the module docstring)."""
    view = SentenceView(sentence)
    return _mention(view, head)[0]


def _mention(view: SentenceView, head: int) -> tuple[str, int, int]:
    """The mention text of ``head`` and its character span in the document (-1, -1 without
    token offsets)."""
    inside = {head}
    stack = [c for c in view.children[head] if view.tokens[c].dep not in MENTION_EXCLUDED]
    while stack:
        i = stack.pop()
        inside.add(i)
        stack += view.children[i]
    lo = hi = head
    while lo - 1 in inside:
        lo -= 1
    while hi + 1 in inside:
        hi += 1
    tokens = view.tokens
    while lo < head and (tokens[lo].text.lower() in LEADING_DETERMINERS
                         or tokens[lo].upos == "PUNCT"):
        lo += 1
    while hi > head and tokens[hi].upos == "PUNCT":
        hi -= 1
    parts = []
    for i in range(lo, hi + 1):
        parts.append(tokens[i].text)
        if i < hi and tokens[i].whitespace_after:
            parts.append(" ")
    return "".join(parts), *character_span(tokens, lo, hi)


def head_phrase(sentence: Sentence, head: int) -> str:
    """The phrase of token ``head`` (see "Phrase" in the module docstring)."""
    return _phrase(SentenceView(sentence), head)


def _phrase(view: SentenceView, head: int) -> str:
    tokens = view.tokens
    inside = {head}
    stack = [c for c in view.children[head]
             if c < head and tokens[c].dep not in PHRASE_EXCLUDED]
    while stack:
        i = stack.pop()
        inside.add(i)
        stack += [c for c in view.children[i] if tokens[c].dep not in MENTION_EXCLUDED]
    lo = head
    while lo - 1 in inside:
        lo -= 1
    while lo < head and (tokens[lo].upos in PHRASE_LEADING_UPOS
                         or tokens[lo].text.lower() in PHRASE_LEADING_WORDS
                         or tokens[lo].text.lower() in LEADING_DETERMINERS):
        lo += 1
    # The parts of a hyphenated word before ``lo`` (MEDIUM - SIZED) belong to its phrase.
    while lo > 0 and not tokens[lo - 1].whitespace_after and (
            tokens[lo - 1].text in HYPHENS or tokens[lo].text in HYPHENS):
        lo -= 1
    return "".join(tokens[i].text + (" " if tokens[i].whitespace_after else "")
                   for i in range(lo, head)) + tokens[head].text


def character_span(tokens: Sequence[Token], first: int, last: int) -> tuple[int, int]:
    """The character span ``[start, end)`` in the document of the tokens ``first`` to
    ``last`` (both included); ``(-1, -1)`` when the parse has no token offsets."""
    start = tokens[first].start_char
    if start < 0 or tokens[last].start_char < 0:
        return -1, -1
    return start, tokens[last].start_char + len(tokens[last].text)


def extract_sentence_entities(sentence: Sentence, doc_id: str, sent_id: int,
                              rules: EntityRules = DEFAULT_RULES) -> list[EntityRecord]:
    """Entity mentions of one sentence, ordered by predicate position, then head position."""
    view = SentenceView(sentence)
    seen: set[tuple[int, int, str]] = set()
    records: list[EntityRecord] = []
    mentions: dict[int, tuple[str, int, int, str]] = {}
    verb_arguments: dict[int, list[tuple[int, str]]] = {}
    for verb, tok in enumerate(view.tokens):
        if tok.upos not in PREDICATE_UPOS or tok.dep in NON_PREDICATE_DEPS:
            continue
        predicate = _predicate(view, verb)
        verb_arguments[verb] = sorted(_verb_entities(view, verb, rules))
        for noun, dep in verb_arguments[verb]:
            key = (noun, verb, dep)
            if noun == verb or key in seen:
                continue
            seen.add(key)
            records.append(_record(view, doc_id, sent_id, noun, verb, predicate, dep, mentions))
    if rules.event_nouns is not None:
        given = {(r.head_index, r.predicate, r.dep) for r in records}
        events = sentence_event_nouns(view, rules.event_nouns)
        for event, meaning in events.items():
            for noun, dep in sorted(event_noun_arguments(view, event, meaning.of_dep)):
                if (noun, meaning.verb, dep) in given:
                    continue
                given.add((noun, meaning.verb, dep))
                records.append(_record(view, doc_id, sent_id, noun, event, meaning.verb, dep,
                                       mentions))
        agents: list[tuple[int, int, str]] = []
        if rules.support_verbs:
            agents += support_verb_agents(view, verb_arguments, events)
        if rules.agentive_modifiers:
            agents += agentive_modifiers(view, events, rules.event_nouns)
        if rules.attribution_verbs:
            agents += attributed_agents(view, verb_arguments, events)
            agents += responsible_agents(view, events)
        for noun, event, verb in agents:
            if (noun, verb, DEP_SUBJECT) in given:
                continue
            given.add((noun, verb, DEP_SUBJECT))
            records.append(_record(view, doc_id, sent_id, noun, event, verb, DEP_SUBJECT,
                                   mentions))
    return records


def _predicate(view: SentenceView, verb: int) -> str:
    """The verb's lowercased lemma (R2)."""
    tok = view.tokens[verb]
    return tok.lemma.lower() or tok.text.lower()


def _record(view: SentenceView, doc_id: str, sent_id: int, noun: int, predicate_index: int,
            predicate: str, dep: str, mentions: dict[int, tuple[str, int, int, str]]
            ) -> EntityRecord:
    """The entity row of head ``noun`` as the ``dep`` of ``predicate`` (its mention text,
    span and phrase computed once per head and kept in ``mentions``)."""
    head_tok = view.tokens[noun]
    if noun not in mentions:
        mentions[noun] = (*_mention(view, noun), _phrase(view, noun))
    text, start, end, phrase = mentions[noun]
    return EntityRecord(
        doc_id=doc_id, sent_id=sent_id, head_index=noun, head=head_tok.text,
        head_lemma=(head_tok.lemma or head_tok.text).lower(), mention=text,
        predicate=predicate, dep=dep, ner=head_tok.ent_type, start_char=start,
        end_char=end, predicate_index=predicate_index, phrase=phrase,
        proper=head_tok.upos == "PROPN",
    )


def extract_entities(parsed: ParsedDocument, rules: EntityRules = DEFAULT_RULES
                     ) -> list[EntityRecord]:
    """All entity mentions of a parsed document (rules R1-R16 of the module docstring).

    Parameters
    ----------
    parsed
        A document in the neutral parse format (any backend, UD or ClearNLP labels).
    rules
        Switches for the optional rules; all on by default.

    Returns
    -------
    list of EntityRecord
        In sentence order, then predicate order, then head order.
    """
    records: list[EntityRecord] = []
    for sent_id, sentence in enumerate(parsed.sentences):
        records += extract_sentence_entities(sentence, parsed.doc_id, sent_id, rules)
    if rules.pronoun_arguments:
        records = resolve_pronouns(parsed, records)
    return records

