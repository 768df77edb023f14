"""Acronyms and the names they abbreviate (rule S5 of the coreference sieve,
:mod:`aesi_lib.entities.chains`): FMLN ↔ Farabundo Marti National Liberation Front."""

from __future__ import annotations

from collections.abc import Sequence


def is_acronym_candidate(head: str, n_words: int, lemma: str) -> bool:
    """True when a one-word noun phrase with head ``head`` (lemma ``lemma``) can be an acronym.

    The truecaser lowercases a word it knows as a common word ("PLACE"), so an acronym keeps
    an upper-case letter in its lemma. Two-letter acronyms would match too many pairs of words.
    """
    return (n_words == 1 and 3 <= len(head) <= 8 and head.isalpha() and head.isupper()
            and not lemma.islower())


def acronym_matches(acronym: str, words: Sequence[str]) -> bool:
    """True when ``acronym`` is made of the initials of ``words``.

    Parameters
    ----------
    acronym
        Upper-case letters, e.g. ``"FMLN"``.
    words
        The capitalised content words of a phrase, e.g. ``("Farabundo", "Marti", "National",
        "Liberation", "Front")``.

    Returns
    -------
    bool
        The letters equal the initials as a multiset (any order); for an acronym of three
        letters or more, also when the initials are the letters plus one more.
    """
    if len(words) < 2 or len(acronym) < 2:
        return False
    letters = sorted(acronym.upper())
    initials = sorted(w[0].upper() for w in words)
    if initials == letters:
        return True
    if len(letters) < 3 or len(initials) != len(letters) + 1:
        return False
    rest = list(initials)
    for ch in letters:
        if ch not in rest:
            return False
        rest.remove(ch)
    return True
