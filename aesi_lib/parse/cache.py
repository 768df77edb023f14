"""Per-document parse cache.

A parse is stored under ``<cache_dir>/<config>/<hh>/<sha256 of text>.json.gz``, where
``<config>`` is a short hash of the parser's ``config_id`` (the full id is written next to it in
``config_id.txt``) and ``<hh>`` the first two hex digits of the text hash. The key is the text
and the parser configuration only: a document whose text is unchanged is never parsed again,
whatever its id; a changed text or a changed parser configuration is a miss.

The file holds compact column lists per sentence (gzip-compressed JSON); it is written to a
temporary file and renamed, so a crash leaves no half-written entry. A file that cannot be read
back (truncated, corrupt, wrong layout) is reported with a warning that names it, and the
document is parsed again and the file replaced.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aesi_lib.corpus.types import Document
from aesi_lib.files import replacing
from aesi_lib.parse.base import Parser
from aesi_lib.parse.types import ParsedDocument, Sentence, Token

CACHE_LAYOUT_VERSION = 1
_COLUMNS = ("text", "lemma", "upos", "tag", "head", "dep", "ent", "start")


class CacheWarning(UserWarning):
    """A cache entry was unreadable and is being rebuilt."""


@dataclass(frozen=True)
class CacheStats:
    """What :func:`parse_with_cache` did.

    ``parsed`` documents went through the parser, ``reused`` came from the cache (or from an
    identical text parsed in the same call); ``corrupt`` counts unreadable cache files that were
    replaced (those documents are among ``parsed``).
    """

    parsed: int
    reused: int
    corrupt: int = 0

    @property
    def total(self) -> int:
        return self.parsed + self.reused


def text_hash(text: str) -> str:
    """sha256 hex digest of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def config_dir(cache_dir: str | os.PathLike[str], config_id: str) -> Path:
    """The folder of one parser configuration inside ``cache_dir``."""
    digest = hashlib.sha256(config_id.encode("utf-8")).hexdigest()[:16]
    return Path(cache_dir) / digest


def cache_path(cache_dir: str | os.PathLike[str], config_id: str, text: str) -> Path:
    """Where the parse of ``text`` under ``config_id`` lives."""
    digest = text_hash(text)
    return config_dir(cache_dir, config_id) / digest[:2] / f"{digest}.json.gz"


def encode_parse(parsed: ParsedDocument) -> bytes:
    """Serialise a parse (without its doc_id) as gzip-compressed column JSON."""
    sentences = []
    for sentence in parsed.sentences:
        toks = sentence.tokens
        sentences.append({
            "text": [t.text for t in toks],
            "lemma": [t.lemma for t in toks],
            "upos": [t.upos for t in toks],
            "tag": [t.tag for t in toks],
            "head": [t.head for t in toks],
            "dep": [t.dep for t in toks],
            "ent": [t.ent_type for t in toks],
            "start": [t.start_char for t in toks],
            "ws": "".join("1" if t.whitespace_after else "0" for t in toks),
        })
    payload = {"v": CACHE_LAYOUT_VERSION, "sentences": sentences}
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return gzip.compress(raw, compresslevel=6, mtime=0)


def decode_parse(data: bytes, doc_id: str) -> ParsedDocument:
    """Inverse of :func:`encode_parse`.

    Raises
    ------
    ValueError
        When the data is not a complete, well-formed entry (any gzip/JSON/layout problem).
    """
    try:
        payload = json.loads(gzip.decompress(data).decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"unreadable: {exc}") from exc
    if not isinstance(payload, dict) or payload.get("v") != CACHE_LAYOUT_VERSION:
        raise ValueError("unknown layout version")
    sentences = []
    try:
        for cols in payload["sentences"]:
            n = len(cols["text"])
            if any(len(cols[c]) != n for c in _COLUMNS) or len(cols["ws"]) != n:
                raise ValueError("columns of different lengths")
            tokens = tuple(
                Token(text=cols["text"][i], lemma=cols["lemma"][i], upos=cols["upos"][i],
                      tag=cols["tag"][i], head=int(cols["head"][i]), dep=cols["dep"][i],
                      ent_type=cols["ent"][i], start_char=int(cols["start"][i]),
                      whitespace_after=cols["ws"][i] == "1")
                for i in range(n)
            )
            sentences.append(Sentence(tokens=tokens))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed entry: {exc!r}") from exc
    return ParsedDocument(doc_id=doc_id, sentences=tuple(sentences))


def _write_atomic(path: Path, data: bytes) -> None:
    with replacing(path, unique=True) as tmp:
        tmp.write_bytes(data)


def _read_entry(path: Path, doc_id: str) -> tuple[ParsedDocument | None, bool]:
    """(parse, was_corrupt) for one cache file; (None, False) when there is none."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, False
    except OSError as exc:
        warnings.warn(f"parse cache file {path} cannot be read ({exc}); re-parsing",
                      CacheWarning, stacklevel=3)
        return None, True
    try:
        return decode_parse(data, doc_id), False
    except ValueError as exc:
        warnings.warn(f"parse cache file {path} is corrupt ({exc}); re-parsing and replacing it",
                      CacheWarning, stacklevel=3)
        return None, True


def parse_with_cache(parser: Parser, docs: Iterable[Document],
                     cache_dir: str | os.PathLike[str], config_id: str | None = None
                     ) -> tuple[list[ParsedDocument], CacheStats]:
    """Parse ``docs``, reusing cached parses and storing new ones.

    Parameters
    ----------
    parser
        Any :class:`~aesi_lib.parse.base.Parser`; its ``config_id`` is part of the key.
    docs
        The documents; results come back in the same order.
    cache_dir
        Root folder of the cache (created when missing).
    config_id
        ``parser.config_id`` when the caller knows it already (a parser may have to load its
        model to say it); the parser is then used only for the documents not in the cache.

    Returns
    -------
    (list of ParsedDocument, CacheStats)
        The parses (each with its document's ``doc_id``) and how many were parsed or reused.
    """
    docs = list(docs)
    config_id = parser.config_id if config_id is None else config_id
    folder = config_dir(cache_dir, config_id)
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / "config_id.txt"
    if not marker.exists():
        _write_atomic(marker, (config_id + "\n").encode("utf-8"))

    results: list[ParsedDocument | None] = [None] * len(docs)
    misses: list[int] = []
    corrupt = 0
    paths = [cache_path(cache_dir, config_id, doc.text) for doc in docs]
    for i, (doc, path) in enumerate(zip(docs, paths, strict=True)):
        parsed, was_corrupt = _read_entry(path, doc.doc_id)
        corrupt += was_corrupt
        if parsed is None:
            misses.append(i)
        else:
            results[i] = parsed
    n_parsed = _parse_misses(parser, docs, paths, misses, results)
    stats = CacheStats(parsed=n_parsed, reused=len(docs) - n_parsed, corrupt=corrupt)
    return [r for r in results if r is not None], stats


def _parse_misses(parser: Parser, docs: Sequence[Document], paths: Sequence[Path],
                  misses: Sequence[int], results: list[Any]) -> int:
    """Parse the documents at ``misses`` in one batched call; store and place the results.

    Returns the number of documents actually parsed (a text repeated among the misses is
    parsed once).
    """
    if not misses:
        return 0
    # Identical texts among the misses are parsed once.
    first_of: dict[Path, int] = {}
    to_parse: list[int] = []
    for i in misses:
        if paths[i] not in first_of:
            first_of[paths[i]] = i
            to_parse.append(i)
    parsed_iter = parser.parse(docs[i] for i in to_parse)
    for i, parsed in zip(to_parse, parsed_iter, strict=True):
        _write_atomic(paths[i], encode_parse(parsed))
        results[i] = parsed
    for i in misses:
        if results[i] is None:
            source = results[first_of[paths[i]]]
            results[i] = ParsedDocument(doc_id=docs[i].doc_id, sentences=source.sentences)
    return len(to_parse)
