"""The interface every parser backend implements."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, runtime_checkable

from aesi_lib.corpus.types import Document
from aesi_lib.parse.types import ParsedDocument

# Bump when the conversion of a backend's output into the neutral format changes, so that
# cached parses made by older code are not reused.
PARSE_FORMAT_VERSION = 1


@runtime_checkable
class Parser(Protocol):
    """A parser backend.

    ``config_id`` names everything that changes the output (backend, library and model version,
    casing strategy, options, :data:`PARSE_FORMAT_VERSION`); the parse cache keys on it.
    ``parse`` yields one :class:`ParsedDocument` per input document, in input order, with the
    document's ``doc_id``; backends batch internally.
    """

    @property
    def config_id(self) -> str:
        """A stable string naming the backend configuration."""
        ...

    def parse(self, docs: Iterable[Document]) -> Iterator[ParsedDocument]:
        """Parse ``docs`` lazily, one result per document, in order."""
        ...


def format_config_id(backend: str, **parts: object) -> str:
    """Render a config id as ``backend;key=value;...`` with the keys sorted (stable)."""
    items = [f"{key}={parts[key]}" for key in sorted(parts)]
    return ";".join([backend, f"format={PARSE_FORMAT_VERSION}", *items])
