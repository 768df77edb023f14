"""Casing strategies for upper-case input (the MUC-4 texts are ALL UPPER CASE).

Parsers trained on mixed-case text tag upper-case words badly (most become proper nouns), so the
text is re-cased before parsing. Every strategy maps a text to a text of *identical length*:
only the case of letters changes, so character offsets into the original stay valid and the
parse can report token texts exactly as the document has them.

Strategies
----------
``asis``
    The text unchanged.
``lower``
    Everything lowercased.
``truecase``
    A lexicon truecaser: a word is lowercased when WordNet knows it as a common word (also after
    WordNet's inflection rules and exception lists, after a derivational prefix such as ``un-``,
    or as a closed compound of two common words: ``machineguns``), when it is a function word,
    or a name particle (``de``, ``del``, ``y``); it gets an initial capital when WordNet knows it
    only as a name (``Salvador``, ``Mormon``) or not at all (``Valdebenito``). Words without a
    vowel and single letters other than ``a`` stay upper case (``FMLN``, ``M-16``, ``I``);
    letters right after a digit are lowercased (``20th``); the first word of a sentence is
    capitalised. A word WordNet lists both ways (``lima``/``Lima``, ``el``/``El``) is lowercased
    only when one of its senses is attested in WordNet's sense-tagged corpus (the tag counts of
    the index files): ``church`` stays lower, ``Lima`` gets a capital.
``auto`` (the default)
    ``truecase`` for a text whose letters are (almost) all upper case, ``asis`` otherwise, so a
    mixed-case corpus is never damaged.

The default was chosen by ``experiments/casing_compare.py`` (entity quadruples of TST4 upper case
against its mixed-case original).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from aesi_lib.errors import ResourceMissingError

CasingFn = Callable[[str], str]

CASING_STRATEGIES: tuple[str, ...] = ("asis", "lower", "truecase", "auto")
# Bump when a strategy's output changes; parser config ids include it, so cached parses made
# with older casing rules are not reused.
CASING_VERSION = 1
DEFAULT_CASING = "auto"

# Share of upper-case letters above which ``auto`` treats a text as all-caps.
_UPPER_SHARE = 0.9
# Below this many letters the share is too noisy to decide; such texts stay as they are.
_MIN_LETTERS = 20

_SYSTEM_WORDNET_DIRS: tuple[str, ...] = ("/usr/share/wordnet",)
_WORDNET_FILES = ("data.noun", "data.verb", "data.adj", "data.adv")
_POS_NAMES = ("noun", "verb", "adj", "adv")

# WordNet's detachment rules (morphy): suffix -> replacement, per part of speech.
_DETACH: dict[str, tuple[tuple[str, str], ...]] = {
    "noun": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
             ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
             ("ing", "e"), ("ing", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}

_WORD_RE = re.compile(r"[A-Za-z]+")
# A sentence starts at the beginning of the text, after a blank line, or after . ! ? followed
# by white space and optional opening quotes/brackets.
# Brackets are left out: "[passage omitted]" is lower case in the MUC-4 originals.
_SENT_START_RE = re.compile(r"(?:^|\n[ \t]*\n|[.!?][\"')\]]*\s)[\s\"']*([a-z])")
_VOWELS = frozenset("aeiouy")
# Particles inside Spanish, Portuguese, Dutch and German names ("Rodrigo de la Vega").
_NAME_PARTICLES = frozenset({"de", "del", "y", "da", "das", "do", "dos", "di", "van", "von",
                             "der"})
# Derivational prefixes: "unsustainable" is common when "sustainable" is.
_PREFIXES = ("un", "non", "re", "anti", "counter", "pre", "co", "semi", "sub", "ex", "over",
             "under", "out", "mis", "dis", "post", "pro", "inter", "multi")
_MIN_COMPOUND_PART = 3


@dataclass(frozen=True)
class WordEntry:
    """What WordNet says about one lowercase word form."""

    has_lower: bool
    has_cap: bool
    tagged: bool


@dataclass(frozen=True)
class CaseLexicon:
    """Word-form case information from WordNet plus a function-word list.

    ``words`` maps a lowercase lemma to its :class:`WordEntry`; ``exceptions`` maps an irregular
    inflected form to its base forms (WordNet's ``*.exc`` files); ``function_words`` are always
    lowercased.
    """

    words: dict[str, WordEntry]
    exceptions: dict[str, tuple[str, ...]]
    function_words: frozenset[str]
    source: str


def find_wordnet_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Locate a WordNet 3.0 database directory (the ``data.noun`` ... files).

    Looks at ``explicit``, ``$AESI_WORDNET_DIR``, Debian's ``/usr/share/wordnet`` and NLTK's
    ``corpora/wordnet`` under the NLTK data paths, in that order.

    Raises
    ------
    ResourceMissingError
        When no candidate holds ``data.noun``.
    """
    candidates: list[Path] = []
    if explicit:
        candidates.append(Path(explicit))
    if os.environ.get("AESI_WORDNET_DIR"):
        candidates.append(Path(os.environ["AESI_WORDNET_DIR"]))
    candidates += [Path(p) for p in _SYSTEM_WORDNET_DIRS]
    nltk_roots = [os.environ.get("NLTK_DATA", ""), str(Path.home() / "nltk_data"),
                  "/usr/share/nltk_data", "/usr/local/share/nltk_data"]
    candidates += [Path(root) / "corpora" / "wordnet" for root in nltk_roots if root]
    for cand in candidates:
        if (cand / "data.noun").is_file():
            return cand
    raise ResourceMissingError(
        "WordNet database not found (looked for data.noun in "
        + ", ".join(str(c) for c in candidates)
        + "). The truecasing strategy needs it: install it with "
        "`apt-get update && apt-get install -y wordnet-base`, or set AESI_WORDNET_DIR to a "
        "WordNet 3.0 dict directory, or choose casing='lower'."
    )


def _read_data_file(path: Path, forms: dict[str, list[bool]]) -> None:
    """Collect single-word lemmas of one ``data.*`` file with their case (in place)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("  "):  # licence header
                continue
            fields = line.split(" ", 4)
            n_words = int(fields[3], 16)
            parts = fields[4].split(" ", 2 * n_words)
            for word in parts[0:2 * n_words:2]:
                if "_" in word:
                    continue
                word = word.split("(", 1)[0]  # adjective markers such as "(p)"
                low = word.lower()
                flags = forms.setdefault(low, [False, False])
                if word == low:
                    flags[0] = True
                else:
                    flags[1] = True


def _read_tagged(path: Path, tagged: set[str]) -> None:
    """Add lemmas with a non-zero sense-tag count in one ``index.*`` file (in place)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("  "):
                continue
            fields = line.split()
            # lemma pos synset_cnt p_cnt ptr*p_cnt sense_cnt tagsense_cnt offsets...
            p_cnt = int(fields[3])
            if int(fields[5 + p_cnt]) > 0:
                tagged.add(fields[0])


@lru_cache(maxsize=4)
def load_case_lexicon(wordnet_dir: str | None = None) -> CaseLexicon:
    """Build (once per process, ~0.2 s) the case lexicon from a WordNet database directory."""
    from spacy.lang.en.stop_words import STOP_WORDS

    root = find_wordnet_dir(wordnet_dir)
    forms: dict[str, list[bool]] = {}
    for name in _WORDNET_FILES:
        _read_data_file(root / name, forms)
    tagged: set[str] = set()
    for pos in _POS_NAMES:
        index = root / f"index.{pos}"
        if index.is_file():
            _read_tagged(index, tagged)
    exceptions: dict[str, tuple[str, ...]] = {}
    for pos in _POS_NAMES:
        exc = root / f"{pos}.exc"
        if not exc.is_file():
            continue
        with open(exc, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) >= 2:
                    exceptions[fields[0]] = exceptions.get(fields[0], ()) + tuple(fields[1:])
    words = {low: WordEntry(flags[0], flags[1], low in tagged) for low, flags in forms.items()}
    function_words = frozenset(w.lower() for w in STOP_WORDS if w.isalpha())
    return CaseLexicon(words, exceptions, function_words, str(root))


def _lookup(lex: CaseLexicon, low: str) -> WordEntry | None:
    """The entry of ``low`` itself, else of a base form found by WordNet's morphy rules.

    A form WordNet has only as a name (``Windows``, ``Fields``) is still looked up as an
    inflection, so that a common base word (``window``, ``field``) wins.
    """
    own = lex.words.get(low)
    if own is not None and own.has_lower:
        return own
    for base in lex.exceptions.get(low, ()):
        entry = lex.words.get(base)
        if entry is not None and entry.has_lower:
            return entry
    for pos in _POS_NAMES:
        for suffix, repl in _DETACH[pos]:
            if low.endswith(suffix) and len(low) > len(suffix):
                entry = lex.words.get(low[: len(low) - len(suffix)] + repl)
                if entry is not None and entry.has_lower:
                    return entry
    return own


def _is_common(lex: CaseLexicon, low: str) -> bool:
    entry = _lookup(lex, low)
    return entry is not None and entry.has_lower and (entry.tagged or not entry.has_cap)


def _is_derived_common(lex: CaseLexicon, low: str) -> bool:
    """A prefixed form or a closed compound of common words (``machineguns``)."""
    for prefix in _PREFIXES:
        if low.startswith(prefix) and len(low) - len(prefix) >= _MIN_COMPOUND_PART + 1:
            if _is_common(lex, low[len(prefix):]):
                return True
    for cut in range(_MIN_COMPOUND_PART, len(low) - _MIN_COMPOUND_PART + 1):
        left, right = low[:cut], low[cut:]
        if left not in lex.function_words and _is_common(lex, left) and _is_common(lex, right):
            return True
    return False


def _word_case(lex: CaseLexicon, low: str) -> str:
    """Decide the case of one word: ``'l'`` lower, ``'t'`` title, ``'u'`` upper."""
    if low in _NAME_PARTICLES:
        return "l"
    if len(low) == 1:
        # "a" is the article; other single letters are initials or model names ("M-16").
        return "l" if low == "a" else "u"
    if low in lex.function_words:
        return "l"
    entry = _lookup(lex, low)
    if entry is None and _is_derived_common(lex, low):
        return "l"
    if entry is None:
        # Unknown to WordNet: a name, unless it cannot be pronounced as a word (an acronym).
        if len(low) > 1 and not (_VOWELS & set(low)):
            return "u"
        return "t"
    if entry.has_lower and (entry.tagged or not entry.has_cap):
        return "l"
    return "t"


class Truecaser:
    """Lexicon-based truecaser; call it on a text to get the re-cased text (same length).

    Decisions are memoised per word form, so the cost after warm-up is one regex pass and a
    dictionary look-up per word.
    """

    def __init__(self, lexicon: CaseLexicon | None = None) -> None:
        self.lexicon = lexicon if lexicon is not None else load_case_lexicon()
        self._memo: dict[str, str] = {}

    def _recase_word(self, match: re.Match[str]) -> str:
        word = match.group(0)
        start = match.start()
        text = match.string
        low = word.lower()
        # Clitics after an apostrophe ('S, 'T, 'LL, 'VE) belong to the word before them;
        # letters right after a digit are ordinal or unit suffixes (20TH, 2D, 5KM).
        if start > 0 and (text[start - 1] in "'’" and len(word) <= 2
                          or text[start - 1].isdigit()):
            return low
        decision = self._memo.get(low)
        if decision is None:
            decision = _word_case(self.lexicon, low)
            self._memo[low] = decision
        if decision == "l":
            return low
        if decision == "u":
            return word.upper()
        return word[0].upper() + low[1:]

    def __call__(self, text: str) -> str:
        recased = _WORD_RE.sub(self._recase_word, text)
        return _SENT_START_RE.sub(_capitalise_group, recased)


def _capitalise_group(match: re.Match[str]) -> str:
    whole = match.group(0)
    cut = match.start(1) - match.start(0)
    return whole[:cut] + whole[cut].upper() + whole[cut + 1:]


def is_mostly_upper(text: str) -> bool:
    """True when at least 90% of the (at least 20) letters of ``text`` are upper case."""
    upper = lower = 0
    for ch in text:
        if ch.isalpha():
            if ch.isupper():
                upper += 1
            else:
                lower += 1
    total = upper + lower
    return total >= _MIN_LETTERS and upper >= _UPPER_SHARE * total


def _asis(text: str) -> str:
    return text


def _lower(text: str) -> str:
    # str.lower can change the length of a few non-ASCII characters (e.g. 'İ'); keep those.
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


@lru_cache(maxsize=16)
def get_casing(name: str, wordnet_dir: str | None = None) -> CasingFn:
    """Return the casing function called ``name`` (one of :data:`CASING_STRATEGIES`).

    Parameters
    ----------
    name
        ``asis``, ``lower``, ``truecase`` or ``auto``.
    wordnet_dir
        WordNet directory for the truecaser; found automatically when None.

    Raises
    ------
    ValueError
        For an unknown name.
    ResourceMissingError
        When ``truecase``/``auto`` is asked for and WordNet is not installed.
    """
    if name == "asis":
        return _asis
    if name == "lower":
        return _lower
    if name == "truecase":
        return _checked(Truecaser(load_case_lexicon(wordnet_dir)))
    if name == "auto":
        truecaser = Truecaser(load_case_lexicon(wordnet_dir))

        def auto(text: str) -> str:
            return truecaser(text) if is_mostly_upper(text) else text

        return _checked(auto)
    raise ValueError(f"unknown casing strategy {name!r}; choose one of {CASING_STRATEGIES}")


def _checked(fn: CasingFn) -> CasingFn:
    """Wrap ``fn`` with the length invariant every strategy promises."""

    def wrapped(text: str) -> str:
        out = fn(text)
        if len(out) != len(text):  # pragma: no cover - a bug, not an input problem
            raise AssertionError("casing changed the text length")
        return out

    wrapped.__name__ = getattr(fn, "__name__", "casing")
    return wrapped


def apply_casing(text: str, name: str = DEFAULT_CASING) -> str:
    """Re-case ``text`` with the strategy ``name``; the result has the same length."""
    return get_casing(name)(text)
