"""Per-document parse cache (aesi_lib.parse.cache)."""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.parse.cache import (
    CacheWarning,
    cache_path,
    decode_parse,
    encode_parse,
    parse_with_cache,
)
from aesi_lib.parse.spacy_backend import SpacyParser
from aesi_lib.parse.types import ParsedDocument, Sentence, Token


@dataclass
class FakeParser:
    """One sentence per document, one token per word; records what it was asked to parse."""

    option: str = "a"
    calls: list[str] = field(default_factory=list)

    @property
    def config_id(self) -> str:
        return f"fake;option={self.option}"

    def parse(self, docs: Iterable[Document]) -> Iterator[ParsedDocument]:
        for doc in docs:
            self.calls.append(doc.doc_id)
            words = doc.text.split()
            tokens = tuple(Token(text=w, lemma=w.lower(), upos="NOUN", tag="NN",
                                 head=-1 if i == 0 else 0, dep="ROOT" if i == 0 else "dep",
                                 ent_type="ORG" if w.isupper() else "", start_char=i,
                                 whitespace_after=i % 2 == 0)
                           for i, w in enumerate(words))
            yield ParsedDocument(doc.doc_id, (Sentence(tokens),) if tokens else ())


def docs(*texts: str) -> list[Document]:
    return [Document(f"D{i}", t, "test", "test") for i, t in enumerate(texts)]


def test_second_run_parses_nothing_and_one_new_document_parses_one(tmp_path: Path):
    parser = FakeParser()
    corpus = docs("a b c", "d e", "f")
    first, stats = parse_with_cache(parser, corpus, tmp_path)
    assert (stats.parsed, stats.reused) == (3, 0)
    again, stats = parse_with_cache(parser, corpus, tmp_path)
    assert (stats.parsed, stats.reused) == (0, 3)
    assert again == first
    parser.calls.clear()
    grown = [*corpus, Document("NEW", "g h", "test", "test")]
    out, stats = parse_with_cache(parser, grown, tmp_path)
    assert (stats.parsed, stats.reused, stats.total) == (1, 3, 4)
    assert parser.calls == ["NEW"]
    assert [p.doc_id for p in out] == ["D0", "D1", "D2", "NEW"]


def test_changed_text_or_config_is_a_miss(tmp_path: Path):
    parse_with_cache(FakeParser(), docs("a b", "c d"), tmp_path)
    _, stats = parse_with_cache(FakeParser(), docs("a b", "c d e"), tmp_path)
    assert stats.parsed == 1
    _, stats = parse_with_cache(FakeParser(option="b"), docs("a b", "c d e"), tmp_path)
    assert stats.parsed == 2
    # Each configuration has its own folder with its full id written down.
    ids = sorted(p.read_text().strip() for p in tmp_path.glob("*/config_id.txt"))
    assert ids == ["fake;option=a", "fake;option=b"]


def test_key_is_the_text_not_the_id(tmp_path: Path):
    parse_with_cache(FakeParser(), [Document("OLD", "same text", "s", "s")], tmp_path)
    out, stats = parse_with_cache(FakeParser(), [Document("RENAMED", "same text", "s", "s")],
                                  tmp_path)
    assert stats.parsed == 0
    assert out[0].doc_id == "RENAMED"


def test_duplicate_texts_are_parsed_once(tmp_path: Path):
    parser = FakeParser()
    out, stats = parse_with_cache(parser, docs("x y", "x y", "z"), tmp_path)
    assert parser.calls == ["D0", "D2"]
    assert (stats.parsed, stats.reused) == (2, 1)
    assert [p.doc_id for p in out] == ["D0", "D1", "D2"]
    assert out[0].sentences == out[1].sentences


@pytest.mark.parametrize("damage", ["truncate", "garbage", "bad_json", "wrong_layout", "empty"])
def test_corrupt_entry_is_reported_and_reparsed(tmp_path: Path, damage: str):
    parser = FakeParser()
    corpus = docs("a b c", "d e")
    first, _ = parse_with_cache(parser, corpus, tmp_path)
    path = cache_path(tmp_path, parser.config_id, corpus[0].text)
    data = path.read_bytes()
    broken = {
        "truncate": data[: len(data) // 2],
        "garbage": b"\x00\x01 not gzip at all",
        "bad_json": gzip.compress(b'{"v": 1, "sentences": [{"text": '),
        "wrong_layout": gzip.compress(b'{"v": 1, "sentences": [{"text": ["a"]}]}'),
        "empty": b"",
    }[damage]
    path.write_bytes(broken)
    parser.calls.clear()
    with pytest.warns(CacheWarning, match=str(path.name)):
        out, stats = parse_with_cache(parser, corpus, tmp_path)
    assert parser.calls == ["D0"]
    assert (stats.parsed, stats.reused, stats.corrupt) == (1, 1, 1)
    assert out == first
    # The entry was replaced: the next run is clean.
    _, stats = parse_with_cache(parser, corpus, tmp_path)
    assert (stats.parsed, stats.corrupt) == (0, 0)


def test_encode_decode_round_trip():
    parsed = next(FakeParser().parse(docs("The FMLN attacked Lima")))
    assert decode_parse(encode_parse(parsed), "D0") == parsed
    with pytest.raises(ValueError):
        decode_parse(b"nonsense", "D0")


def test_no_temporary_files_left(tmp_path: Path):
    parse_with_cache(FakeParser(), docs("a", "b", "c"), tmp_path)
    assert not list(tmp_path.rglob(".tmp-*"))
    assert len(list(tmp_path.rglob("*.json.gz"))) == 3


def test_real_parser_round_trip(tmp_path: Path):
    parser = SpacyParser()
    corpus = docs("THE GUERRILLAS KILLED THE PRIEST IN SAN MIGUEL.\n\nTHE ARMY SAID NOTHING.",
                  "The bomb exploded.")
    first, stats = parse_with_cache(parser, corpus, tmp_path)
    assert stats.parsed == 2
    second, stats = parse_with_cache(parser, corpus, tmp_path)
    assert stats.parsed == 0
    assert second == first == list(parser.parse(corpus))


def test_remembered_config_ids_round_trip_and_a_damaged_file_counts_as_empty(tmp_path):
    from aesi_lib.parse.config_ids import (
        config_ids_path,
        remember_config_id,
        remembered_config_ids,
    )

    assert remembered_config_ids(tmp_path / "cache") == {}
    remember_config_id(tmp_path / "cache", "parser-a", "spacy:a")
    remember_config_id(tmp_path / "cache", "parser-b", "spacy:b")
    assert remembered_config_ids(tmp_path / "cache") == {"parser-a": "spacy:a",
                                                         "parser-b": "spacy:b"}
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["config-ids.json"]
    config_ids_path(tmp_path / "cache").write_text("{cut sh")
    assert remembered_config_ids(tmp_path / "cache") == {}
    remember_config_id(tmp_path / "cache", "parser-c", "spacy:c")
    assert remembered_config_ids(tmp_path / "cache") == {"parser-c": "spacy:c"}
