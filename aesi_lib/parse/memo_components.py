"""Memoised stand-ins for spaCy's attribute ruler and rule lemmatizer: the same annotations,
a fraction of the CPU.

In ``en_core_web_sm`` the two components that run after the parser cost about a fifth of the
whole pipeline's CPU on MUC-4 (400 truecased messages, one thread: 9.3 s with them, 7.0 s
without). Both spend it in Python, token by token, on work that repeats:

* the **attribute ruler** runs 179 Matcher patterns over every token and sets each match's
  attributes through a new ``Span``; yet 171 of its patterns look at one token, and what they
  do depends only on that token's tag, lowercase form, dependency label and whether it is
  whitespace;
* the **lemmatizer** caches its rule results, but not the answers of its early exits (a
  singular noun, an infinitive), which read the token's morphology as a dict each time.

:class:`MemoAttributeRuler` decides the single-token patterns once per distinct
(tag, lower, dep, is_space) and sends only the other patterns through a ``Matcher``; matches
are applied in pattern order, later patterns overriding earlier ones, as spaCy's ruler does.
:class:`MemoLemmatizer` remembers the lemma per (orth, POS, morphology), the key spaCy's own
cache uses. :func:`memoise_components` puts both into a pipeline under the names of the
components they replace, so ``nlp.pipe_names`` (and so the parse cache's key) stay the same;
the annotations are identical, which ``tests/test_memo_components.py`` checks against the
stock components and ``benchmarks/parse_throughput.py --check`` on MUC-4.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

ATTRIBUTE_RULER_FACTORY = "aesi_memo_attribute_ruler"
LEMMATIZER_FACTORY = "aesi_memo_lemmatizer"

#: Token attributes a memoised single-token pattern may test, and how to read them.
_READERS: dict[str, Callable[[Any], Any]] = {
    "TAG": lambda t: t.tag_,
    "LOWER": lambda t: t.lower_,
    "DEP": lambda t: t.dep_,
    "IS_SPACE": lambda t: t.is_space,
    "ORTH": lambda t: t.orth_,
    "TEXT": lambda t: t.text,
    "POS": lambda t: t.pos_,
}
#: Lemmatizer modes whose answer depends only on a token's orth, POS and morphology.
_MEMO_MODES = frozenset({"rule", "lookup", "pos_lookup"})
#: Entries a memo holds before it starts over, so that a parse worker on a growing vocabulary
#: stays bounded (all of MUC-4 in one process: 51,589 token descriptions sharing 191
#: decisions, and 22,797 lemmas).
MEMO_LIMIT = 1 << 18


def _condition(value: Any) -> Callable[[Any], bool] | None:
    """A test of one attribute's value as the Matcher would make it; None for the kinds this
    module leaves to the Matcher (comparisons, fuzzy matches, set predicates, ...)."""
    if isinstance(value, (str, bool)):
        return lambda v: v == value
    if not isinstance(value, dict) or len(value) != 1:
        return None
    (operator, argument), = value.items()
    if operator == "IN":
        allowed = frozenset(argument)
        return lambda v: v in allowed
    if operator == "NOT_IN":
        excluded = frozenset(argument)
        return lambda v: v not in excluded
    if operator == "REGEX":
        pattern = re.compile(argument)
        return lambda v: bool(pattern.search(v))
    return None


class MemoAttributeRuler:
    """spaCy's ``AttributeRuler`` with its single-token patterns decided once per distinct
    token description (see the module docstring).

    Parameters
    ----------
    ruler : spacy.pipeline.AttributeRuler
        The component to stand in for; its patterns, attributes and indices are read once.
    """

    def __init__(self, ruler: Any) -> None:
        from spacy.matcher import Matcher

        self.vocab = ruler.vocab
        self.attrs = list(ruler.attrs)            # normalised, as the ruler applies them
        self.indices = list(ruler.indices)
        self.matcher = Matcher(ruler.vocab)
        self.n_matcher_patterns = 0
        memoised: list[tuple[int, list[tuple[str, Callable[[Any], bool]]]]] = []
        for attr_id, pattern in enumerate(ruler.patterns):
            alternatives = _single_token_tests(pattern)
            if alternatives is None:
                self.matcher.add(str(attr_id), pattern["patterns"])
                self.n_matcher_patterns += 1
                continue
            memoised.extend((attr_id, tests) for tests in alternatives)
        self.keys = sorted({name for _, tests in memoised for name, _ in tests})
        self._readers = [_READERS[name] for name in self.keys]
        position = {name: i for i, name in enumerate(self.keys)}
        self._patterns = [(attr_id, [(position[name], test) for name, test in tests])
                          for attr_id, tests in memoised]
        self._memo: dict[tuple[Any, ...], tuple[list[int], dict[int, Any]]] = {}
        # Decisions by the patterns they match: most tokens share one of a few hundred.
        self._decisions: dict[tuple[int, ...], tuple[list[int], dict[int, Any]]] = {}

    def _decide(self, key: tuple[Any, ...]) -> tuple[list[int], dict[int, Any]]:
        """The single-token patterns that match a token described by ``key``, in pattern
        order, and their attributes merged in that order (later ones win)."""
        ids = tuple(sorted({attr_id for attr_id, tests in self._patterns
                            if all(test(key[i]) for i, test in tests)}))
        decision = self._decisions.get(ids)
        if decision is None:
            merged: dict[int, Any] = {}
            for attr_id in ids:
                merged.update(self.attrs[attr_id])
            decision = self._decisions[ids] = (list(ids), merged)
        return decision

    def __call__(self, doc: Any) -> Any:
        from spacy.tokens._retokenize import set_token_attrs

        # Every match is found before any attribute is set, as in spaCy's ruler.
        targets: dict[int, list[int]] = {}
        if self.n_matcher_patterns:
            for match_id, start, end in self.matcher(doc, allow_missing=True):
                attr_id = int(self.vocab.strings[match_id])
                index = self.indices[attr_id]
                target = start + index if index >= 0 else end + index
                if not start <= target < end:
                    raise ValueError(f"attribute ruler pattern {attr_id}: index {index} is "
                                     f"outside its match of {end - start} tokens")
                targets.setdefault(target, []).append(attr_id)
        memo, readers = self._memo, self._readers
        for token in doc:
            key = tuple(read(token) for read in readers)
            decided = memo.get(key)
            if decided is None:
                if len(memo) >= MEMO_LIMIT:
                    memo.clear()
                decided = memo[key] = self._decide(key)
            ids, merged = decided
            more = targets.get(token.i)
            if more:
                for attr_id in sorted(ids + more):
                    set_token_attrs(token, self.attrs[attr_id])
            elif merged:
                set_token_attrs(token, merged)
        return doc


def _single_token_tests(pattern: dict[str, Any]
                        ) -> list[list[tuple[str, Callable[[Any], bool]]]] | None:
    """The tests of a ruler pattern whose every alternative is one token described only by
    attributes of :data:`_READERS`, one list per alternative; None otherwise."""
    if pattern.get("index", 0) not in (0, -1):
        return None
    alternatives = []
    for alternative in pattern["patterns"]:
        if len(alternative) != 1:
            return None
        tests = []
        for name, value in alternative[0].items():
            test = _condition(value)
            if name.upper() not in _READERS or test is None:
                return None
            tests.append((name.upper(), test))
        alternatives.append(tests)
    return alternatives


class MemoLemmatizer:
    """spaCy's ``Lemmatizer`` with every answer remembered per (orth, POS, morphology).

    Parameters
    ----------
    lemmatizer : spacy.pipeline.Lemmatizer
        The component to stand in for, in mode ``rule``, ``lookup`` or ``pos_lookup``.
    """

    def __init__(self, lemmatizer: Any) -> None:
        from spacy.tokens import Doc

        lemmatizer(Doc(lemmatizer.vocab, words=[]))   # checks its tables, as its first call does
        self.lemmatize = lemmatizer.lemmatize
        self.overwrite = lemmatizer.overwrite
        self._memo: dict[tuple[int, int, int], int] = {}

    def __call__(self, doc: Any) -> Any:
        memo = self._memo
        for token in doc:
            if not (self.overwrite or token.lemma == 0):
                continue
            key = (token.orth, token.pos, token.morph.key)
            lemma = memo.get(key)
            if lemma is not None:
                token.lemma = lemma
                continue
            token.lemma_ = self.lemmatize(token)[0]
            # Without a POS spaCy warns on every call: leave those calls to it.
            if token.pos:
                if len(memo) >= MEMO_LIMIT:
                    memo.clear()
                memo[key] = token.lemma
        return doc


def _register_factories() -> None:
    from spacy.language import Language

    if not Language.has_factory(ATTRIBUTE_RULER_FACTORY):
        Language.factory(ATTRIBUTE_RULER_FACTORY, default_config={"source": "attribute_ruler"},
                         func=lambda nlp, name, source: MemoAttributeRuler(nlp.get_pipe(source)))
    if not Language.has_factory(LEMMATIZER_FACTORY):
        Language.factory(LEMMATIZER_FACTORY, default_config={"source": "lemmatizer"},
                         func=lambda nlp, name, source: MemoLemmatizer(nlp.get_pipe(source)))


def memoise_components(nlp: Any) -> list[str]:
    """Replace the enabled ``attribute_ruler`` and ``lemmatizer`` of ``nlp`` (spaCy's own
    classes; a lemmatizer in a mode of :data:`_MEMO_MODES`) by their memoised stand-ins, under
    the same names and at the same places. Returns the names replaced."""
    from spacy.pipeline import AttributeRuler, Lemmatizer

    _register_factories()
    replaced = []
    for name, kind, factory in (("attribute_ruler", AttributeRuler, ATTRIBUTE_RULER_FACTORY),
                                ("lemmatizer", Lemmatizer, LEMMATIZER_FACTORY)):
        if name not in nlp.pipe_names:
            continue
        component = nlp.get_pipe(name)
        if not isinstance(component, kind) or (
                isinstance(component, Lemmatizer) and component.mode not in _MEMO_MODES):
            continue
        stand_in = f"{name}_memoised"
        nlp.add_pipe(factory, name=stand_in, after=name, config={"source": name})
        nlp.remove_pipe(name)
        nlp.rename_pipe(stand_in, name)
        replaced.append(name)
    return replaced
