"""Matching a guess (one head word) with a gold entity (evaluation.md, "Matching a guess with a
gold entity").

Two matchers are defined: ``lenient`` (the guess equals any token of ``pre(m)`` of an
alternative m) and ``strict`` (the guess equals ``head(m)``). Tokens match when equal or when one
is the other plus ``s`` or ``es``.

For speed the scorer does not call a matcher per (guess, entity) pair: :func:`match_keys` turns
a gold entity into the set of every guess token that would match it, so that matching becomes a
set lookup. :func:`lenient` and :func:`strict` are defined through the same sets, so the two
routes cannot disagree.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

MatcherName = Literal["lenient", "strict"]
MATCHERS: tuple[MatcherName, ...] = ("lenient", "strict")

_PUNCT = string.punctuation
_POSSESSIVE = "'s"


def normalise_token(token: str) -> str:
    """Normalise one token (evaluation.md, "Matching": lowercase, strip punctuation at both ends
    and a possessive ``'s``).

    Parameters
    ----------
    token : str
        One whitespace-free token.

    Returns
    -------
    str
        The normalised token; may be empty (a token made only of punctuation).
    """
    tok = token.lower().strip(_PUNCT)
    # Punctuation may sit outside the possessive ("ARMY'S,"), hence strip, cut, strip.
    if tok.endswith(_POSSESSIVE) and len(tok) > len(_POSSESSIVE):
        tok = tok[: -len(_POSSESSIVE)].strip(_PUNCT)
    return tok


def normalise(text: str) -> tuple[str, ...]:
    """Tokens of a string as evaluation.md ("Matching") defines them.

    Parameters
    ----------
    text : str
        A gold alternative string or a head word.

    Returns
    -------
    tuple of str
        Lowercased whitespace tokens with punctuation and possessives stripped; tokens that end
        up empty are dropped.
    """
    out = (normalise_token(t) for t in text.split())
    return tuple(t for t in out if t)


@lru_cache(maxsize=200_000)
def guess_token(head: str) -> str:
    """The single token a guess is compared with (evaluation.md, "A guess is one token").

    Parameters
    ----------
    head : str
        The head word of a mention (any case).

    Returns
    -------
    str
        The normalised head; for a head that contains whitespace, its last token (the head of a
        multi-word head). Empty when nothing is left, and an empty guess matches nothing.
    """
    toks = normalise(head)
    return toks[-1] if toks else ""


def tokens_match(a: str, b: str) -> bool:
    """Token equality of evaluation.md ("Matching"): equal, or one is the other plus ``s``/``es``.

    Parameters
    ----------
    a, b : str
        Normalised tokens.

    Returns
    -------
    bool
    """
    if not a or not b:
        return False
    return a == b or a == b + "s" or a == b + "es" or b == a + "s" or b == a + "es"


def pre_tokens(alternative: str) -> tuple[str, ...]:
    """``pre(m)``: the tokens of m before its first token ``of`` (evaluation.md, "Matching").

    Parameters
    ----------
    alternative : str
        One alternative string of a gold entity.

    Returns
    -------
    tuple of str
        All tokens when m contains no ``of``.
    """
    toks = normalise(alternative)
    if "of" in toks:
        toks = toks[: toks.index("of")]
    return toks


def head_token(alternative: str) -> str:
    """``head(m)``: the last token of ``pre(m)`` (evaluation.md, "Matching").

    Parameters
    ----------
    alternative : str
        One alternative string of a gold entity.

    Returns
    -------
    str
        Empty when ``pre(m)`` is empty (m starts with ``of`` or has no token).
    """
    toks = pre_tokens(alternative)
    return toks[-1] if toks else ""


def _variants(token: str) -> set[str]:
    # Every guess g with tokens_match(g, token): token itself, token+s/es, and token less a final
    # s/es. Listing them turns the symmetric suffix rule into one set lookup.
    out = {token, token + "s", token + "es"}
    if token.endswith("s") and len(token) > 1:
        out.add(token[:-1])
    if token.endswith("es") and len(token) > 2:
        out.add(token[:-2])
    return out


def candidate_tokens(alternatives: Iterable[str], matcher: MatcherName) -> set[str]:
    """The tokens of an entity that a guess is compared with under ``matcher``.

    Parameters
    ----------
    alternatives : iterable of str
        The alternative strings of one gold entity.
    matcher : {"lenient", "strict"}
        ``lenient``: every token of ``pre(m)``; ``strict``: ``head(m)`` (evaluation.md,
        "Matching").

    Returns
    -------
    set of str
    """
    if matcher == "lenient":
        return {t for alt in alternatives for t in pre_tokens(alt)}
    if matcher == "strict":
        return {h for alt in alternatives if (h := head_token(alt))}
    raise ValueError(f"unknown matcher {matcher!r}; expected one of {MATCHERS}")


def match_keys(alternatives: Iterable[str], matcher: MatcherName) -> frozenset[str]:
    """Every guess token that matches an entity under ``matcher`` (evaluation.md, "Matching").

    Parameters
    ----------
    alternatives : iterable of str
        The alternative strings of one gold entity.
    matcher : {"lenient", "strict"}

    Returns
    -------
    frozenset of str
        A guess ``h`` matches the entity iff ``guess_token(h)`` is in this set.
    """
    out: set[str] = set()
    for tok in candidate_tokens(alternatives, matcher):
        out |= _variants(tok)
    return frozenset(out)


def lenient(guess: str, alternatives: Iterable[str]) -> bool:
    """The ``lenient`` matcher of evaluation.md ("Matching").

    Parameters
    ----------
    guess : str
        A head word.
    alternatives : iterable of str
        The alternative strings of one gold entity.

    Returns
    -------
    bool
        True when the guess matches any token of ``pre(m)`` for some alternative m.
    """
    tok = guess_token(guess)
    return bool(tok) and tok in match_keys(alternatives, "lenient")


def strict(guess: str, alternatives: Iterable[str]) -> bool:
    """The ``strict`` matcher of evaluation.md ("Matching").

    Parameters
    ----------
    guess : str
        A head word.
    alternatives : iterable of str
        The alternative strings of one gold entity.

    Returns
    -------
    bool
        True when the guess matches ``head(m)`` for some alternative m.
    """
    tok = guess_token(guess)
    return bool(tok) and tok in match_keys(alternatives, "strict")
