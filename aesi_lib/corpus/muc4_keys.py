"""Reader for the MUC-4 answer keys (key files of DEV, TST1 and TST2; the demo key).

A key file is a sequence of blocks separated by blank lines. Each block has the 25 numbered
slots ``0.`` to ``24.``; the value starts after the slot label (column 36 in the distribution);
an extra filler of a slot is a continuation line indented to the value column. Lines that start
with ``;`` are comments. Malformed input raises ``InputError`` naming the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from aesi_lib.corpus.types import KeyFiller, KeyTemplate
from aesi_lib.errors import InputError

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
