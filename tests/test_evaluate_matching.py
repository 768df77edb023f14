"""Matching rules of evaluation.md ("Matching a guess with a gold entity")."""

from __future__ import annotations

import itertools

import pytest

from aesi_lib.evaluate.matching import (
    guess_token,
    head_token,
    lenient,
    match_keys,
    normalise,
    pre_tokens,
    strict,
    tokens_match,
)


def test_normalise_lowercases_and_strips_punctuation_at_both_ends():
    assert normalise('"(FMLN)", U.S.-MADE') == ("fmln", "u.s.-made")


def test_normalise_strips_possessive_s_and_punctuation_around_it():
    assert normalise("THE ARMY'S, PEOPLE'S") == ("the", "army", "people")


def test_normalise_drops_tokens_made_only_of_punctuation():
    assert normalise("A -- B") == ("a", "b")


@pytest.mark.parametrize(
    ("a", "b"),
    [("bomb", "bombs"), ("priests", "priest"), ("house", "houses"), ("church", "churches")],
)
def test_tokens_match_with_s_or_es(a, b):
    assert tokens_match(a, b)
    assert tokens_match(b, a)


@pytest.mark.parametrize(
    ("a", "b"), [("bomb", "bomber"), ("man", "men"), ("bomb", "bombss"), ("", "")]
)
def test_tokens_do_not_match_otherwise(a, b):
    assert not tokens_match(a, b)


def test_pre_and_head_stop_at_first_of():
    assert pre_tokens("MEMBERS OF THE ARMY OF PERU") == ("members",)
    assert head_token("MEMBERS OF THE ARMY") == "members"
    assert head_token("PEOPLE'S REVOLUTIONARY ARMY") == "army"
    assert pre_tokens("URBAN PUBLIC BUS") == ("urban", "public", "bus")


def test_lenient_accepts_any_token_before_of():
    alts = ["PEOPLE'S REVOLUTIONARY ARMY", "MEMBERS OF THE ERP"]
    assert lenient("revolutionary", alts)
    assert lenient("People", alts)
    assert lenient("member", alts)  # plural rule on a pre(m) token
    assert not lenient("erp", alts)  # after "of"


def test_strict_accepts_only_the_head_of_an_alternative():
    alts = ["PEOPLE'S REVOLUTIONARY ARMY", "ERP"]
    assert strict("armies", alts) is False  # "armies" is not army + s/es
    assert strict("army", alts)
    assert strict("ERP", alts)  # the head of the second alternative
    assert not strict("revolutionary", alts)


def test_guess_is_one_normalised_token():
    assert guess_token("Bombs,") == "bombs"
    assert guess_token("car bomb") == "bomb"
    assert guess_token("--") == ""
    assert not lenient("--", ["--"])


def test_match_keys_agree_with_token_equality():
    words = ["bomb", "bombs", "bombes", "house", "houses", "s", "es", "e", "bus", "bu", "buses"]
    for alt, guess in itertools.product(words, words):
        assert (guess in match_keys([alt], "strict")) == tokens_match(guess, alt), (alt, guess)


def test_unknown_matcher_is_an_error():
    with pytest.raises(ValueError, match="unknown matcher"):
        match_keys(["x"], "fuzzy")  # type: ignore[arg-type]
