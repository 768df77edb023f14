"""Typographic apostrophes: the parsers read them as the ASCII apostrophe.

Much web news writes *it’s*, *they’re* and *company’s* with the typographic apostrophe (U+2019)
where MUC-4's transcripts write ASCII; half of CASIE's apostrophes are typographic. The parsers
split such a contraction as they split the ASCII one, but their lemmatizers do not know it:
spaCy's default lemmatizes *’s* in *it’s clear* as ``’`` and tags it a verb, so *’*, *’re* and
*’m* became predicates of their subjects (195, 11 and 6 mentions in one CASIE run, *’* the
fourth predicate of a template), where *it's clear* has the copula *be*, which is no predicate.
So the parsers see each typographic apostrophe as ``'``: one character for one, so offsets
and token texts still refer to the document, and the mention spans keep the user's text.
"""

from __future__ import annotations

#: Bump when the straightening changes: it is part of the parsers' config ids, so a store
#: parsed under another rule parses its documents again.
APOSTROPHES_VERSION = 1

#: The right and left single quotation marks and the modifier-letter apostrophe, each
#: written for an apostrophe in some text.
_STRAIGHT = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def straighten_apostrophes(text: str) -> str:
    """``text`` with every typographic apostrophe (’, ‘, ʼ) as ``'``; the length is kept.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        Of the same length as ``text``.
    """
    return text.translate(_STRAIGHT)
