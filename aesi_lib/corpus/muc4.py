"""Readers for the original MUC-4 distribution: message texts and answer keys.

Formats (see ``shared/data/muc4/README.md`` and ``dev/text-headers-info``):

* A text file is a concatenation of messages. A message starts with an ID line at column 0
  (``DEV-MUC3-0001 (NOSC)``, ``TST3-MUC4-0001``) that follows a blank line or the start of the
  file. Next come a dateline (``PLACE, DATE (SOURCE) --``) and bracketed header material
  (``[REPORT] [AUTHOR] [TEXT]``), then the body: paragraphs indented by three blanks, separated
  by blank lines, wrapped at about 70 columns.
* A key file is a sequence of blocks separated by blank lines. Each block has the 25 numbered
  slots ``0.`` to ``24.``; the value starts after the slot label (column 36 in the distribution);
  an extra filler of a slot is a continuation line indented to the value column. Lines that
  start with ``;`` are comments.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from aesi_lib.corpus.plain import decode_text, paragraphs_to_text, text_to_paragraphs
from aesi_lib.corpus.types import Document, KeyFiller, KeyTemplate
from aesi_lib.errors import InputError

log = logging.getLogger(__name__)

MUC4_SPLITS: tuple[str, ...] = ("dev", "tst1", "tst2", "tst3", "tst4")

#: Environment variable naming the MUC-4 folder (see :func:`resolve_muc4_dir`).
MUC4_DIR_ENV = "AESI_MUC4_DIR"

# The folder that holds the aesi_lib package; the default corpus is ../shared/data/muc4 from it.
_REPO_ROOT = Path(__file__).resolve().parents[2]

#: Labels of the 25 slots of a MUC-4 template, indexed by slot number.
SLOT_LABELS: tuple[str, ...] = (
    "MESSAGE: ID",
    "MESSAGE: TEMPLATE",
    "INCIDENT: DATE",
    "INCIDENT: LOCATION",
    "INCIDENT: TYPE",
    "INCIDENT: STAGE OF EXECUTION",
    "INCIDENT: INSTRUMENT ID",
    "INCIDENT: INSTRUMENT TYPE",
    "PERP: INCIDENT CATEGORY",
    "PERP: INDIVIDUAL ID",
    "PERP: ORGANIZATION ID",
    "PERP: ORGANIZATION CONFIDENCE",
    "PHYS TGT: ID",
    "PHYS TGT: TYPE",
    "PHYS TGT: NUMBER",
    "PHYS TGT: FOREIGN NATION",
    "PHYS TGT: EFFECT OF INCIDENT",
    "PHYS TGT: TOTAL NUMBER",
    "HUM TGT: NAME",
    "HUM TGT: DESCRIPTION",
    "HUM TGT: TYPE",
    "HUM TGT: NUMBER",
    "HUM TGT: FOREIGN NATION",
    "HUM TGT: EFFECT OF INCIDENT",
    "HUM TGT: TOTAL NUMBER",
)
N_SLOTS = len(SLOT_LABELS)

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
        the lines of a paragraph joined with one space; ``source`` the path.

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
            )
        )
    return documents


# ----------------------------------------------------------------------------- answer keys

_SLOT_LINE = re.compile(r"^(?P<num>\d+)\.(?=\s)\s*(?P<rest>.*)$")
_OPTIONAL_TEMPLATE = re.compile(r"\(\s*OPTIONAL\s*\)", re.IGNORECASE)
_EMPTY_VALUES = frozenset({"", "-", "*"})
# Control characters other than tab mean binary junk, not a key.
_JUNK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class _Line:
    number: int
    text: str


def _key_lines(data: bytes, path: Path) -> list[_Line]:
    """The lines of a key file, refusing binary junk with the number of the offending line."""
    if not data.strip():
        raise InputError(path, "empty file")
    out: list[_Line] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise InputError(path, f"line {number}: non-text bytes (not UTF-8)") from None
        if _JUNK.search(text.rstrip("\r")):
            raise InputError(path, f"line {number}: control characters (binary junk)")
        out.append(_Line(number, text.rstrip()))
    return out


def _key_blocks(lines: Iterable[_Line]) -> Iterator[list[_Line]]:
    """Blocks of slot and continuation lines; blank lines end a block, comments are dropped."""
    block: list[_Line] = []
    for line in lines:
        if line.text.lstrip().startswith(";"):
            continue
        if not line.text.strip():
            if block:
                yield block
            block = []
            continue
        block.append(line)
    if block:
        yield block


def _slot_value(number: int, rest: str, line: _Line, path: Path) -> str:
    """The value of a slot line: the text after the slot's label."""
    label = SLOT_LABELS[number]
    if rest.upper().startswith(label):
        value = rest[len(label) :]
        if not value or value[0] in " \t":
            return value.strip()
    raise InputError(path, f"line {line.number}: slot {number} should start with label {label!r}")


def _block_slots(block: Sequence[_Line], path: Path) -> dict[int, list[tuple[_Line, str]]]:
    """Slot number -> its (line, value) fillers in file order, checking the slot structure."""
    slots: dict[int, list[tuple[_Line, str]]] = {}
    current: int | None = None
    for line in block:
        if line.text[:1] in " \t":
            if current is None:
                raise InputError(path, f"line {line.number}: continuation line before any slot")
            slots[current].append((line, line.text.strip()))
            continue
        m = _SLOT_LINE.match(line.text)
        if m is None:
            raise InputError(
                path, f"line {line.number}: cannot parse slot number in {line.text[:40]!r}"
            )
        number = int(m.group("num"))
        if number >= N_SLOTS:
            raise InputError(path, f"line {line.number}: slot number {number} is not in 0-24")
        if number in slots:
            raise InputError(path, f"line {line.number}: slot {number} appears twice in a block")
        slots[number] = [(line, _slot_value(number, m.group("rest"), line, path))]
        current = number
    missing = [n for n in range(N_SLOTS) if n not in slots]
    if missing:
        names = ", ".join(str(n) for n in missing)
        raise InputError(
            path, f"line {block[0].number}: block has no slot {names} (MUC-4 keys have slots 0-24)"
        )
    return slots


def _flush(buffer: list[str], out: list[str]) -> None:
    # Unquoted text: a stray quote here is a typo (`MACHINEGUNS"` in key-dev-0201).
    out.append("".join(buffer).strip().strip('"').strip())
    buffer.clear()


def _read_quoted(value: str, start: int) -> tuple[str, int]:
    """The text of the quoted string opening at ``start`` (``\\"`` unescaped) and the index
    after it; an unterminated string runs to the end of the value."""
    chars: list[str] = []
    i = start + 1
    while i < len(value) and value[i] != '"':
        if value[i] == "\\" and i + 1 < len(value):
            i += 1
        chars.append(value[i])
        i += 1
    return "".join(chars), i + 1


def split_alternatives(value: str) -> tuple[str, ...]:
    """The alternative strings of one filler value (without its ``?`` marker).

    The value is cut at top-level ``/`` (outside quotes and parentheses) and at a colon that
    is followed by a quoted string (the colon clause ``SET VALUE: "STRING"`` or
    ``"DESCRIPTION": "NAME"``); colons inside a location (``PERU: LIMA (CITY)``) stay. Quotes
    are removed (``\\"`` inside a string becomes ``"``), pieces are stripped, and empty pieces,
    ``-`` and ``*`` are dropped, as are repeats.

    Examples
    --------
    >>> split_alternatives('"FARABUNDO MARTI NATIONAL LIBERATION FRONT" / "FMLN"')
    ('FARABUNDO MARTI NATIONAL LIBERATION FRONT', 'FMLN')
    >>> split_alternatives('CIVILIAN: "JESUITS"')
    ('CIVILIAN', 'JESUITS')
    >>> split_alternatives('GUN: "-"')
    ('GUN',)
    """
    pieces: list[str] = []
    buffer: list[str] = []
    depth = 0
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == '"':
            _flush(buffer, pieces)
            text, i = _read_quoted(value, i)
            # A slash left at an end comes from a broken quote (`"16 OTHERS / "OTHERS"`).
            pieces.append(text.strip().strip("/").strip())
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if ch == "/" and depth == 0:
            _flush(buffer, pieces)
        elif ch == ":" and value[i + 1 :].lstrip().startswith('"'):
            _flush(buffer, pieces)
        else:
            buffer.append(ch)
        i += 1
    _flush(buffer, pieces)
    out: list[str] = []
    for piece in pieces:
        if piece not in _EMPTY_VALUES and piece not in out:
            out.append(piece)
    return tuple(out)


def parse_filler(value: str) -> KeyFiller | None:
    """One filler line's value as a :class:`KeyFiller`, or None when it is empty.

    A leading ``?`` (with or without a blank after it) marks an optional filler. ``-`` and ``*``
    (also ``? -``) are empty. ``raw`` keeps the value as written, without surrounding blanks.
    """
    raw = value.strip()
    optional = raw.startswith("?")
    body = raw[1:].strip() if optional else raw
    if body in _EMPTY_VALUES:
        return None
    alternatives = split_alternatives(body)
    if not alternatives:
        return None
    return KeyFiller(alternatives=alternatives, optional=optional, raw=raw)


def _template(block: Sequence[_Line], path: Path) -> KeyTemplate:
    slots = _block_slots(block, path)
    id_line, id_value = slots[0][0]
    if not id_value or len(slots[0]) > 1:
        raise InputError(path, f"line {id_line.number}: slot 0 must hold exactly one message ID")
    message_id = id_value.split()[0]
    number_line, number_value = slots[1][0]
    if not number_value or len(slots[1]) > 1:
        raise InputError(path, f"line {number_line.number}: slot 1 must hold the template number")
    template_number = number_value.split()[0]
    values = [value for n in range(1, N_SLOTS) for _, value in slots[n]]
    fillers = {
        n: tuple(f for f in (parse_filler(v) for _, v in slots[n]) if f is not None)
        for n in range(2, N_SLOTS)
    }
    types = tuple(t for f in fillers[4] for t in f.alternatives)
    number_filler = KeyFiller(alternatives=(template_number,), optional=False, raw=number_value)
    return KeyTemplate(
        message_id=message_id,
        template_number=template_number,
        optional=_OPTIONAL_TEMPLATE.search(number_value) is not None,
        is_irrelevant=all(v == "*" for v in values),
        incident_types=types,
        slots={
            0: (KeyFiller(alternatives=(message_id,), optional=False, raw=id_value),),
            1: () if template_number == "*" else (number_filler,),
            **fillers,
        },
        source=str(path),
    )


def read_muc4_keys(path: str | Path) -> list[KeyTemplate]:
    """Read a MUC-4 answer-key file.

    Parameters
    ----------
    path : str or Path
        Any key file in MUC-4 format (``key-dev-0001.muc4``, ``key-tst1.v7``, a TST3/TST4 key
        given by path, ...).

    Returns
    -------
    list of KeyTemplate
        One per block, in file order. Quirks handled: ``;`` comment lines anywhere; blank lines
        between blocks; slot labels followed by blanks or tabs, trailing blanks and tabs;
        continuation lines (one extra filler each); ``(OPTIONAL)`` in slot 1 (``optional``);
        ``?`` before a filler (``KeyFiller.optional``); ``-`` and ``*`` as empty fills;
        ``" / "`` alternatives and colon clauses (see :func:`split_alternatives`); slot 0 site
        tags (``DEV-MUC3-0061 (NOSC, CALSPAN)`` -> ``DEV-MUC3-0061``); slash incident types
        (``BOMBING / ATTACK`` -> ``("BOMBING", "ATTACK")``); blocks of ``*`` in slots 1-24
        (``is_irrelevant``). ``slots[0]`` holds the message ID and ``slots[1]`` the template
        number as one filler each (``raw`` keeps the site tag / ``(OPTIONAL)``; slot 1 is empty
        in an all-``*`` block); the other slots map to their non-empty fillers.

    Raises
    ------
    InputError
        Naming the file and line: an empty file, bytes that are not UTF-8 text or control
        characters, a line whose slot number cannot be parsed, a slot number outside 0-24, a
        wrong slot label, a repeated slot, a block without all 25 slots (e.g.
        no slot 0), a file without blocks.
    """
    source = Path(path)
    if not source.is_file():
        raise InputError(source, "no such file")
    lines = _key_lines(source.read_bytes(), source)
    templates = [_template(block, source) for block in _key_blocks(lines)]
    if not templates:
        raise InputError(source, "no key blocks found")
    return templates


# ----------------------------------------------------------------------------- splits


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
    """Find the MUC-4 folder.

    Order: ``explicit``; else the environment variable ``AESI_MUC4_DIR``; else
    ``../shared/data/muc4`` relative to the current directory; else the same relative to the
    repository root (the folder that holds the ``aesi_lib`` package).

    Returns
    -------
    Path or None
        The first candidate that is a folder, or None when neither default exists.

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
        return chosen
    from_env = os.environ.get(MUC4_DIR_ENV)
    if from_env:
        chosen = Path(from_env).expanduser()
        if not chosen.is_dir():
            raise InputError(chosen, f"MUC-4 folder named by {MUC4_DIR_ENV} not found")
        return chosen
    for base in (Path.cwd(), _REPO_ROOT):
        candidate = base.parent / "shared" / "data" / "muc4"
        if candidate.is_dir():
            return candidate
    return None
