"""Mentions for coreference: the noun phrases and personal pronouns of a parsed document.

:func:`detect_mentions` lists what the sieves of :mod:`aesi_lib.entities.chains` link. Every
mention is keyed by ``(sent_id, head_index)``, the key of :class:`~aesi_lib.entities.rules.
EntityRecord`, so that a chain id can be attached to an entity without any alignment step.

Which tokens are mentions
-------------------------
M1 entity heads
    Every head that :func:`~aesi_lib.entities.rules.extract_entities` returns.
M2 other noun phrases
    Every other NOUN or PROPN token that heads a noun phrase: not a part of a name or compound
    (``compound``, ``flat``, ``fixed``, ``goeswith``, or a ClearNLP ``nmod`` placed before its
    head without a preposition: ``FARABUNDO`` in ``FARABUNDO MARTI``) and not a bare temporal or
    numeric modifier (``npadvmod``, ``obl:tmod``, ``nummod``). Appositions, predicate nominatives
    and objects of prepositions inside other noun phrases are mentions of their own.
M3 role nouns
    The title in front of a name (``Mayor`` in ``Mayor Jose Garcia``, ``Attorney General`` in
    ``Attorney General Roberto Garcia Alvarado``, ``Medellin Mayor`` in ``Medellin Mayor Juan
    Gomez Martinez``): its head is the last person noun before the name (only proper nouns
    follow it), and it runs from the start of the noun phrase. The role-appositive sieve links
    it to the name.
M4 personal pronouns
    Third-person personal, possessive and reflexive pronouns (``he``, ``its``, ``them``,
    ``themselves`` ...). First and second person are left out: resolving them needs the speaker
    of a quote, which the parse does not give. A pleonastic ``it`` (``it was reported that``,
    ``it seems that``) is left out too.

Attributes
----------
The span of a noun phrase is its head's subtree without clausal attachments, appositions and
conjuncts, narrowed to the contiguous stretch around the head (as for the entity mention text,
:func:`~aesi_lib.entities.rules.mention_text`). Number comes from the Penn tag (``NNS`` plural;
a proper noun is plural only when tagged ``NNPS`` and ending in ``s``: truecased acronyms such
as ``FMLN`` are often tagged ``NNPS``). Gender and animacy of nouns come from the small word
lists below (people's roles and kinship words common in news on political violence) and the
NER label when there is one; a proper noun without NER label has unknown animacy, so ``he``
and ``it`` may both refer to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from aesi_lib.entities.rules import (
    LEADING_DETERMINERS,
    MENTION_EXCLUDED,
    EntityRecord,
    extract_entities,
    extract_sentence_entities,
)
from aesi_lib.parse.types import ParsedDocument, Sentence, Token

MentionKey = tuple[int, int]

PROPER = "proper"
NOMINAL = "nominal"
PRONOUN = "pronoun"

SINGULAR, PLURAL = "singular", "plural"
MALE, FEMALE, NEUTER = "male", "female", "neuter"
ANIMATE, INANIMATE = "animate", "inanimate"
UNKNOWN = "unknown"

# (number, gender, animacy) of the third-person pronouns resolved by the pronoun sieve.
PRONOUN_FEATURES: dict[str, tuple[str, str, str]] = {
    **dict.fromkeys(("he", "him", "his", "himself"), (SINGULAR, MALE, ANIMATE)),
    **dict.fromkeys(("she", "her", "hers", "herself"), (SINGULAR, FEMALE, ANIMATE)),
    **dict.fromkeys(("it", "its", "itself"), (SINGULAR, NEUTER, INANIMATE)),
    **dict.fromkeys(("they", "them", "their", "theirs", "themselves"),
                    (PLURAL, UNKNOWN, UNKNOWN)),
}
REFLEXIVE_PRONOUNS = frozenset({"himself", "herself", "itself", "themselves"})

NOUN_UPOS = frozenset({"NOUN", "PROPN"})
# Dependencies of a noun that is part of a bigger name or a bare adverbial, not a mention.
NAME_PART_DEPS = frozenset({"compound", "flat", "flat:name", "flat:foreign", "fixed",
                            "goeswith", "nn", "npadvmod", "obl:tmod", "obl:npmod", "nummod",
                            "tmod"})
# Words that make a noun phrase indefinite: it introduces an entity, so it does not look back
# for an antecedent in the head-match sieves.
INDEFINITE_DETERMINERS = frozenset({"a", "an", "another", "some", "any", "other", "several",
                                    "many", "few", "no", "each", "every", "such"})
# Content words whose lemmas are a mention's modifiers (word inclusion, compatible modifiers).
MODIFIER_UPOS = frozenset({"ADJ", "NOUN", "PROPN", "NUM"})
_CLAUSAL_DEPS = frozenset({"ccomp", "xcomp", "csubj", "csubjpass", "csubj:pass"})
_PLEONASTIC_VERBS = frozenset({"be", "seem", "appear", "happen", "become", "remain"})

# People by role, rank, occupation or relation: the animate nouns of news on political violence.
PERSON_NOUNS = frozenset("""
person people man woman child children boy girl baby youth adult individual
soldier guerrilla rebel terrorist insurgent subversive militant combatant fighter sniper
member leader commander chief head officer policeman agent guard bodyguard patrolman
marine troop trooper paratrooper commando ranger gunman assassin murderer killer kidnapper
abductor captor attacker assailant perpetrator criminal delinquent bandit trafficker
drug_trafficker narcoterrorist extraditable hitman mercenary spy informant informer
priest jesuit nun bishop archbishop cardinal cleric pastor missionary monk pope reverend father
president minister mayor governor judge magistrate lawyer attorney prosecutor ambassador
diplomat consul envoy emissary official spokesman spokeswoman spokesperson representative
deputy legislator senator congressman congresswoman councilman councilor alderman politician
candidate secretary director manager administrator employee worker staffer businessman
industrialist banker executive owner landowner farmer peasant rancher driver pilot passenger
journalist reporter correspondent newsman photographer editor student teacher professor
doctor physician nurse witness victim hostage prisoner captive detainee suspect inmate
civilian citizen resident inhabitant villager refugee relative friend neighbor
colonel general captain lieutenant sergeant corporal private major admiral commandant
unionist activist negotiator mediator volunteer housekeeper servant king queen prince
son daughter mother wife husband brother sister uncle aunt nephew niece cousin widow
grandfather grandmother gentleman lady mr mrs ms miss senor senora
""".split())
MALE_NOUNS = frozenset("""
man boy father son brother husband uncle nephew grandfather gentleman king prince priest
monk bishop archbishop cardinal pope mr senor spokesman congressman councilman policeman
businessman gunman patrolman newsman hitman don sr
""".split())
FEMALE_NOUNS = frozenset("""
woman girl mother daughter sister wife aunt niece grandmother lady queen nun mrs ms miss
senora widow spokeswoman congresswoman dona sra
""".split())
# Honorifics say who a name is (gender, person) but are no modifier: "Mr. Teneda" is
# "Edwin Rodrigo Teneda Parreno".
HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "dr", "gen", "col", "lt", "sgt", "capt",
                        "msgr", "rev", "senor", "senora", "don", "dona", "sr", "sra"})
# NER labels (spaCy/OntoNotes, CoNLL, MUC) of people and of things.
ANIMATE_NER = frozenset({"PERSON", "PER", "PERS"})
INANIMATE_NER = frozenset({"ORG", "ORGANIZATION", "GPE", "LOC", "LOCATION", "FAC", "FACILITY",
                           "PRODUCT", "EVENT", "DATE", "TIME", "MONEY", "PERCENT", "QUANTITY",
                           "CARDINAL", "ORDINAL", "LAW", "WORK_OF_ART", "LANGUAGE", "NORP"})
# Function words left out of an acronym's expansion ("Frente Farabundo Marti para la
# Liberacion Nacional"): English and Spanish, the languages of the MUC-4 names.
NAME_FUNCTION_WORDS = frozenset({"of", "the", "for", "and", "in", "de", "del", "la", "las",
                                 "el", "los", "y", "para", "por", "a"})


@dataclass(frozen=True, slots=True)
class Mention:
    """One mention of a parsed document.

    Attributes
    ----------
    sent_id, head_index : int
        Sentence and head token (0-based); ``key`` is the pair.
    start, end : int
        Token span ``[start, end)`` of the noun phrase within the sentence (the pronoun alone
        for a pronoun).
    text : str
        The span's text as in the document, leading articles and demonstratives removed.
    head, head_lemma : str
        The head token's text, and its lemma lowercased.
    kind : str
        ``"proper"``, ``"nominal"`` or ``"pronoun"``.
    number, gender, animacy : str
        ``singular``/``plural``, ``male``/``female``/``neuter``, ``animate``/``inanimate``, each
        or ``unknown``.
    modifiers : tuple of str
        Lowercased lemmas of the content words of the span other than the head, in order.
    name_words : tuple of str
        The span's capitalised content words (function words left out), as in the text: what an
        acronym is built from.
    name_parts : tuple of str
        For a proper noun, the lowercased proper nouns right before the head, after any title
        (``jose`` in ``Mayor Jose Garcia``): the other parts of a person's name.
    indefinite : bool
        The phrase has an indefinite determiner (``a``, ``another``, ``some`` ...).
    arguments : tuple of (str, str)
        ``(predicate, dep)`` for every verb the head is an argument of (entity rules R3-R11).
    is_entity : bool
        The head is returned by ``extract_entities``.
    role_of : int
        For a role noun (M3), the head index of the name it is the title of; else -1.
    governor : int
        The head token's syntactic head (-1 for the root).
    dep : str
        The head token's own dependency label, as the parser gives it.
    depth : int
        Distance of the head from the sentence root (the root has depth 0).
    """

    sent_id: int
    head_index: int
    start: int
    end: int
    text: str
    head: str
    head_lemma: str
    kind: str
    number: str
    gender: str
    animacy: str
    modifiers: tuple[str, ...]
    name_words: tuple[str, ...]
    name_parts: tuple[str, ...]
    indefinite: bool
    arguments: tuple[tuple[str, str], ...]
    is_entity: bool
    role_of: int
    governor: int
    dep: str
    depth: int

    @property
    def key(self) -> MentionKey:
        """``(sent_id, head_index)``."""
        return (self.sent_id, self.head_index)

    @property
    def is_pronoun(self) -> bool:
        return self.kind == PRONOUN

    def to_entity_records(self, doc_id: str) -> list[EntityRecord]:
        """One :class:`EntityRecord` per verb the mention is an argument of (none otherwise)."""
        return [EntityRecord(doc_id=doc_id, sent_id=self.sent_id, head_index=self.head_index,
                             head=self.head, head_lemma=self.head_lemma, mention=self.text,
                             predicate=predicate, dep=dep, ner="")
                for predicate, dep in self.arguments]


def _children(tokens: Sequence[Token]) -> list[list[int]]:
    kids: list[list[int]] = [[] for _ in tokens]
    for i, tok in enumerate(tokens):
        if 0 <= tok.head < len(tokens) and tok.head != i:
            kids[tok.head].append(i)
    return kids


def _depths(tokens: Sequence[Token]) -> list[int]:
    n = len(tokens)
    depths: list[int | None] = [None] * n
    for i in range(n):
        path = []
        j = i
        # Walk up until a token of known depth or the root; a malformed tree with a cycle
        # stops after n steps instead of hanging.
        while depths[j] is None and 0 <= tokens[j].head < n and tokens[j].head != j \
                and len(path) <= n:
            path.append(j)
            j = tokens[j].head
        base = depths[j]
        if base is None:
            base = depths[j] = 0
        for k in reversed(path):
            base += 1
            depths[k] = base
    return [d or 0 for d in depths]


def _span(tokens: Sequence[Token], kids: list[list[int]], head: int) -> tuple[int, int]:
    """``[start, end)`` of the noun phrase of ``head`` (same narrowing as the entity mention)."""
    inside = {head}
    stack = [c for c in kids[head] if tokens[c].dep not in MENTION_EXCLUDED]
    while stack:
        i = stack.pop()
        inside.add(i)
        stack += kids[i]
    lo = hi = head
    while lo - 1 in inside:
        lo -= 1
    while hi + 1 in inside:
        hi += 1
    while lo < head and (tokens[lo].text.lower() in LEADING_DETERMINERS
                         or tokens[lo].upos == "PUNCT"):
        lo += 1
    while hi > head and tokens[hi].upos == "PUNCT":
        hi -= 1
    return lo, hi + 1


def _text(tokens: Sequence[Token], start: int, end: int) -> str:
    parts = []
    for i in range(start, end):
        parts.append(tokens[i].text)
        if i < end - 1 and tokens[i].whitespace_after:
            parts.append(" ")
    return "".join(parts)


def _lemma(tok: Token) -> str:
    return (tok.lemma or tok.text).lower()


def is_person_noun(lemma: str) -> bool:
    """True for a lemma of the person list, or a word of a person-forming suffix.

    ``-man``/``-men``/``-woman`` (spokesman, gunmen) and, for words of six letters or more,
    ``-ist`` and ``-ian`` (journalist, civilian) name people.
    """
    if lemma in PERSON_NOUNS:
        return True
    if lemma.endswith(("man", "men")) and len(lemma) > 4:
        return True
    return len(lemma) >= 6 and lemma.endswith(("ist", "ian"))


def _noun_features(tokens: Sequence[Token], head: int, start: int) -> tuple[str, str, str]:
    tok = tokens[head]
    lemma = _lemma(tok)
    if tok.tag in ("NNS",):
        number = PLURAL
    elif tok.tag == "NNPS" and tok.text.lower().endswith("s"):
        number = PLURAL
    elif tok.tag in ("NN", "NNP"):
        number = SINGULAR
    else:
        number = UNKNOWN
    ner = tok.ent_type.upper()
    if ner in ANIMATE_NER:
        animacy = ANIMATE
    elif ner in INANIMATE_NER:
        animacy = INANIMATE
    elif is_person_noun(lemma):
        animacy = ANIMATE
    elif tok.upos == "PROPN":
        animacy = UNKNOWN  # a name may be a person or an organisation
    else:
        animacy = INANIMATE
    # A title inside the phrase (Mr. Garcia, the widow Garcia) gives a name its gender.
    titles = {_lemma(tokens[j]).rstrip(".") for j in range(start, head)}
    if _gendered(lemma, MALE_NOUNS, ("man", "men")) or (
            tok.upos == "PROPN" and titles & MALE_NOUNS):
        gender = MALE
    elif _gendered(lemma, FEMALE_NOUNS, ("woman", "women")) or (
            tok.upos == "PROPN" and titles & FEMALE_NOUNS):
        gender = FEMALE
    elif animacy == INANIMATE:
        gender = NEUTER
    else:
        gender = UNKNOWN
    return number, gender, animacy


def _gendered(lemma: str, words: frozenset[str], suffixes: tuple[str, str]) -> bool:
    if lemma in words:
        return True
    # "gunman", "spokeswoman"; six letters at least so that "human" is not male. "policewoman"
    # ends in "man" as well, hence the check that the form matches the suffixes asked for.
    if len(lemma) < 6 or not lemma.endswith(suffixes):
        return False
    female_form = lemma.endswith(("woman", "women"))
    return female_form == (suffixes[0] == "woman")


def _is_mention_head(tokens: Sequence[Token], i: int) -> bool:
    tok = tokens[i]
    if tok.upos not in NOUN_UPOS or tok.dep in NAME_PART_DEPS:
        return False
    # ClearNLP "nmod" before its head is a name part (FARABUNDO in FARABUNDO MARTI); UD "nmod"
    # follows its head with a preposition and is a phrase of its own.
    return not (tok.dep == "nmod" and tok.head > i)


def _is_pleonastic(tokens: Sequence[Token], kids: list[list[int]], i: int) -> bool:
    tok = tokens[i]
    if tok.dep == "expl":
        return True
    if tok.text.lower() != "it" or not 0 <= tok.head < len(tokens):
        return False
    gov = tok.head
    clausal = [c for c in kids[gov] if tokens[c].dep in _CLAUSAL_DEPS and c > i]
    if not clausal:
        return False
    passive = any(tokens[c].dep in ("auxpass", "aux:pass") for c in kids[gov])
    return passive or _lemma(tokens[gov]) in _PLEONASTIC_VERBS


def _is_indefinite(tokens: Sequence[Token], kids: list[list[int]], head: int) -> bool:
    return any(tokens[c].dep in ("det", "predet") and tokens[c].text.lower()
               in INDEFINITE_DETERMINERS for c in kids[head])


def _role_span(tokens: Sequence[Token], start: int, head: int) -> tuple[int, int] | None:
    """Title words in front of a name (M3), as ``[start, end)``, or None.

    The title ends at the last person noun before the head that only proper nouns follow
    (``Medellin Mayor | Juan Gomez Martinez``); what precedes it in the phrase belongs to the
    title (``Medellin``, ``former``).
    """
    if tokens[head].upos != "PROPN":
        return None
    r = head - 1
    while r >= start and tokens[r].upos == "PROPN" and not is_person_noun(_lemma(tokens[r])):
        r -= 1
    if r < start or not is_person_noun(_lemma(tokens[r])) or tokens[r].dep not in NAME_PART_DEPS:
        return None
    return start, r + 1


def _name_words(tokens: Sequence[Token], start: int, end: int) -> tuple[str, ...]:
    return tuple(t.text for t in tokens[start:end]
                 if t.text[:1].isupper() and t.text.isalpha()
                 and t.text.lower() not in NAME_FUNCTION_WORDS
                 and t.upos not in ("DET", "ADP", "CCONJ", "PART", "PRON", "PUNCT"))


def _name_parts(tokens: Sequence[Token], start: int, head: int) -> tuple[str, ...]:
    if tokens[head].upos != "PROPN":
        return ()
    j = head - 1
    while (j >= start and tokens[j].upos == "PROPN" and tokens[j].dep in NAME_PART_DEPS
           and not is_person_noun(_lemma(tokens[j]))):
        j -= 1
    return tuple(_lemma(tokens[k]) for k in range(j + 1, head))


def _pronoun_arguments(sentence: Sentence, doc_id: str, sent_id: int,
                       pronouns: Sequence[int]) -> dict[int, list[tuple[str, str]]]:
    """(predicate, dep) of each pronoun, by the entity rules run with the pronoun as a noun.

    The rules leave pronouns out (R1); relabelling them NOUN reuses every argument rule
    (passives, conjoined verbs, control) instead of copying them.
    """
    if not pronouns:
        return {}
    wanted = set(pronouns)
    relabelled = tuple(replace(t, upos="NOUN") if i in wanted else t
                       for i, t in enumerate(sentence.tokens))
    out: dict[int, list[tuple[str, str]]] = {}
    for rec in extract_sentence_entities(Sentence(relabelled), doc_id, sent_id):
        if rec.head_index in wanted:
            out.setdefault(rec.head_index, []).append((rec.predicate, rec.dep))
    return out


def detect_mentions(parsed: ParsedDocument,
                    entities: Sequence[EntityRecord] | None = None) -> list[Mention]:
    """The mentions of a parsed document (M1-M4 in the module docstring).

    Parameters
    ----------
    parsed
        A document in the neutral parse format (ClearNLP or UD labels).
    entities
        Its entity records, when the caller has them already; by default
        ``extract_entities(parsed)``.

    Returns
    -------
    list of Mention
        In document order (sentence, then head index); one per key.
    """
    if entities is None:
        entities = extract_entities(parsed)
    entity_args: dict[MentionKey, list[tuple[str, str]]] = {}
    for rec in entities:
        entity_args.setdefault((rec.sent_id, rec.head_index), []).append((rec.predicate, rec.dep))
    mentions: list[Mention] = []
    for sent_id, sentence in enumerate(parsed.sentences):
        tokens = sentence.tokens
        kids = _children(tokens)
        depths = _depths(tokens)
        pronouns = [i for i, t in enumerate(tokens)
                    if t.upos == "PRON" and t.text.lower() in PRONOUN_FEATURES
                    and not _is_pleonastic(tokens, kids, i)]
        pronoun_set = set(pronouns)
        pron_args = _pronoun_arguments(sentence, parsed.doc_id, sent_id, pronouns)
        found: dict[int, Mention] = {}
        for i, tok in enumerate(tokens):
            key = (sent_id, i)
            if i in pronoun_set:
                number, gender, animacy = PRONOUN_FEATURES[tok.text.lower()]
                found[i] = Mention(
                    sent_id=sent_id, head_index=i, start=i, end=i + 1, text=tok.text,
                    head=tok.text, head_lemma=tok.text.lower(), kind=PRONOUN, number=number,
                    gender=gender, animacy=animacy, modifiers=(), name_words=(),
                    name_parts=(), indefinite=False, arguments=tuple(pron_args.get(i, ())),
                    is_entity=False, role_of=-1, governor=tok.head, dep=tok.dep, depth=depths[i])
                continue
            if key not in entity_args and not _is_mention_head(tokens, i):
                continue
            start, end = _span(tokens, kids, i)
            found[i] = _noun_mention(tokens, kids, sent_id, i, start, end, depths,
                                     tuple(entity_args.get(key, ())), key in entity_args, -1)
            role = _role_span(tokens, start, i)
            if role is not None and role[1] - 1 not in found:
                r_head = role[1] - 1
                found[r_head] = _noun_mention(tokens, kids, sent_id, r_head, role[0], role[1],
                                              depths, (), False, i)
        mentions += [found[i] for i in sorted(found)]
    return mentions


def _noun_mention(tokens: Sequence[Token], kids: list[list[int]], sent_id: int, head: int,
                  start: int, end: int, depths: list[int], arguments: tuple[tuple[str, str], ...],
                  is_entity: bool, role_of: int) -> Mention:
    tok = tokens[head]
    number, gender, animacy = _noun_features(tokens, head, start)
    if role_of >= 0:
        # A title names a person whatever the parser tagged it.
        animacy = ANIMATE
    modifiers = tuple(_lemma(tokens[j]) for j in range(start, end)
                      if j != head and tokens[j].upos in MODIFIER_UPOS
                      and _lemma(tokens[j]).rstrip(".") not in HONORIFICS)
    return Mention(
        sent_id=sent_id, head_index=head, start=start, end=end, text=_text(tokens, start, end),
        head=tok.text, head_lemma=_lemma(tok),
        kind=PROPER if tok.upos == "PROPN" and role_of < 0 else NOMINAL,
        number=number, gender=gender, animacy=animacy, modifiers=modifiers,
        name_words=_name_words(tokens, start, end),
        name_parts=_name_parts(tokens, start, head) if role_of < 0 else (),
        indefinite=_is_indefinite(tokens, kids, head), arguments=arguments,
        is_entity=is_entity, role_of=role_of, governor=tok.head, dep=tok.dep,
        depth=depths[head])
