"""Exceptions with messages that name the file and the problem."""

from __future__ import annotations

import errno
import re
from dataclasses import dataclass
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


class ProjectLockedError(InputError):
    """Another ``aesi`` process holds the project lock (``aesi_lib.project_lock``): it writes
    the same project folder."""

    def __reduce__(self) -> tuple[type[ProjectLockedError], tuple[str, str]]:
        return (type(self), (self.path, self.problem))


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


@dataclass(frozen=True)
class WriteFault:
    """A write that failed for a reason of the machine, not of the input: the disk is full,
    a quota is reached, the device reports an I/O error, or the file system is read-only.
    Retrying at once cannot help; rerunning once it is fixed resumes where the command
    stopped (the finished steps are cached, the store's writes are transactions, and every
    cached file is written whole: :mod:`aesi_lib.files`).

    ``path`` is the file being written when the error names one, else None; ``verb`` how the
    message joins the reason to the place (``writing``, or ``on`` for an I/O error, which may
    come from a read).
    """

    reason: str
    remedy: str
    path: str | None = None
    verb: str = "writing"

    def message(self, fallback: str = "") -> str:
        """One line: what failed, where, and what to do (``fallback`` names the place when
        the error did not)."""
        where = self.path or fallback
        if not where:
            return f"{self.reason}: {self.remedy}"
        return f"{self.reason} {self.verb} {where}: {self.remedy}"


_RESUMES = "rerun the same command; nothing done is lost (the finished steps are kept)"
# errno -> (the C library's phrase, reason, verb, remedy). The phrase finds the errors that
# carry no errno (DuckDB's, pyarrow's) but quote it in their message.
_WRITE_FAULTS: dict[int, tuple[str, str, str, str]] = {
    errno.ENOSPC: ("No space left on device", "no space left on device", "writing",
                   f"free space there and {_RESUMES}"),
    errno.EDQUOT: ("Disk quota exceeded", "disk quota exceeded", "writing",
                   f"free space or raise the quota, and {_RESUMES}"),
    errno.EIO: ("Input/output error", "I/O error", "on",
                f"check the device (its kernel log: dmesg) and {_RESUMES}"),
    errno.EROFS: ("Read-only file system", "read-only file system", "writing",
                  f"make it writable (or give another --project-dir / --out) and {_RESUMES}"),
}
_QUOTED_PATH = re.compile(r"\"(/[^\"]+)\"|'(/[^']+)'")


def write_fault(exc: BaseException | None) -> WriteFault | None:
    """The :class:`WriteFault` behind ``exc`` (itself, or an exception it was raised from or
    while handling), or None when it is something else.

    An ``OSError`` counts by its errno (``ENOSPC``, ``EDQUOT``, ``EIO``, ``EROFS``), its
    ``filename`` the path; any other exception by the C library's phrase for one of them in
    its message, the first absolute path quoted there the path (DuckDB: ``Could not write
    file "/p/aesi.duckdb.wal": No space left on device``).
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _WRITE_FAULTS:
            _, reason, verb, remedy = _WRITE_FAULTS[exc.errno]
            path = None if exc.filename is None else str(exc.filename)
            return WriteFault(reason, remedy, path, verb)
        fault = write_fault_in_text(str(exc))
        if fault is not None:
            return fault
        exc = exc.__cause__ or exc.__context__
    return None


def write_fault_in_text(text: str) -> WriteFault | None:
    """The :class:`WriteFault` a message reports by the C library's phrase for it (an error
    without an errno, or a log line that quotes one), the first absolute path quoted in it as
    the path; None when it names none."""
    lowered = text.lower()
    for phrase, reason, verb, remedy in _WRITE_FAULTS.values():
        if phrase.lower() in lowered:
            quoted = _QUOTED_PATH.search(text)
            path = next((g for g in quoted.groups() if g), None) if quoted else None
            return WriteFault(reason, remedy, path, verb)
    return None
