"""Editorial insertions blanked before parsing (aesi_lib.parse.insertions)."""

from __future__ import annotations

from aesi_lib.parse.insertions import blank_insertions
from aesi_lib.parse.spacy_backend import parser_text


def test_each_bracket_group_becomes_blanks_of_its_length():
    text = "THE FRONT [FMLN] ATTACKED [WORDS INDISTINCT] AT 2330 [0530 GMT]."
    out = blank_insertions(text)
    assert len(out) == len(text)
    assert out == "THE FRONT        ATTACKED                    AT 2330           ."


def test_unpaired_nested_and_multiline_brackets_stay():
    assert blank_insertions("A [B C") == "A [B C"
    assert blank_insertions("A ] B") == "A ] B"
    # Only the inner group of a nested pair is a group; a group does not cross a line break.
    assert blank_insertions("[A [B] C]") == "[A     C]"
    assert blank_insertions("[A\nB]") == "[A\nB]"


def test_the_parser_text_keeps_the_length():
    text = "THE ARMY [WORD\nINDISTINCT] SAID\n\n[REPORTER] THE BOMB EXPLODED"
    out = parser_text(text, str.lower)
    assert len(out) == len(text)
    # Single line breaks are joined first, so a note broken over two lines is blanked too;
    # the paragraph break stays.
    assert out == ("the army " + " " * len("[WORD\nINDISTINCT]") + " said\n\n"
                   + " " * len("[REPORTER]") + " the bomb exploded")
