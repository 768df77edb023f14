"""Which parser backend turns text into the neutral parse format, and how to load it."""

from __future__ import annotations

from dataclasses import dataclass

from aesi_lib.parse.base import Parser
from aesi_lib.parse.casing import DEFAULT_CASING


@dataclass(frozen=True)
class ParserConfig:
    """Which parser turns text into the neutral parse format."""

    backend: str = "spacy"
    casing: str = DEFAULT_CASING
    ner: bool = False
    model: str | None = None
    stanza_dir: str | None = None
    batch_size: int = 32


def make_parser(config: ParserConfig) -> Parser:
    """The parser backend named by ``config``."""
    if config.backend == "spacy":
        from aesi_lib.parse.spacy_backend import DEFAULT_SPACY_MODEL, SpacyParser

        return SpacyParser(model=config.model or DEFAULT_SPACY_MODEL, casing=config.casing,
                           ner=config.ner, batch_size=config.batch_size)
    if config.backend == "stanza":
        from aesi_lib.parse.stanza_backend import StanzaParser

        return StanzaParser(model_dir=config.stanza_dir, casing=config.casing, ner=config.ner)
    raise ValueError(f"unknown parser backend {config.backend!r}: use spacy or stanza")
