"""Is a document English? A small offline stop-word measure, no model and no dependency.

The pipeline's parser, lexicon and rules are English: a Spanish article still gives entity
mentions (capitalised names, numbers) and would enter the schema as noise. Function words are
the most frequent words of any text whatever its topic, and each language has its own, so the
share of a document's words that are English function words tells English apart from the
other languages a user's news folder is likely to hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ENGLISH = "en"
NO_WORDS = "zxx"
"""ISO 639-2 "no linguistic content": a document of numbers, codes or symbols."""
UNDETERMINED = "und"
"""ISO 639-2 "undetermined": words, but too few English function words and no other
language's function words beating them (another alphabet, a word list, a table)."""

ENGLISH_STOP_WORDS: frozenset[str] = frozenset("""
a about after against all also an and any are as at be because been before being between
both but by can could did do does during each for from had has have he her his how i if in
into is it its more most no not of on one or other our out over said she so some such than
that the their them then there these they this those through to under up was we were what
when where which while who will with would you
""".split())
"""About a hundred of the most frequent English words, nearly all function words: in English
news they are a third or more of the words (see :data:`MIN_ENGLISH_SHARE`), in any other
language a few percent at most (the odd loan word or name)."""

OTHER_STOP_WORDS: dict[str, frozenset[str]] = {
    "es": frozenset("el la los las del de que y en un una por con para es se su sus al lo "
                    "como pero más fue este esta sobre entre también ha han".split()),
    "fr": frozenset("le la les des du de et un une est que qui dans pour pas sur au aux "
                    "avec ce cette il elle ont sont été par plus ses leur".split()),
    "de": frozenset("der die das und ist nicht ein eine einer dem den des mit sich auf für "
                    "von zu im auch wurde sind bei aus nach wie oder".split()),
    "pt": frozenset("o os da das do dos e em um uma que não para com por no na nos nas "
                    "foi mais ao seu sua são pelo pela também".split()),
    "it": frozenset("il lo la gli le di del della dei e che è un una per con non nel nella "
                    "sono anche alla dal dalla ha più questo".split()),
    "nl": frozenset("de het een en van dat die niet zijn op te met voor ook aan er bij "
                    "door maar om werd heeft naar uit dan".split()),
}
"""The commonest function words of the languages most often mixed into a news folder beside
English. Words that are also frequent in English (``a``, ``in``, ``on``, ``as``, ``was``,
``an``, ``me``, ``do``, ``come``, ``per``) are left out: an English text must not score as
another language through them. The lists are shorter than the English one; they only have to
beat English's share in a text of their language, where English's is near zero."""

LANGUAGE_NAMES: dict[str, str] = {
    ENGLISH: "English", "es": "Spanish", "fr": "French", "de": "German",
    "pt": "Portuguese", "it": "Italian", "nl": "Dutch",
}

MIN_ENGLISH_SHARE = 0.15
"""The least share of English function words in an English document of some length. English
news has 0.35 to 0.5 (the embedded demo corpus and MUC-4 are no lower than about 0.25, MUC-4
in capitals and full of Spanish names); text in another language or an English word list
stays under 0.1."""

MIN_WORDS = 12
"""Fewer words than this are too few to measure a share: such a short text (a headline, a
test line) counts as English unless another language's function words beat English's."""

MIN_WORD_SHARE = 0.5
"""A text whose tokens are less than half words (the rest numbers, codes, symbols) is a
table or a list of figures, not prose: it has no language to parse ("no words")."""

# A word: a run of letters (any alphabet), apostrophes inside ("don't") kept. A token: any
# run of letters or digits, what a word is measured against.
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class LanguageGuess:
    """What :func:`detect_language` found in a text.

    Attributes
    ----------
    code : str
        ``"en"``, a code of :data:`OTHER_STOP_WORDS` (``"es"``, ``"fr"``, ...), ``"zxx"``
        (no words) or ``"und"`` (words, but neither English nor a language measured).
    english_share : float
        The share of the text's words that are English function words.
    shares : dict of str to float
        The same share for every other language measured, by code.
    words : int
        How many words the text has.
    """

    code: str
    english_share: float
    shares: dict[str, float]
    words: int

    @property
    def is_english(self) -> bool:
        return self.code == ENGLISH

    @property
    def finding(self) -> str:
        """What was found, in a few words: ``"looks like Spanish"``, ``"no words"``, ...
        (empty for English)."""
        if self.code == ENGLISH:
            return ""
        if self.code == NO_WORDS:
            return "no words"
        if self.code == UNDETERMINED:
            return (f"{self.english_share:.0%} English function words, "
                    f"under {MIN_ENGLISH_SHARE:.0%}")
        return f"looks like {LANGUAGE_NAMES.get(self.code, self.code)}"

    @property
    def reason(self) -> str:
        """Why the text is left out: ``"not English (looks like Spanish)"`` (empty for
        English)."""
        return f"not English ({self.finding})" if self.finding else ""


def detect_language(text: str) -> LanguageGuess:
    """Tell whether ``text`` is English by the share of its words that are function words.

    Parameters
    ----------
    text : str
        The document's text, in any case (MUC-4's capitals are read as lower case).

    Returns
    -------
    LanguageGuess
        ``"zxx"`` when fewer than :data:`MIN_WORD_SHARE` of the tokens are words (or there is
        no word at all); else the other language whose function-word share beats English's,
        when one does; else ``"en"`` when English's share is at least
        :data:`MIN_ENGLISH_SHARE` or the text has fewer than :data:`MIN_WORDS` words; else
        ``"und"``.
    """
    lowered = text.lower()
    words = _WORD.findall(lowered)
    tokens = len(_TOKEN.findall(lowered))
    count = len(words)
    if not count or count < MIN_WORD_SHARE * tokens:
        return LanguageGuess(NO_WORDS, 0.0, {}, count)

    def share(stop_words: frozenset[str]) -> float:
        return sum(w in stop_words for w in words) / count

    english = share(ENGLISH_STOP_WORDS)
    shares = {code: share(stop) for code, stop in OTHER_STOP_WORDS.items()}
    rival = max(shares, key=lambda code: shares[code])
    if shares[rival] > english:
        return LanguageGuess(rival, english, shares, count)
    if english >= MIN_ENGLISH_SHARE or count < MIN_WORDS:
        return LanguageGuess(ENGLISH, english, shares, count)
    return LanguageGuess(UNDETERMINED, english, shares, count)
