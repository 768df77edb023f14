"""Readers for the original MUC-4 distribution: message texts, and splits with their keys.

Formats (see ``shared/data/muc4/README.md`` and ``dev/text-headers-info``):

* A text file is a concatenation of messages. A message starts with an ID line at column 0
  (``DEV-MUC3-0001 (NOSC)``, ``TST3-MUC4-0001``) that follows a blank line or the start of the
  file. Next come a dateline (``PLACE, DATE (SOURCE) --``) and bracketed header material
  (``[REPORT] [AUTHOR] [TEXT]``), then the body: paragraphs indented by three blanks, separated
  by blank lines, wrapped at about 70 columns.
* Key files are read by ``aesi_lib.corpus.muc4_keys``.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from aesi_lib.corpus.muc4_keys import read_muc4_keys
from aesi_lib.corpus.plain import decode_text, paragraphs_to_text, text_to_paragraphs
from aesi_lib.corpus.types import Document, KeyTemplate
from aesi_lib.errors import InputError

log = logging.getLogger(__name__)

MUC4_SPLITS: tuple[str, ...] = ("dev", "tst1", "tst2", "tst3", "tst4")

#: Environment variable naming the MUC-4 folder (see :func:`resolve_muc4_dir`).
MUC4_DIR_ENV = "AESI_MUC4_DIR"

# The folder that holds the aesi_lib package; the default corpus is ../shared/data/muc4 from it.
_REPO_ROOT = Path(__file__).resolve().parents[2]


# Text and key files of each split, relative to the MUC-4 folder.
_TEXT_GLOBS: dict[str, str] = {
    "dev": "dev/dev-muc3-*",
    "tst1": "tst1/tst1-muc3",
    "tst2": "tst2/tst2-muc4",
    "tst3": "tst3/tst3-muc4",
    "tst4": "tst4/tst4-muc4",
}
_KEY_GLOBS: dict[str, str] = {
    "dev": "dev/key-dev-*.muc4",
    "tst1": "tst1/key-tst1*",
    "tst2": "tst2/key-tst2*",
    "tst3": "tst3/key-tst3*",
    "tst4": "tst4/key-tst4*",
}


@dataclass(frozen=True)
class Muc4Split:
    """The messages of one split and, when its key files are present, their answer keys.

    ``keys`` is None when the split has no key file (TST3 and TST4 in the shared folder).
    """

    name: str
    documents: list[Document]
    keys: list[KeyTemplate] | None


# ----------------------------------------------------------------------------- message texts

# At least three digits after the last hyphen, so that a body line such as "AK-47" never
# passes for an ID line.
_ID_LINE = re.compile(r"^(?P<id>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d{3,})(?:\s+\([^()]*\))?\s*$")

# PLACE "," DATE {SOURCE} "--". The source part may hold a stray "[" (DEV-MUC3-1244), and the
# blank before "--" is sometimes missing (DEV-MUC3-0005).
_DATELINE = re.compile(r"^(?P<dateline>[^,\[\]]{1,80},[^\n]{1,150}?--)\s*")
_BRACKET = re.compile(r"\[(?P<tag>[^\[\]]*)\]\s*")

# Markers from text-headers-info: a GENERAL marker ends the header; SPECIFIC markers (and one
# author group right after them) and NOSC's continuation markers belong to it. In two messages
# (DEV-MUC3-0796, TST3-MUC4-0075) "[NEWS CONFERENCE WITH ...]" comes after "[TEXT]".
_GENERAL = frozenset({"TEXT", "SUMMARY", "EXCERPT", "EXCERPTS"})
_SPECIFIC = frozenset(
    {
        "STATEMENT",
        "SPEECH",
        "EDITORIAL REPORT",
        "EDITORIAL",
        "ARTICLE",
        "COMMENTARY",
        "STATION COMMENTARY",
        "COMMUNIQUE",
        "REPORT",
        "BULLETIN",
    }
)
_SPECIFIC_PREFIXES = ("INTERVIEW WITH ", "NEWS CONFERENCE WITH ", "REPORT ON ")
_CONTINUATION = frozenset({"CONTINUED", "BEGIN RECORDING"})


def _tag(match: re.Match[str]) -> str:
    return " ".join(match.group("tag").split()).upper()


def _is_header_marker(tag: str) -> bool:
    return tag in _SPECIFIC or tag in _CONTINUATION or tag.startswith(_SPECIFIC_PREFIXES)


def _bracket_run(paragraph: str, pos: int) -> list[re.Match[str]]:
    """The bracket groups that follow each other from ``pos`` on, blanks between them allowed."""
    run: list[re.Match[str]] = []
    while (m := _BRACKET.match(paragraph, pos)) is not None:
        run.append(m)
        pos = m.end()
    return run


def _header_groups(run: Sequence[re.Match[str]]) -> tuple[int, bool]:
    """How many groups of a bracket run belong to the header, and whether a GENERAL ends it."""
    tags = [_tag(m) for m in run]
    for k, tag in enumerate(tags):
        if tag in _GENERAL:
            end = k + 1
            while end < len(tags) and _is_header_marker(tags[end]):
                end += 1
            return end, True
    # No GENERAL marker (TST3-MUC4-0033: "[EDITORIAL REPORT] [CONTINUED] THE STATION ..."):
    # keep known markers, plus the author group that may follow a SPECIFIC marker.
    end = 0
    while end < len(tags):
        if _is_header_marker(tags[end]):
            end += 1
        elif end > 0 and tags[end - 1] in _SPECIFIC:
            end += 1
        else:
            break
    return end, False


def split_muc4_header(paragraphs: Sequence[str]) -> tuple[str, list[str]]:
    """Separate the dateline and bracketed header of a message from its body.

    The header is the dateline up to and including ``--``, then the bracket groups that follow
    it up to and including the first GENERAL marker (``[TEXT]``, ``[SUMMARY]``, ``[EXCERPT]``,
    ``[EXCERPTS]``), and the known markers right after it (``[CONTINUED]``,
    ``[BEGIN RECORDING]``, ``[NEWS CONFERENCE WITH ...]``). When a
    paragraph ends inside the header (``-- [INTERVIEW WITH ...]`` alone, then ``[EXCERPTS] ...``
    in the next paragraph), the header goes on in the next paragraph. Without a GENERAL marker
    only known markers (``[REPORT]``, ``[CONTINUED]``, ``[INTERVIEW WITH ...]``, ...) and an
    author group right after a SPECIFIC marker are taken. Speaker tags such as ``[HANDAL]`` after
    the header stay in the body. A message without a dateline has an empty header.

    Parameters
    ----------
    paragraphs : sequence of str
        The message after its ID line, as normalised paragraphs (see
        :func:`aesi_lib.corpus.plain.text_to_paragraphs`).

    Returns
    -------
    header : str
        Dateline and header groups joined with one space, e.g.
        ``"SAN SALVADOR, 3 JAN 90 -- [REPORT] [ARMED FORCES PRESS COMMITTEE, COPREFA] [TEXT]"``.
    body : list of str
        The remaining paragraphs (the first one shortened by the header).
    """
    if not paragraphs:
        return "", []
    m = _DATELINE.match(paragraphs[0])
    if m is None:
        return "", list(paragraphs)
    parts = [" ".join(m.group("dateline").split())]
    index, pos = 0, m.end()
    while True:
        paragraph = paragraphs[index]
        run = _bracket_run(paragraph, pos)
        taken, general = _header_groups(run)
        parts.extend(g.group(0).strip() for g in run[:taken])
        if taken:
            pos = run[taken - 1].end()
        rest_is_empty = not paragraph[pos:].strip()
        next_starts_bracketed = index + 1 < len(paragraphs) and paragraphs[index + 1][:1] == "["
        if general or not rest_is_empty or not next_starts_bracketed:
            break
        index, pos = index + 1, 0
    rest = paragraphs[index][pos:].strip()
    body = ([rest] if rest else []) + list(paragraphs[index + 1 :])
    return " ".join(parts), body


def _message_chunks(lines: Sequence[str], path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """(line number of the ID line, message ID, lines after the ID line) for each message."""
    start: tuple[int, str] | None = None
    body: list[str] = []
    stray: int | None = None
    previous_blank = True
    for lineno, line in enumerate(lines, 1):
        m = _ID_LINE.match(line) if previous_blank else None
        if m is not None:
            if stray is not None:
                raise InputError(path, f"line {stray}: text before the first message ID line")
            if start is not None:
                yield start[0], start[1], body
            start, body = (lineno, m.group("id")), []
        elif start is not None:
            body.append(line)
        elif line.strip() and stray is None:
            stray = lineno
        previous_blank = not line.strip()
    if start is None:
        raise InputError(path, "no message ID line found (expected e.g. 'TST1-MUC3-0001')")
    yield start[0], start[1], body


def read_muc4_messages(path: str | Path, split: str) -> list[Document]:
    """Read the messages of one MUC-4 text file.

    Parameters
    ----------
    path : str or Path
        A text file of concatenated messages (e.g. ``dev/dev-muc3-0001-0100``). Leading blank
        lines are allowed.
    split : str
        Stored in ``Document.split``.

    Returns
    -------
    list of Document
        In file order. ``doc_id`` is the first token of the ID line (``DEV-MUC3-0001 (NOSC)`` ->
        ``DEV-MUC3-0001``); ``header`` the dateline and bracketed header (see
        :func:`split_muc4_header`); ``text`` the body, paragraphs joined with ``"\\n\\n"`` and
        the lines of a paragraph joined with one space; ``source`` the path; ``original`` the
        message's lines after the ID line as the file has them (dateline, header and body),
        which exported character offsets index.

    Raises
    ------
    InputError
        For an empty, binary or non-UTF-8 file, text before the first ID line, a file without ID
        lines, a duplicate ID or a message without body text.
    """
    source = Path(path)
    if not source.is_file():
        raise InputError(source, "no such file")
    lines = decode_text(source.read_bytes(), source).splitlines()
    documents: list[Document] = []
    seen: dict[str, int] = {}
    for lineno, doc_id, body_lines in _message_chunks(lines, source):
        if doc_id in seen:
            raise InputError(
                source,
                f"line {lineno}: duplicate message ID {doc_id} (first on line {seen[doc_id]})",
            )
        seen[doc_id] = lineno
        header, body = split_muc4_header(text_to_paragraphs(body_lines))
        if not body:
            raise InputError(source, f"line {lineno}: message {doc_id} has no body text")
        documents.append(
            Document(
                doc_id=doc_id,
                text=paragraphs_to_text(body),
                split=split,
                source=str(source),
                header=header,
                # The message as the file has it after its ID line: what offsets index.
                original="\n".join(body_lines).rstrip(),
            )
        )
    return documents


def _split_files(muc4_dir: Path, pattern: str) -> list[Path]:
    return sorted(p for p in muc4_dir.glob(pattern) if p.is_file())


def _split_keys(muc4_dir: Path, split: str) -> list[KeyTemplate] | None:
    files = _split_files(muc4_dir, _KEY_GLOBS[split])
    if not files:
        return None
    if split != "dev" and len(files) > 1:
        # Several versions of one test key (key-tst1.v6, key-tst1.v7): the highest wins.
        log.warning("several key files for %s, using %s", split, files[-1])
        files = files[-1:]
    return [t for f in files for t in read_muc4_keys(f)]


def load_muc4_split(muc4_dir: str | Path, split: str) -> Muc4Split:
    """Load the texts and (when present) the answer keys of one MUC-4 split.

    Parameters
    ----------
    muc4_dir : str or Path
        The folder laid out as ``shared/data/muc4``: ``dev/dev-muc3-*`` and
        ``dev/key-dev-*.muc4``; ``tst1/tst1-muc3`` and ``tst1/key-tst1*``; ``tst2/tst2-muc4``
        and ``tst2/key-tst2*``; ``tst3/tst3-muc4``; ``tst4/tst4-muc4`` (upper case). A key file
        ``tst3/key-tst3*`` or ``tst4/key-tst4*`` is read when present.
    split : str
        One of :data:`MUC4_SPLITS`.

    Returns
    -------
    Muc4Split
        ``keys`` is None when the split has no key file.

    Raises
    ------
    InputError
        When the folder or the split's text files are missing, or a file is malformed.
    ValueError
        For an unknown split name.
    """
    if split not in MUC4_SPLITS:
        raise ValueError(f"unknown MUC-4 split {split!r}; expected one of {MUC4_SPLITS}")
    root = Path(muc4_dir)
    if not root.is_dir():
        raise InputError(root, "MUC-4 folder not found")
    texts = _split_files(root, _TEXT_GLOBS[split])
    if not texts:
        raise InputError(root / _TEXT_GLOBS[split], f"no text file for split {split}")
    documents = [d for f in texts for d in read_muc4_messages(f, split)]
    return Muc4Split(name=split, documents=documents, keys=_split_keys(root, split))


def load_muc4_corpus(muc4_dir: str | Path, splits: Iterable[str] = MUC4_SPLITS) -> list[Muc4Split]:
    """Load several MUC-4 splits (all five by default), in the order given."""
    return [load_muc4_split(muc4_dir, s) for s in splits]


def resolve_muc4_dir(explicit: str | Path | None = None) -> Path | None:
    """Find the MUC-4 folder: the folder of :func:`find_muc4_dir`, or None."""
    return find_muc4_dir(explicit)[0]


def find_muc4_dir(explicit: str | Path | None = None) -> tuple[Path | None, str]:
    """Find the MUC-4 folder and say how it was found.

    Order: ``explicit``; else the environment variable ``AESI_MUC4_DIR``; else
    ``../shared/data/muc4`` relative to the current directory; else the same relative to the
    repository root (the folder that holds the ``aesi_lib`` package).

    Returns
    -------
    folder : Path or None
        The first candidate that is a folder, or None when neither default exists.
    found_by : str
        ``"explicit"``, ``"environment"``, ``"default"`` or ``""`` (none found).

    Raises
    ------
    InputError
        When ``explicit`` or ``AESI_MUC4_DIR`` is given but is not a folder (a path the user
        chose should not be silently replaced by a default).
    """
    if explicit is not None:
        chosen = Path(explicit).expanduser()
        if not chosen.is_dir():
            raise InputError(chosen, "MUC-4 folder not found")
        return chosen, "explicit"
    from_env = os.environ.get(MUC4_DIR_ENV)
    if from_env:
        chosen = Path(from_env).expanduser()
        if not chosen.is_dir():
            raise InputError(chosen, f"MUC-4 folder named by {MUC4_DIR_ENV} not found")
        return chosen, "environment"
    for base in (Path.cwd(), _REPO_ROOT):
        candidate = base.parent / "shared" / "data" / "muc4"
        if candidate.is_dir():
            return candidate, "default"
    return None, ""
