"""Stanza backend (aesi_lib.parse.stanza_backend): conversion and model loading.

Stanza's English models cannot be downloaded on the project's machines, so the conversion is
tested on ``stanza.Document`` objects built from CoNLL-U text (no model needed), and the loader
on folders without models.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

stanza = pytest.importorskip("stanza", reason="stanza is an optional extra (pip install "
                                              "torch==2.13.0 stanza==1.15.0)")
from stanza.utils.conll import CoNLL  # noqa: E402

from aesi_lib.corpus.types import Document  # noqa: E402
from aesi_lib.entities import extract_entities  # noqa: E402
from aesi_lib.errors import ResourceMissingError  # noqa: E402
from aesi_lib.parse.base import Parser  # noqa: E402
from aesi_lib.parse.spacy_backend import SpacyParser  # noqa: E402
from aesi_lib.parse.stanza_backend import (  # noqa: E402
    StanzaParser,
    download_command,
    load_stanza_pipeline,
    stanza_doc_to_parsed,
)


def conllu(rows: str) -> str:
    """CoNLL-U from compact rows ``id form lemma upos xpos head deprel [misc]``."""
    lines = []
    for row in rows.strip().splitlines():
        parts = row.split()
        if not parts:
            lines.append("")
            continue
        if "-" in parts[0]:  # a multi-word token line: id form [misc]
            misc = parts[2] if len(parts) > 2 else "_"
            lines.append("\t".join([parts[0], parts[1], "_", "_", "_", "_", "_", "_", "_", misc]))
            continue
        misc = parts[7] if len(parts) > 7 else "_"
        lines.append("\t".join([parts[0], parts[1], parts[2], parts[3], parts[4], "_", parts[5],
                                parts[6], "_", misc]))
    return "\n".join(lines) + "\n\n"


KIDNAP = conllu("""
1 The the DET DT 2 det
2 mayor mayor NOUN NN 7 nsubj:pass
3 and and CCONJ CC 5 cc
4 his his PRON PRP$ 5 nmod:poss
5 driver driver NOUN NN 2 conj
6 were be AUX VBD 7 aux:pass
7 kidnapped kidnap VERB VBN 0 root
8 by by ADP IN 9 case
9 guerrillas guerrilla NOUN NNS 7 obl:agent ner=S-NORP|SpaceAfter=No
10 , , PUNCT , 9 punct
11 who who PRON WP 12 nsubj
12 took take VERB VBD 9 acl:relcl
13 them they PRON PRP 12 obj
14 to to ADP IN 16 case
15 the the DET DT 16 det
16 mountains mountain NOUN NNS 12 obl SpaceAfter=No
17 . . PUNCT . 7 punct
""")

PLACED = conllu("""
1 According accord VERB VBG 4 case
2 to to ADP IN 1 fixed
3 the the DET DT 4 det
4 police police NOUN NN 9 obl SpaceAfter=No
5 , , PUNCT , 9 punct
6 the the DET DT 7 det
7 bomb bomb NOUN NN 9 nsubj:pass
8 was be AUX VBD 9 aux:pass
9 placed place VERB VBN 0 root
10 in in ADP IN 11 case
11 front front NOUN NN 9 obl
12 of of ADP IN 14 case
13 the the DET DT 14 det
14 embassy embassy NOUN NN 11 nmod
15 because because SCONJ IN 18 case
16 of of ADP IN 15 fixed
17 the the DET DT 18 det
18 elections election NOUN NNS 9 obl SpaceAfter=No
19 . . PUNCT . 9 punct
""")

MWT = conllu("""
1 Police police NOUN NN 4 nsubj ner=S-ORG
2-3 can't SpaceAfter=No
2 ca can AUX MD 4 aux
3 n't not PART RB 4 advmod
4 find find VERB VB 0 root
5 Lima Lima PROPN NNP 4 obj ner=S-GPE|SpaceAfter=No
6 . . PUNCT . 4 punct
""")

KIDNAP_TEXT = ("The mayor and his driver were kidnapped by guerrillas, who took them to the "
               "mountains.")
PLACED_TEXT = ("According to the police, the bomb was placed in front of the embassy because of "
               "the elections.")


def triples(records) -> set[tuple[str, str, str]]:
    return {(r.head_lemma, r.predicate, r.dep) for r in records}


def test_conversion_heads_labels_ner_and_spacing():
    doc = CoNLL.conll2doc(input_str=KIDNAP, reconstruct_text=True)
    parsed = stanza_doc_to_parsed(doc, "S-1")
    assert parsed.doc_id == "S-1" and len(parsed.sentences) == 1
    tokens = parsed.sentences[0].tokens
    assert [t.head for t in tokens[:3]] == [1, 6, 4]
    assert tokens[6].head == -1 and tokens[6].dep == "root"
    assert tokens[1].dep == "nsubj:pass" and tokens[1].upos == "NOUN" and tokens[1].tag == "NN"
    assert tokens[8].ent_type == "NORP" and tokens[0].ent_type == ""
    assert tokens[8].whitespace_after is False and tokens[0].whitespace_after is True
    assert [t.start_char for t in tokens[:3]] == [0, 4, 10]


def test_original_text_supplies_token_case():
    doc = CoNLL.conll2doc(input_str=KIDNAP, reconstruct_text=True)
    upper = doc.text.upper()
    tokens = stanza_doc_to_parsed(doc, "S-1", upper).sentences[0].tokens
    assert tokens[1].text == "MAYOR" and tokens[1].lemma == "mayor"
    for tok in tokens:
        assert upper[tok.start_char:tok.start_char + len(tok.text)] == tok.text


def test_multi_word_tokens_become_words():
    doc = CoNLL.conll2doc(input_str=MWT, reconstruct_text=True)
    tokens = stanza_doc_to_parsed(doc, "M").sentences[0].tokens
    assert [t.text for t in tokens] == ["Police", "ca", "n't", "find", "Lima", "."]
    assert [t.whitespace_after for t in tokens[1:3]] == [False, False]
    assert tokens[4].ent_type == "GPE"
    assert triples(extract_entities(stanza_doc_to_parsed(doc, "M"))) == {
        ("police", "find", "nsubj"), ("lima", "find", "dobj")}


def test_without_offsets_start_char_is_unknown():
    doc = CoNLL.conll2doc(input_str=PLACED)
    tokens = stanza_doc_to_parsed(doc, "P").sentences[0].tokens
    assert all(t.start_char == -1 for t in tokens)


@pytest.mark.parametrize(("ud", "text"), [(KIDNAP, KIDNAP_TEXT), (PLACED, PLACED_TEXT)])
def test_ud_parse_gives_the_same_entities_as_the_clearnlp_parse(ud, text):
    ud_records = extract_entities(stanza_doc_to_parsed(CoNLL.conll2doc(input_str=ud), "x"))
    spacy_parsed = next(SpacyParser().parse([Document("x", text, "t", "t")]))
    clear_records = extract_entities(spacy_parsed)
    assert triples(ud_records) == triples(clear_records)
    assert len(ud_records) >= 4


def test_missing_models_raise_with_the_download_command(tmp_path: Path):
    with pytest.raises(ResourceMissingError) as info:
        load_stanza_pipeline(tmp_path)
    message = str(info.value)
    assert str(tmp_path) in message and "resources.json" in message
    assert download_command(str(tmp_path)) in message
    assert "stanza.download('en', model_dir=" in message


def test_resources_without_english_models(tmp_path: Path):
    (tmp_path / "resources.json").write_text(json.dumps({}))
    with pytest.raises(ResourceMissingError, match="no en/ folder"):
        load_stanza_pipeline(tmp_path)
    (tmp_path / "en").mkdir()
    (tmp_path / "resources.json").write_text(json.dumps({"en": {"lang_name": "English"}}))
    with pytest.raises(ResourceMissingError, match="download"):
        load_stanza_pipeline(tmp_path)
    with pytest.raises(ValueError, match="unknown download_method"):
        load_stanza_pipeline(tmp_path, download_method="sometimes")


def test_parser_object_is_lazy_and_reports_missing_models(tmp_path: Path):
    parser = StanzaParser(model_dir=str(tmp_path))
    assert isinstance(parser, Parser)
    cid = parser.config_id
    assert cid.startswith("stanza;") and "casing=auto" in cid
    assert "processors=tokenize,pos,lemma,depparse;" in cid      # no ner
    assert StanzaParser(model_dir=str(tmp_path), casing="lower").config_id != cid
    with pytest.raises(ResourceMissingError):
        list(parser.parse([Document("a", "THE ARMY ATTACKED.", "t", "t")]))
