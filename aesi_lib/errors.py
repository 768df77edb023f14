"""Exceptions with messages that name the file and the problem."""

from __future__ import annotations

from pathlib import Path


class AesiError(Exception):
    """Base class of every error aesi raises on purpose."""


class InputError(AesiError):
    """A user-supplied file is unusable: empty, binary, badly encoded or malformed."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class ResourceMissingError(AesiError):
    """A model or data resource (parser model, WordNet, vectors) is not installed."""


class StoreLockedError(AesiError):
    """Another process holds the project's DuckDB database for writing."""
