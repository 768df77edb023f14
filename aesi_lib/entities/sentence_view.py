"""One sentence's dependency tree as the entity rules read it (:mod:`aesi_lib.entities.rules`
and :mod:`aesi_lib.entities.event_noun_rules`): the labels of both label sets the parsers
produce (ClearNLP/Stanford from spaCy, Universal Dependencies from Stanza), the entity
dependencies the rules emit, and :class:`SentenceView` with the few questions they ask of a
token (its children by label, conjuncts, voice, preposition text).
"""

from __future__ import annotations

from collections.abc import Sequence

from aesi_lib.parse.types import Sentence, Token

HEAD_UPOS = frozenset({"NOUN", "PROPN"})
PREDICATE_UPOS = frozenset({"VERB"})
# A verb attached as a preposition or marker is not a predicate ("ACCORDING to the police").
NON_PREDICATE_DEPS = frozenset({"prep", "case", "mark", "fixed", "agent", "dative", "mwe"})

SUBJECT = frozenset({"nsubj"})
PASSIVE_SUBJECT = frozenset({"nsubjpass", "nsubj:pass"})
OBJECT = frozenset({"dobj", "obj"})
INDIRECT_OBJECT = frozenset({"iobj"})
CLEAR_PREP = frozenset({"prep"})
CLEAR_AGENT = frozenset({"agent"})
CLEAR_DATIVE = frozenset({"dative"})
CLEAR_POBJ = frozenset({"pobj"})
CLEAR_PCOMP = frozenset({"pcomp"})
UD_OBLIQUE = frozenset({"obl", "nmod"})
UD_AGENT = frozenset({"obl:agent"})
UD_CASE = frozenset({"case"})
FIXED = frozenset({"fixed", "mwe"})
CONJ = frozenset({"conj"})
APPOSITION = frozenset({"appos"})
PARTICLE = frozenset({"prt", "compound:prt"})
RELATIVE_CLAUSE = frozenset({"relcl", "acl:relcl"})
PARTICIPLE_CLAUSE = frozenset({"acl"})
CONTROL = frozenset({"xcomp"})
# Any dependent whose presence means "this verb has its own subject".
ANY_SUBJECT = frozenset({"nsubj", "nsubjpass", "nsubj:pass", "csubj", "csubjpass", "csubj:pass",
                         "expl", "nsubj:outer"})
PASSIVE_MARKERS = frozenset({"auxpass", "aux:pass", "nsubjpass", "nsubj:pass", "csubjpass",
                             "csubj:pass"})
RELATIVE_PRONOUNS = frozenset({"who", "whom", "which", "that"})

DEP_SUBJECT = "nsubj"
DEP_OBJECT = "dobj"
DEP_INDIRECT = "iobj"
PREP_PREFIX = "prep_"


class SentenceView:
    """Children lists and a few questions about one sentence's tokens."""

    def __init__(self, sentence: Sentence) -> None:
        self.tokens: Sequence[Token] = sentence.tokens
        self.children: list[list[int]] = [[] for _ in self.tokens]
        for i, tok in enumerate(self.tokens):
            if 0 <= tok.head < len(self.tokens) and tok.head != i:
                self.children[tok.head].append(i)

    def kids(self, i: int, deps: frozenset[str]) -> list[int]:
        return [c for c in self.children[i] if self.tokens[c].dep in deps]

    def is_noun(self, i: int) -> bool:
        return self.tokens[i].upos in HEAD_UPOS

    def is_verb(self, i: int) -> bool:
        return self.tokens[i].upos in PREDICATE_UPOS

    def is_passive(self, i: int) -> bool:
        """A verb with a passive auxiliary/subject, or a past participle modifying a noun."""
        if self.kids(i, PASSIVE_MARKERS):
            return True
        tok = self.tokens[i]
        return tok.dep in PARTICIPLE_CLAUSE and tok.tag == "VBN"

    def conjuncts(self, i: int) -> list[int]:
        """``i`` and all tokens reachable from it by ``conj`` and ``appos`` edges (chains and
        fans): its conjuncts and appositions, and theirs (rule R7)."""
        out = [i]
        stack = [i]
        while stack:
            for c in self.kids(stack.pop(), CONJ | APPOSITION):
                out.append(c)
                stack.append(c)
        return out

    def is_relative_pronoun(self, i: int) -> bool:
        return self.tokens[i].text.lower() in RELATIVE_PRONOUNS

    def preposition(self, i: int) -> str:
        """Lowercased text of preposition token ``i`` with its ``fixed`` parts, joined by _.

        ClearNLP attaches the second word of ``because of`` as a childless ``pcomp`` ADP; it
        counts as a fixed part too.
        """
        parts = [*self.kids(i, FIXED)]
        parts += [c for c in self.kids(i, CLEAR_PCOMP)
                  if self.tokens[c].upos == "ADP" and not self.children[c]]
        parts = sorted([i, *parts])
        return "_".join(self.tokens[p].text.lower() for p in parts)


def oblique_preposition(view: SentenceView, oblique: int) -> str:
    """The preposition of a UD oblique or nominal modifier from its ``case`` children
    (``because of`` -> ``because_of``); empty when it has none."""
    return "_".join(view.preposition(k) for k in view.kids(oblique, UD_CASE))


def particles(view: SentenceView, verb: int) -> list[str]:
    """The verb's particles (``out`` of ``carried out``), lowercased, in sentence order."""
    return [view.tokens[i].text.lower() for i in sorted(view.kids(verb, PARTICLE))]
