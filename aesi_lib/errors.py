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


class StoreDamagedError(InputError):
    """The project's DuckDB file exists but cannot be read (truncated, overwritten); the message
    says how to recover."""

    def __reduce__(self) -> tuple[type[StoreDamagedError], tuple[str, str]]:
        return (type(self), (self.path, self.problem))


class NotWritableError(InputError):
    """A folder the command will write to cannot be created or written."""


class ApiUnreachableError(AesiError):
    """The Prefect API the environment names does not answer."""


class ConfigError(AesiError, ValueError):
    """A configuration value is of the wrong type, out of range or not one of its choices.

    Also a ``ValueError``, which the dataclasses of the configuration raised before, so callers
    that catch that keep working. ``problems`` holds ``(key, message)`` pairs, the key a dotted
    path such as ``model.n_templates`` (``""`` for the configuration as a whole), so that the
    command line can name its own option beside the key.
    """

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(f"{key}: {message}" if key else message
                                   for key, message in self.problems))

    def __reduce__(self) -> tuple[type[ConfigError], tuple[list[tuple[str, str]]]]:
        # Task results and Dask move exceptions between processes by pickling; the default
        # would call ConfigError(message) and lose the problems.
        return (type(self), (self.problems,))


class NoEntitiesError(AesiError, ValueError):
    """The documents hold no entity mention at all: nothing to induce (also a ``ValueError``,
    which this case raised before)."""

    def __init__(self, what: str = "the documents") -> None:
        super().__init__(f"{what} hold no entity mention (no noun argument of a verb was "
                         "found): nothing to induce; is the corpus running English text?")

    def __reduce__(self) -> tuple[type[NoEntitiesError], tuple[()]]:
        return (type(self), ())
