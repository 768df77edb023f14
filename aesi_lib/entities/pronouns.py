"""Rule R18 of :mod:`aesi_lib.entities.rules` (whose docstring states it): a personal pronoun
is an argument, read as the noun it stands for. Which pronouns, and which noun before them
is their antecedent (the nearest of their own sentence, else the previous sentence's first
subject, else its nearest noun, of the same grammatical number).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol, TypeVar

from aesi_lib.entities.sentence_view import DEP_SUBJECT, HEAD_UPOS, SentenceView
from aesi_lib.parse.types import ParsedDocument, Token


class ArgumentRow(Protocol):
    """What R18 reads and sets of an entity row (``aesi_lib.entities.rules.EntityRecord``, a
    frozen dataclass)."""

    sent_id: int
    head_index: int
    head: str
    head_lemma: str
    dep: str
    phrase: str
    proper: bool


Row = TypeVar("Row", bound=ArgumentRow)

#: The pronouns R18 reads as arguments, with the grammatical number an antecedent must have.
PLURAL_PRONOUNS = frozenset({"they", "them", "we", "us"})
SINGULAR_PRONOUNS = frozenset({"he", "him", "she", "her", "it", "i", "me"})
PERSONAL_PRONOUNS = PLURAL_PRONOUNS | SINGULAR_PRONOUNS
PLURAL_NOUN_TAGS = frozenset({"NNS", "NNPS"})


def is_pronoun_argument(view: SentenceView, i: int) -> bool:
    """Whether token ``i`` is a personal pronoun R18 reads (``PERSONAL_PRONOUNS``)."""
    tok = view.tokens[i]
    return tok.upos == "PRON" and tok.text.lower() in PERSONAL_PRONOUNS


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


def resolve_pronouns(parsed: ParsedDocument, records: list[Row]) -> list[Row]:
    """``records`` (a document's, in order) with each pronoun's head, lemma, phrase and
    ``proper`` taken from its antecedent (R18: :func:`antecedent_order`,
    :func:`pronoun_antecedent`); a pronoun without one stays as it is."""
    def token(r: ArgumentRow) -> Token:
        return parsed.sentences[r.sent_id].tokens[r.head_index]

    # The argument nouns of each sentence by token (their first row), and those that are a
    # subject in any row.
    nouns: dict[int, dict[int, Row]] = {}
    subjects: set[tuple[int, int]] = set()
    for r in records:
        if token(r).upos in HEAD_UPOS:
            nouns.setdefault(r.sent_id, {}).setdefault(r.head_index, r)
            if r.dep == DEP_SUBJECT:
                subjects.add((r.sent_id, r.head_index))
    out = []
    for r in records:
        if token(r).upos != "PRON":
            out.append(r)
            continue
        before = [(n, (offset, i, (n.sent_id, i) in subjects)) for offset in (-1, 0)
                  for i, n in nouns.get(r.sent_id + offset, {}).items()
                  if offset < 0 or i < r.head_index]
        order = antecedent_order([place for _, place in before])
        found = pronoun_antecedent(r.head, [token(before[k][0]).tag for k in order])
        if found < 0:
            out.append(r)
            continue
        antecedent = before[order[found]][0]
        out.append(dataclasses.replace(
            r, head=antecedent.head, head_lemma=antecedent.head_lemma,
            phrase=antecedent.phrase, proper=antecedent.proper))
    return out
