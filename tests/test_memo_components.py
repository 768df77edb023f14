"""The memoised attribute ruler and lemmatizer (aesi_lib.parse.memo_components) annotate as
spaCy's own components do."""

from __future__ import annotations

import pytest

from aesi_lib.corpus.demo import load_demo_corpus
from aesi_lib.parse.casing import apply_casing
from aesi_lib.parse.memo_components import MemoAttributeRuler, MemoLemmatizer
from aesi_lib.parse.spacy_backend import load_spacy_pipeline

# Contractions, colloquial forms and function words that the model's multi-token and
# set-valued patterns are written for; one word with two parts of speech ("saw"); blank lines
# (whitespace tokens); upper-case text as MUC-4 has it.
TEXTS = [
    "We're gonna go, y'all. Let's see. It ain't nothin'. I saw the saw and they saw me.",
    "There is a bomb. There were two. They didn't do it, but he does. Did they? Have it.",
    "It's not over: I gave it to you, and you gave it to me; that is that.\n\n  Whether or not.",
    "THE GUERRILLAS KILLED THE PRIEST AND HIS HOUSEKEEPER.  THE BOMB EXPLODED.\n\n THE ARMY "
    "SAID THAT THE ATTACK WAS REPULSED",
]


def annotations(doc):
    return [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.head.i, t.is_sent_start)
            for t in doc]


@pytest.fixture(scope="module")
def pipelines():
    return load_spacy_pipeline(memoised=True), load_spacy_pipeline(memoised=False)


def test_the_memoised_components_annotate_as_spacys_own(pipelines):
    memoised, stock = pipelines
    assert memoised.pipe_names == stock.pipe_names
    assert isinstance(memoised.get_pipe("attribute_ruler"), MemoAttributeRuler)
    assert isinstance(memoised.get_pipe("lemmatizer"), MemoLemmatizer)
    texts = TEXTS + [apply_casing(d.text, "auto") for d in load_demo_corpus().documents]
    # Twice, so that the second pass answers from the memos.
    for _ in range(2):
        for ours, theirs in zip(memoised.pipe(texts), stock.pipe(texts), strict=True):
            assert annotations(ours) == annotations(theirs)


def test_a_full_memo_starts_over_with_the_same_annotations(monkeypatch):
    from aesi_lib.parse import memo_components

    monkeypatch.setattr(memo_components, "MEMO_LIMIT", 3)
    memoised, stock = load_spacy_pipeline(memoised=True), load_spacy_pipeline(memoised=False)
    for ours, theirs in zip(memoised.pipe(TEXTS), stock.pipe(TEXTS), strict=True):
        assert annotations(ours) == annotations(theirs)
    assert len(memoised.get_pipe("attribute_ruler")._memo) <= 3
    assert len(memoised.get_pipe("lemmatizer")._memo) <= 3


def test_later_patterns_win_and_multi_token_patterns_set_their_target():
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": "bomb"}]], {"TAG": "NN", "LEMMA": "first"})
    ruler.add([[{"LOWER": {"IN": ["bomb", "car"]}}]], {"LEMMA": "second"})
    ruler.add([[{"LOWER": "car"}, {"LOWER": "bomb"}]], {"LEMMA": "car-bomb"}, index=1)
    ruler.add([[{"LOWER": {"REGEX": "^ex"}}]], {"POS": "VERB", "MORPH": "Tense=Past"})
    ruler.add([[{"LOWER": {"NOT_IN": ["a", "the"]}, "IS_SPACE": False}]], {"POS": "NOUN"},
              index=-1)
    memo = MemoAttributeRuler(ruler)
    assert memo.n_matcher_patterns == 1             # only the two-token pattern
    text = "A car bomb exploded near the bomb shop and a car.  Bomb!"
    ours, theirs = memo(nlp.make_doc(text)), ruler(nlp.make_doc(text))
    assert annotations(ours) == annotations(theirs)
    lemmas = {t.i: t.lemma_ for t in ours}
    assert (lemmas[2], lemmas[6], lemmas[1]) == ("car-bomb", "second", "second")
    assert [t.pos_ for t in ours if t.text == "exploded"] == ["NOUN"]   # the later pattern
