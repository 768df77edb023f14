"""Coreference chains: a deterministic multi-pass sieve over one parsed document.

The design follows the Stanford deterministic coreference system (Lee et al. 2013,
"Deterministic coreference resolution based on entity-centric, precision-ranked rules"): the
mentions of :func:`~aesi_lib.entities.mentions.detect_mentions` start as singleton clusters and a
sequence of sieves, most precise first, merges clusters. A later sieve sees the clusters built by
the earlier ones (entity-centric), so ``the mayor`` can reach ``Garcia`` through an apposition
found before. Everything is decided from the parse; the result is a function of the document.

Sieves (in order; each can be switched off with :class:`ChainOptions`)
----------------------------------------------------------------------
S1 ``exact_match``
    Two noun phrases with the same text (lowercased; leading articles, demonstratives,
    punctuation and a possessive ``'s`` left out) corefer, unless the later one is indefinite.
S2 ``appositive``
    A noun phrase attached by ``appos`` to another corefers with it
    (``Garcia, the mayor of San Pedro``; ``the Front (FMLN)``), except in a list (either phrase
    has a ``conj`` or ``cc`` child: ``Gacha, his son, and the people``), for two proper names
    side by side unless the second is in parentheses (``Villalobos, Handal``), and when number
    (common nouns) or animacy clash.
S3 ``predicate_nominative``
    The subject and the predicate noun of an unnegated copula corefer (``Garcia is the mayor``):
    ``nsubj`` and ``attr`` of ``be`` (ClearNLP), ``nsubj`` of a noun with a ``cop`` child (UD).
    An indefinite predicate classifies rather than identifies (``the attack was a mistake``) and
    is left out; number and animacy must not clash.
S4 ``role_appositive``
    A title in front of a name corefers with the name (``Mayor Jose Garcia``; the title is a
    mention of its own, see M3 in :mod:`~aesi_lib.entities.mentions`).
S5 ``acronym`` (the tests of :mod:`aesi_lib.entities.acronyms`)
    A one-word, all upper-case mention of 3-8 letters whose lemma is not all lower case (the
    truecaser lowercases words it knows as common words: ``PLACE``) corefers with a phrase
    that does not contain it and whose capitalised content words have these initials. Names
    in MUC-4 are often Spanish acronyms of English translations, so the letters are compared
    as a multiset (``FPMR`` = Manuel Rodriguez Patriotic Front), and the phrase may have one
    word more than the acronym has letters (``FMLN`` = Farabundo Marti National Liberation
    Front, where the Spanish acronym leaves out ``Frente``). In all-caps text every content
    word counts as capitalised: the truecaser lowercases ``National Liberation Front``.
S6 ``strict_head``
    A definite noun phrase that is the first mention of its cluster corefers with the nearest
    earlier mention with the same head lemma when (a) every content word of its cluster occurs
    in the antecedent's cluster (word inclusion), (b) its own modifiers are among the
    antecedent mention's modifiers (compatible modifiers), (c) neither phrase contains the
    other (i-within-i) and (d) the numbers of two common nouns agree.
S7 ``relaxed_head``
    As S6 without word inclusion, with the modifiers checked against all the words of the
    antecedent's cluster, and for a proper noun also when its head is another part of an
    earlier person's name (``Garcia`` -> ``Attorney General Roberto Garcia Alvarado``; a person
    is a cluster with an animate mention, or a name of three proper nouns or more, so that
    ``Medellin`` does not reach ``the Medellin cartel boss``). Modifiers still have to be
    compatible, so ``the second bomb`` does not reach ``the first bomb``.
S8 ``pronouns``
    A third-person pronoun corefers with the first earlier mention, within ``pronoun_window``
    sentences, whose whole cluster agrees with it in number, gender and animacy (unknown values
    agree with anything). The same sentence is searched first, then the previous ones from the
    nearest; within a sentence mentions closer to the root come first, then left to right (a
    breadth-first walk of the tree favours subjects, as in the Stanford system). A pronoun
    never takes a co-argument of its own verb (``they killed them``) unless it is reflexive.

Anaphors in S6 and S7 are only the first mention of their cluster and not indefinite (``a``,
``another``, ``some`` ...): an indefinite noun phrase introduces an entity rather than refers
back, and a later mention of a cluster is represented by its first one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields

from aesi_lib.entities.acronyms import acronym_matches, is_acronym_candidate
from aesi_lib.entities.mentions import (
    ANIMATE,
    INANIMATE,
    NOMINAL,
    PRONOUN,
    PROPER,
    REFLEXIVE_PRONOUNS,
    UNKNOWN,
    Mention,
    MentionKey,
    detect_mentions,
)
from aesi_lib.entities.rules import EntityRecord
from aesi_lib.parse.types import ParsedDocument

SIEVES: tuple[str, ...] = ("exact_match", "appositive", "predicate_nominative",
                           "role_appositive", "acronym", "strict_head", "relaxed_head",
                           "pronouns")
DEFAULT_PRONOUN_WINDOW = 3

_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "nsubj:pass", "csubj"})
_CORE_DEPS = _SUBJECT_DEPS | frozenset({"dobj", "obj", "iobj", "dative"})
_APPOS = frozenset({"appos"})
_ATTR = frozenset({"attr"})
_NEGATION = frozenset({"neg"})
_LIST_DEPS = frozenset({"conj", "cc"})
_POSSESSIVE_TAG = "POS"


@dataclass(frozen=True)
class ChainOptions:
    """Which sieves run (S1-S8 in the module docstring) and how far pronouns look back.

    ``pronoun_window`` is the number of sentences before the pronoun's own that are searched
    (0: its sentence only).
    """

    exact_match: bool = True
    appositive: bool = True
    predicate_nominative: bool = True
    role_appositive: bool = True
    acronym: bool = True
    strict_head: bool = True
    relaxed_head: bool = True
    pronouns: bool = True
    pronoun_window: int = DEFAULT_PRONOUN_WINDOW

    def __post_init__(self) -> None:
        if self.pronoun_window < 0:
            raise ValueError(f"pronoun_window must be >= 0, got {self.pronoun_window}")

    @classmethod
    def only(cls, sieves: Iterable[str], pronoun_window: int = DEFAULT_PRONOUN_WINDOW
             ) -> ChainOptions:
        """Options with exactly the named sieves on (names from :data:`SIEVES`)."""
        wanted = set(sieves)
        unknown = wanted - set(SIEVES)
        if unknown:
            raise ValueError(f"unknown sieve(s) {sorted(unknown)}; expected some of {SIEVES}")
        return cls(**{name: name in wanted for name in SIEVES}, pronoun_window=pronoun_window)

    @property
    def enabled(self) -> tuple[str, ...]:
        """The names of the sieves that run, in order."""
        return tuple(f.name for f in fields(self) if f.name in SIEVES and getattr(self, f.name))


@dataclass(frozen=True)
class Link:
    """One merge: ``anaphor`` was linked to ``antecedent`` by ``sieve``."""

    anaphor: MentionKey
    antecedent: MentionKey
    sieve: str


@dataclass(frozen=True)
class CoreferenceResult:
    """Mentions and chains of one document.

    Attributes
    ----------
    doc_id : str
    mentions : tuple of Mention
        In document order.
    chains : dict
        ``(sent_id, head_index) -> chain id``, for every mention (singletons included); ids are
        0..n-1 in the order of each chain's first mention.
    links : tuple of Link
        The merges in the order the sieves made them.
    """

    doc_id: str
    mentions: tuple[Mention, ...]
    chains: dict[MentionKey, int]
    links: tuple[Link, ...]

    @property
    def n_chains(self) -> int:
        return len(set(self.chains.values()))

    def members(self) -> list[list[Mention]]:
        """Mentions of each chain, indexed by chain id, each in document order."""
        out: list[list[Mention]] = [[] for _ in range(self.n_chains)]
        for m in self.mentions:
            out[self.chains[m.key]].append(m)
        return out

    def representative(self, chain_id: int) -> Mention:
        """The chain's first proper-noun mention, else its first common noun, else its first."""
        members = self.members()[chain_id]
        for kind in (PROPER, NOMINAL):
            for m in members:
                if m.kind == kind:
                    return m
        return members[0]

    def linked_pronouns(self) -> list[Mention]:
        """Pronouns whose chain holds a noun phrase (the ones an entity can be read from)."""
        with_noun = {self.chains[m.key] for m in self.mentions if m.kind != PRONOUN}
        return [m for m in self.mentions
                if m.kind == PRONOUN and self.chains[m.key] in with_noun]

    def pronoun_entities(self) -> list[EntityRecord]:
        """Entity records of the linked pronouns that are verb arguments (one per verb)."""
        return [r for m in self.linked_pronouns() for r in m.to_entity_records(self.doc_id)]


class _Clusters:
    """Union-find over mention indices with each cluster's members and words."""

    def __init__(self, mentions: Sequence[Mention]) -> None:
        self.mentions = mentions
        self.parent = list(range(len(mentions)))
        self.members: dict[int, list[int]] = {i: [i] for i in range(len(mentions))}
        self.words: dict[int, set[str]] = {
            i: set() if m.kind == PRONOUN else {m.head_lemma, *m.modifiers}
            for i, m in enumerate(mentions)}
        self.links: list[Link] = []

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def same(self, i: int, j: int) -> bool:
        return self.find(i) == self.find(j)

    def is_first(self, i: int) -> bool:
        return self.members[self.find(i)][0] == i

    def cluster(self, i: int) -> list[Mention]:
        return [self.mentions[j] for j in self.members[self.find(i)]]

    def merge(self, anaphor: int, antecedent: int, sieve: str) -> None:
        a, b = self.find(anaphor), self.find(antecedent)
        if a == b:
            return
        # The smaller root stays, so member lists stay in document order after a sort.
        keep, drop = min(a, b), max(a, b)
        self.parent[drop] = keep
        self.members[keep] = sorted(self.members[keep] + self.members.pop(drop))
        self.words[keep] |= self.words.pop(drop)
        self.links.append(Link(self.mentions[anaphor].key, self.mentions[antecedent].key, sieve))


def _nested(a: Mention, b: Mention) -> bool:
    """i-within-i: one phrase contains the other's head."""
    return a.sent_id == b.sent_id and (a.start <= b.head_index < a.end
                                       or b.start <= a.head_index < b.end)


def _agree(x: str, y: str) -> bool:
    return x == UNKNOWN or y == UNKNOWN or x == y


def _exact_key(parsed: ParsedDocument, m: Mention) -> str:
    tokens = parsed.sentences[m.sent_id].tokens[m.start:m.end]
    return " ".join(t.text.lower() for t in tokens
                    if t.tag != _POSSESSIVE_TAG and t.upos != "PUNCT")


def _exact_match(parsed: ParsedDocument, c: _Clusters) -> None:
    first: dict[str, int] = {}
    for i, m in enumerate(c.mentions):
        if m.kind == PRONOUN:
            continue
        key = _exact_key(parsed, m)
        if key in first and not m.indefinite:
            c.merge(i, first[key], "exact_match")
        first.setdefault(key, i)


def _compatible(a: Mention, b: Mention) -> bool:
    """No clash of number (common nouns) or animacy between two noun phrases."""
    clash = {a.animacy, b.animacy} == {ANIMATE, INANIMATE}
    return _number_ok(a, b) and not clash


def _appositive(parsed: ParsedDocument, c: _Clusters, index: dict[MentionKey, int]) -> None:
    for i, m in enumerate(c.mentions):
        gov = index.get((m.sent_id, m.governor))
        if m.dep not in _APPOS or m.kind == PRONOUN or gov is None:
            continue
        g = c.mentions[gov]
        tokens = parsed.sentences[m.sent_id].tokens
        # A list ("the bank, the school and the church") is often parsed as appositions; a
        # conjunction below either phrase gives it away.
        listed = any(t.head in (m.head_index, g.head_index) and t.dep in _LIST_DEPS
                     for t in tokens)
        # Two names side by side are a list too ("Handal, Sanchez Ceren"), unless the second
        # is in parentheses ("the Front (FMLN)").
        bracketed = m.start > 0 and tokens[m.start - 1].text == "("
        names = m.kind == PROPER and g.kind == PROPER
        if (g.kind != PRONOUN and not listed and (bracketed or not names)
                and _compatible(m, g)):
            c.merge(i, gov, "appositive")


def _predicate_nominative(parsed: ParsedDocument, c: _Clusters,
                          index: dict[MentionKey, int]) -> None:
    for sent_id, sentence in enumerate(parsed.sentences):
        tokens = sentence.tokens
        kids: dict[int, list[int]] = {}
        for j, tok in enumerate(tokens):
            kids.setdefault(tok.head, []).append(j)
        for verb in range(len(tokens)):
            children = kids.get(verb, [])
            deps = {tokens[k].dep for k in children}
            if deps & _NEGATION:
                continue
            if (tokens[verb].lemma or "").lower() == "be":  # ClearNLP: be + nsubj + attr
                subjects = [k for k in children if tokens[k].dep == "nsubj"]
                predicates = [k for k in children if tokens[k].dep in _ATTR]
            elif "cop" in deps:  # UD: the predicate noun heads the clause
                subjects = [k for k in children if tokens[k].dep == "nsubj"]
                predicates = [verb]
            else:
                continue
            for s in subjects:
                for p in predicates:
                    a, b = index.get((sent_id, s)), index.get((sent_id, p))
                    if a is None or b is None:
                        continue
                    subj, pred = c.mentions[a], c.mentions[b]
                    # "the attack was a mistake" classifies; only a definite predicate names
                    # the same entity ("Garcia is the mayor").
                    if (PRONOUN not in (subj.kind, pred.kind) and not pred.indefinite
                            and _compatible(subj, pred)):
                        c.merge(b, a, "predicate_nominative")


def _role_appositive(parsed: ParsedDocument, c: _Clusters,
                     index: dict[MentionKey, int]) -> None:
    for i, m in enumerate(c.mentions):
        name = index.get((m.sent_id, m.role_of)) if m.role_of >= 0 else None
        if name is not None:
            c.merge(name, i, "role_appositive")


def _acronym(parsed: ParsedDocument, c: _Clusters) -> None:
    # Names indexed by their sorted initials, and by those initials less one letter, so that
    # each acronym is two dictionary look-ups; acronym_matches then confirms each candidate.
    exact: dict[str, list[int]] = {}
    less_one: dict[str, set[int]] = {}
    for j, n in enumerate(c.mentions):
        if n.kind == PRONOUN or len(n.name_words) < 2:
            continue
        initials = "".join(sorted(w[0].upper() for w in n.name_words))
        exact.setdefault(initials, []).append(j)
        for k in range(len(initials)):
            less_one.setdefault(initials[:k] + initials[k + 1:], set()).add(j)
    for i, m in enumerate(c.mentions):
        lemma = parsed.sentences[m.sent_id].tokens[m.head_index].lemma
        if m.kind == PRONOUN or not is_acronym_candidate(m.head, m.end - m.start, lemma):
            continue
        letters = "".join(sorted(m.head.upper()))
        found = set(exact.get(letters, ())) | less_one.get(letters, set())
        for j in sorted(found):
            n = c.mentions[j]
            if j != i and not _nested(m, n) and acronym_matches(m.head, n.name_words):
                c.merge(max(i, j), min(i, j), "acronym")


def _search_order(anaphor: Mention, candidates: Iterable[int], mentions: Sequence[Mention]
                  ) -> list[int]:
    """Earlier mentions: the anaphor's sentence first, then the previous ones from the nearest;
    left to right within a sentence."""
    before = [j for j in candidates
              if (mentions[j].sent_id, mentions[j].head_index)
              < (anaphor.sent_id, anaphor.head_index)]
    return sorted(before, key=lambda j: (anaphor.sent_id - mentions[j].sent_id,
                                          mentions[j].head_index))


def _head_sieve(c: _Clusters, name: str,
                candidates_of: Callable[[Mention], Iterable[int]],
                accept: Callable[[int, int], bool]) -> None:
    for i, m in enumerate(c.mentions):
        if m.kind == PRONOUN or m.indefinite or not c.is_first(i):
            continue
        for j in _search_order(m, candidates_of(m), c.mentions):
            if not c.same(i, j) and not _nested(m, c.mentions[j]) and accept(i, j):
                c.merge(i, j, name)
                break


def _number_ok(a: Mention, b: Mention) -> bool:
    # Proper nouns are left out: the tagger's number of a name is unreliable (FMLN is NNPS).
    return a.kind == PROPER or b.kind == PROPER or _agree(a.number, b.number)


def _strict_head(c: _Clusters, by_head: dict[str, list[int]]) -> None:
    def accept(i: int, j: int) -> bool:
        m, a = c.mentions[i], c.mentions[j]
        return (c.words[c.find(i)] <= c.words[c.find(j)]
                and set(m.modifiers) <= set(a.modifiers) and _number_ok(m, a))

    _head_sieve(c, "strict_head", lambda m: by_head.get(m.head_lemma, ()), accept)


def _relaxed_head(c: _Clusters, by_head: dict[str, list[int]],
                  by_name_part: dict[str, list[int]]) -> None:
    def candidates(m: Mention) -> list[int]:
        found = list(by_head.get(m.head_lemma, ()))
        if m.kind == PROPER:
            # Only people are referred to by a part of their name ("Garcia" for "Jose Garcia
            # Alvarado"); "Medellin" is not "the Medellin cartel". A person is a cluster with
            # an animate mention, or a name of three proper nouns or more.
            found += [j for j in by_name_part.get(m.head_lemma, ())
                      if len(c.mentions[j].name_parts) >= 2
                      or any(x.animacy == ANIMATE for x in c.cluster(j))]
        return found

    def accept(i: int, j: int) -> bool:
        m, a = c.mentions[i], c.mentions[j]
        return set(m.modifiers) <= c.words[c.find(j)] and _number_ok(m, a)

    _head_sieve(c, "relaxed_head", candidates, accept)


def _pronoun_order(p: Mention, mentions: Sequence[Mention], window: int) -> list[int]:
    out = [j for j, m in enumerate(mentions)
           if p.sent_id - window <= m.sent_id <= p.sent_id
           and (m.sent_id < p.sent_id or m.head_index < p.head_index)]
    return sorted(out, key=lambda j: (p.sent_id - mentions[j].sent_id, mentions[j].depth,
                                      mentions[j].head_index))


def _pronoun_agrees(p: Mention, cluster: Sequence[Mention]) -> bool:
    return all(_agree(p.number, m.number) and _agree(p.gender, m.gender)
               and _agree(p.animacy, m.animacy) for m in cluster)


def _pronouns(c: _Clusters, window: int) -> None:
    for i, p in enumerate(c.mentions):
        if p.kind != PRONOUN or not c.is_first(i):
            continue
        reflexive = p.head_lemma in REFLEXIVE_PRONOUNS
        for j in _pronoun_order(p, c.mentions, window):
            a = c.mentions[j]
            if c.same(i, j) or _nested(p, a):
                continue
            if (not reflexive and a.sent_id == p.sent_id and a.governor == p.governor
                    and a.dep in _CORE_DEPS and p.dep in _CORE_DEPS):
                continue  # binding: "they killed them" are two groups
            if _pronoun_agrees(p, c.cluster(j)):
                c.merge(i, j, "pronouns")
                break


def resolve_coreference(parsed: ParsedDocument, options: ChainOptions | None = None,
                        entities: Sequence[EntityRecord] | None = None) -> CoreferenceResult:
    """Mentions, chains and links of one document (sieves S1-S8 of the module docstring).

    Parameters
    ----------
    parsed
        A document in the neutral parse format.
    options
        Which sieves run and the pronoun window; all sieves and a window of
        :data:`DEFAULT_PRONOUN_WINDOW` sentences by default.
    entities
        The document's entity records when the caller has them (saves extracting them again).

    Returns
    -------
    CoreferenceResult
        Every mention with its chain id; linked pronouns via
        :meth:`CoreferenceResult.linked_pronouns`.
    """
    options = options or ChainOptions()
    mentions = detect_mentions(parsed, entities)
    c = _Clusters(mentions)
    index = {m.key: i for i, m in enumerate(mentions)}
    by_head: dict[str, list[int]] = {}
    by_name_part: dict[str, list[int]] = {}
    for i, m in enumerate(mentions):
        if m.kind == PRONOUN:
            continue
        by_head.setdefault(m.head_lemma, []).append(i)
        for w in m.name_parts:
            by_name_part.setdefault(w, []).append(i)

    if options.exact_match:
        _exact_match(parsed, c)
    if options.appositive:
        _appositive(parsed, c, index)
    if options.predicate_nominative:
        _predicate_nominative(parsed, c, index)
    if options.role_appositive:
        _role_appositive(parsed, c, index)
    if options.acronym:
        _acronym(parsed, c)
    if options.strict_head:
        _strict_head(c, by_head)
    if options.relaxed_head:
        _relaxed_head(c, by_head, by_name_part)
    if options.pronouns:
        _pronouns(c, options.pronoun_window)

    chain_of_root: dict[int, int] = {}
    chains: dict[MentionKey, int] = {}
    for i, m in enumerate(mentions):
        chains[m.key] = chain_of_root.setdefault(c.find(i), len(chain_of_root))
    return CoreferenceResult(doc_id=parsed.doc_id, mentions=tuple(mentions), chains=chains,
                             links=tuple(c.links))


def coreference_chains(parsed: ParsedDocument, options: ChainOptions | None = None
                       ) -> dict[MentionKey, int]:
    """Chain id of every mention of one document.

    Parameters
    ----------
    parsed
        A document in the neutral parse format.
    options
        Which sieves run; see :class:`ChainOptions`.

    Returns
    -------
    dict
        ``(sent_id, head_index) -> chain id`` for every mention (entity heads, other noun
        phrases, role titles, third-person pronouns), singletons included; ids are 0..n-1 in
        the order of each chain's first mention. The same document always gives the same ids.
    """
    return resolve_coreference(parsed, options).chains
