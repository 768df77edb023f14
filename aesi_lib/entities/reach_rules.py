"""The rules that reach arguments the verb rules leave out (R17-R19 of
:mod:`aesi_lib.entities.rules`, whose docstring states them): the nouns inside an argument's
noun phrase (*Windows* in *Windows users*, the possessor, the object of *of*), pronoun
arguments with the noun they stand for, and numbers or quantifiers that are an argument
themselves (*killing 15*). Each is a switch of :class:`aesi_lib.entities.rules.EntityRules`,
off by default.
"""

from __future__ import annotations

from collections.abc import Sequence

from aesi_lib.entities.event_noun_rules import prepositional_objects
from aesi_lib.entities.sentence_view import SentenceView

#: The links from a noun to a noun inside its phrase that R17 follows, named as the
#: dependency suffix they give (a prepositional object gives its preposition instead).
COMPOUND = frozenset({"compound"})
POSSESSOR = frozenset({"poss", "nmod:poss"})
#: How deep R17 reads into one argument's phrase: the possessor of an *of*-object
#: (*control of the hospital's systems* -> hospital) is two links from the argument.
MODIFIER_DEPTH = 2
#: What joins an argument's dependency to the links R17 followed (``dobj>of``).
MODIFIER_LINK = ">"

#: The pronouns R18 reads as arguments, with the grammatical number an antecedent must have.
PLURAL_PRONOUNS = frozenset({"they", "them", "we", "us"})
SINGULAR_PRONOUNS = frozenset({"he", "him", "she", "her", "it", "i", "me"})
PERSONAL_PRONOUNS = PLURAL_PRONOUNS | SINGULAR_PRONOUNS
PLURAL_NOUN_TAGS = frozenset({"NNS", "NNPS"})
#: Words that stand for a number of people or things when they are an argument themselves
#: (``many were injured``): R19 reads them besides the tokens tagged NUM.
QUANTITY_WORDS = frozenset({"many", "several", "dozens", "hundreds", "thousands", "millions",
                            "few", "some", "most", "all", "both"})


def is_pronoun_argument(view: SentenceView, i: int) -> bool:
    """Whether token ``i`` is a personal pronoun R18 reads (``PERSONAL_PRONOUNS``)."""
    tok = view.tokens[i]
    return tok.upos == "PRON" and tok.text.lower() in PERSONAL_PRONOUNS


def is_number_argument(view: SentenceView, i: int) -> bool:
    """Whether token ``i`` is a number or quantifier R19 reads: tagged NUM, or one of
    ``QUANTITY_WORDS`` heading no noun."""
    tok = view.tokens[i]
    if tok.upos == "NUM":
        return True
    return tok.text.lower() in QUANTITY_WORDS and tok.upos in {"PRON", "ADJ", "NOUN", "DET"}


def modifier_arguments(view: SentenceView, arguments: Sequence[tuple[int, str]],
                       taken: set[int]) -> list[tuple[int, int, str]]:
    """(modifier noun, index in ``arguments``, dependency) of R17 for the sentence's
    ``arguments`` (argument noun, dependency), whose predicate the modifier shares.

    A noun inside an argument's phrase, as a noun compound, a possessor or a prepositional
    object (and their conjuncts), up to :data:`MODIFIER_DEPTH` links down, is an argument of
    the same predicate with the dependency ``<argument's dependency>><link>`` (``dobj>of``,
    ``nsubj>poss``, ``dobj>compound``; the last link names it). A noun already in ``taken``
    (an argument of some rule) is not repeated; ``taken`` gains the nouns returned.
    """
    out: list[tuple[int, int, str]] = []
    for k, (noun, dep) in enumerate(arguments):
        frontier = [noun]
        for _ in range(MODIFIER_DEPTH):
            found = []
            for head in frontier:
                for modifier, link in _noun_modifiers(view, head):
                    for n in view.conjuncts(modifier):
                        if n in taken or not view.is_noun(n):
                            continue
                        taken.add(n)
                        found.append(n)
                        out.append((n, k, f"{dep}{MODIFIER_LINK}{link}"))
            frontier = found
    return out


def _noun_modifiers(view: SentenceView, noun: int) -> list[tuple[int, str]]:
    """(modifier token, link name) of the nouns directly inside ``noun``'s phrase."""
    out = [(c, "compound") for c in view.kids(noun, COMPOUND)]
    out += [(c, "poss") for c in view.kids(noun, POSSESSOR)]
    out += prepositional_objects(view, noun)
    return sorted(out)


def pronoun_antecedent(pronoun: str, tags: Sequence[str]) -> int:
    """Index in ``tags`` of the antecedent of ``pronoun`` (R18), or -1.

    ``tags`` are the part-of-speech tags of the candidate nouns in the order they are tried
    (:func:`antecedent_order`). The antecedent is the first whose number agrees: a plural tag
    for *they*, *them*, *we*, *us*; a singular one for the others.
    """
    plural = pronoun.lower() in PLURAL_PRONOUNS
    return next((i for i, tag in enumerate(tags) if (tag in PLURAL_NOUN_TAGS) == plural), -1)


def antecedent_order(before: Sequence[tuple[int, int, bool]]) -> list[int]:
    """The order in which R18 tries the argument nouns before a pronoun, as indices into
    ``before``: (sentence offset, token index, is a subject) of each noun, 0 for the
    pronoun's own sentence and -1 for the previous one.

    Nearest first in the pronoun's own sentence (*the hackers said they ...*); then the
    previous sentence's subjects from the left, the sentence's topic; then its other nouns,
    nearest first.
    """
    own = sorted((i for i, b in enumerate(before) if b[0] == 0), key=lambda i: -before[i][1])
    previous = [i for i, b in enumerate(before) if b[0] != 0]
    subjects = sorted((i for i in previous if before[i][2]), key=lambda i: before[i][1])
    others = sorted((i for i in previous if not before[i][2]), key=lambda i: -before[i][1])
    return own + subjects + others
