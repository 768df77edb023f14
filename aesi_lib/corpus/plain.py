"""Reader for a user's own corpus: a folder of ``.txt`` files or one ``.jsonl`` file.

Also home of the paragraph normalisation that the MUC-4 reader shares
(:func:`text_to_paragraphs`, :func:`paragraphs_to_text`).
"""

from __future__ import annotations

import codecs
import json
import logging
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from aesi_lib.corpus.types import Document
from aesi_lib.errors import InputError

log = logging.getLogger(__name__)

ON_ERROR_CHOICES: tuple[str, ...] = ("raise", "skip")
DEFAULT_ENCODING = "utf-8"
DEFAULT_MAX_DOC_CHARS = 1_000_000
"""The longest document :func:`read_plain_documents` accepts by default, in characters: about
170,000 words, some 400 pages. spaCy refuses longer texts by default, and one parse of such a
document takes minutes and gigabytes (a 30 MB text took over 4 minutes and 3-11 GB); a
corpus of news or reports holds nothing near it, so a longer file is most likely not one
document (a book, a dump, a log) and is refused before any parsing."""
# How many problems one error message lists before it says "... and N more".
_LISTED_PROBLEMS = 10

# A hyphen right after a letter or digit at the end of a line is a word broken across lines
# ("NON-" / "COMMISSIONED"); "--" is punctuation and keeps its space.
_BROKEN_WORD = re.compile(r"(?<=\w)(?<!-)-$")


def text_to_paragraphs(lines: Iterable[str]) -> list[str]:
    """Group lines into paragraphs and join the lines of each paragraph.

    Parameters
    ----------
    lines : iterable of str
        Lines without their line ends. A line holding only whitespace ends a paragraph.

    Returns
    -------
    list of str
        One string per paragraph: its lines joined with one space (no space after a line that
        ends in a word-internal hyphen), runs of blanks and tabs collapsed to one space, no
        leading or trailing whitespace. Empty paragraphs are dropped.
    """
    paragraphs: list[str] = []
    current = ""
    for line in lines:
        piece = " ".join(line.split())
        if not piece:
            if current:
                paragraphs.append(current)
            current = ""
        elif not current:
            current = piece
        elif _BROKEN_WORD.search(current):
            current += piece
        else:
            current += " " + piece
    if current:
        paragraphs.append(current)
    return paragraphs


def paragraphs_to_text(paragraphs: Iterable[str]) -> str:
    """Join paragraphs with one blank line (``"\\n\\n"``), the layout of ``Document.text``."""
    return "\n\n".join(p for p in paragraphs if p)


def decode_text(data: bytes, path: str | Path, encoding: str = DEFAULT_ENCODING) -> str:
    """Decode the bytes of a text file, refusing binary and badly encoded input.

    Parameters
    ----------
    data : bytes
        The file content. A UTF-8 byte-order mark is dropped.
    path : str or Path
        Only used in error messages.
    encoding : str
        The text encoding (a Python codec name such as ``utf-8``, ``latin-1``, ``cp1252``).

    Returns
    -------
    str

    Raises
    ------
    InputError
        When the file is empty or blank, holds NUL bytes (a binary file), or is not in
        ``encoding`` (the message names the line of the first bad byte).
    """
    if not data.strip():
        raise InputError(path, "empty file")
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError(path, f"binary file (NUL byte on line {line}), expected "
                         f"{_label(encoding)} text")
    codec = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            path, f"line {line}: not valid {_label(encoding)} (byte 0x{data[exc.start]:02x}); "
            "give the file's encoding with --encoding"
        ) from None


def _label(encoding: str) -> str:
    """How messages name an encoding: UTF-8 as such, others as the user gave them."""
    return "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding


def check_encoding(encoding: str) -> str:
    """``encoding`` when Python knows it as a text codec; InputError naming it otherwise."""
    try:
        codecs.lookup(encoding)
        "".encode(encoding)
    except LookupError:
        raise InputError(encoding, "unknown text encoding (try utf-8, latin-1 or cp1252)"
                         ) from None
    return encoding


def user_document(doc_id: str, raw: str, split: str = "user", source: str = "") -> Document:
    """A document of the user's own: its text as the parser reads it (the paragraphs of
    :func:`text_to_paragraphs`, joined by :func:`paragraphs_to_text`), and ``raw`` as its
    ``original`` when that differs, so that character spans index the text as given. Every
    reader of user documents (``.txt`` files, JSONL lines, the Python API's strings) makes
    its documents here."""
    text = paragraphs_to_text(text_to_paragraphs(raw.splitlines()))
    return Document(doc_id=doc_id, text=text, split=split, source=source,
                    original="" if raw == text else raw)


def _too_long(size: str, max_chars: int) -> str:
    """The problem of a document of ``size`` (``"1,200,000 characters"``) under the limit."""
    return (f"{size}, more than the {max_chars:,} characters a document may have "
            "(--max-doc-chars): split it into documents, raise the limit, or leave it out "
            "with --skip-bad")


# No encoding takes more than 4 bytes a character: a larger file is too long whatever its
# text, and is refused without reading it.
_MAX_BYTES_PER_CHAR = 4


def _read_txt(path: Path, split: str, encoding: str, max_chars: int | None = None
              ) -> Document:
    if max_chars and (size := path.stat().st_size) > _MAX_BYTES_PER_CHAR * max_chars:
        raise InputError(path, _too_long(f"{size:,} bytes", max_chars))
    raw = decode_text(path.read_bytes(), path, encoding)
    if max_chars and len(raw) > max_chars:
        raise InputError(path, _too_long(f"{len(raw):,} characters", max_chars))
    return user_document(path.stem, raw, split, str(path))


def _problems(where: Path, problems: list[InputError], unit: str) -> InputError:
    """One error that lists every bad file or line (the first ten, then a count)."""
    listed = "; ".join(p.problem if p.path == str(where) else f"{p.path}: {p.problem}"
                       for p in problems[:_LISTED_PROBLEMS])
    more = len(problems) - _LISTED_PROBLEMS
    tail = f"; ... and {more} more" if more > 0 else ""
    hint = " (--skip-bad reads the rest)"
    return InputError(where, f"{len(problems)} bad {unit}{'s' if len(problems) > 1 else ''}: "
                      f"{listed}{tail}{hint}")


def _txt_files(folder: Path) -> list[Path]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".txt")
    if not files:
        raise InputError(folder, "folder holds no .txt files")
    return files


def _documents_from_folder(folder: Path, split: str, on_error: str, encoding: str,
                           max_chars: int | None) -> list[Document]:
    docs: list[Document] = []
    seen: dict[str, Path] = {}
    problems: list[InputError] = []
    for file in _txt_files(folder):
        try:
            doc = _read_txt(file, split, encoding, max_chars)
            if doc.doc_id in seen:
                other = seen[doc.doc_id].name
                raise InputError(file, f"duplicate document id {doc.doc_id!r} (also {other})")
        except InputError as exc:
            if on_error == "skip":
                log.warning("skipping %s", exc)
            problems.append(exc)
            continue
        seen[doc.doc_id] = file
        docs.append(doc)
    if problems and on_error == "raise":
        raise problems[0] if len(problems) == 1 else _problems(folder, problems, "file")
    return docs


def _jsonl_record(raw: bytes, path: Path, lineno: int, encoding: str,
                  max_chars: int | None = None) -> tuple[str, str]:
    """The (id, text) of one JSONL line; InputError naming the file and line otherwise."""
    where = f"line {lineno}"
    utf8 = codecs.lookup(encoding).name == "utf-8"
    try:
        line = raw.decode("utf-8-sig" if utf8 and lineno == 1 else encoding)
    except UnicodeDecodeError:
        raise InputError(path, f"{where}: not valid {_label(encoding)}") from None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"{where}: malformed JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise InputError(path, f"{where}: expected a JSON object with 'id' and 'text'")
    missing = [key for key in ("id", "text") if key not in obj]
    if missing:
        raise InputError(path, f"{where}: missing {' and '.join(repr(k) for k in missing)}")
    doc_id, text = obj["id"], obj["text"]
    if isinstance(doc_id, bool) or not isinstance(doc_id, str | int) or not str(doc_id).strip():
        raise InputError(path, f"{where}: 'id' must be a non-empty string or an integer")
    if not isinstance(text, str):
        raise InputError(path, f"{where}: 'text' must be a string")
    if not text.strip():
        raise InputError(path, f"{where}: empty 'text' for id {doc_id!r}")
    if max_chars and len(text) > max_chars:
        raise InputError(path, f"{where}: document {str(doc_id).strip()!r} has "
                         + _too_long(f"{len(text):,} characters", max_chars))
    return str(doc_id).strip(), text


def _jsonl_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if raw.strip():
            yield lineno, raw


def _documents_from_jsonl(path: Path, split: str, on_error: str, encoding: str,
                          max_chars: int | None) -> list[Document]:
    data = path.read_bytes()
    if not data.strip():
        raise InputError(path, "empty file")
    if b"\x00" in data:
        raise InputError(path, f"binary file (NUL bytes), expected {_label(encoding)} JSON lines")
    docs: list[Document] = []
    seen: dict[str, int] = {}
    problems: list[InputError] = []
    for lineno, raw in _jsonl_lines(data):
        try:
            doc_id, text = _jsonl_record(raw, path, lineno, encoding, max_chars)
            if doc_id in seen:
                raise InputError(
                    path, f"line {lineno}: duplicate id {doc_id!r} (first on line {seen[doc_id]})"
                )
        except InputError as exc:
            if on_error == "skip":
                log.warning("skipping %s", exc)
            problems.append(exc)
            continue
        seen[doc_id] = lineno
        docs.append(user_document(doc_id, text, split, str(path)))
    if problems and on_error == "raise":
        raise problems[0] if len(problems) == 1 else _problems(path, problems, "line")
    return docs


def read_plain_documents(
    path: str | Path, split: str = "user", on_error: str = "raise",
    encoding: str = DEFAULT_ENCODING, max_chars: int | None = DEFAULT_MAX_DOC_CHARS,
) -> list[Document]:
    """Read a user's own corpus.

    Accepted inputs:

    * a folder: every ``*.txt`` file directly in it (not in sub-folders) is one document, read in
      ``encoding`` (UTF-8 by default); ``doc_id`` is the file name without ``.txt``; documents
      come sorted by file name;
    * a ``.jsonl`` file: one JSON object per line with a string (or integer) ``"id"`` and a string
      ``"text"``; other keys are ignored and blank lines are skipped;
    * a single ``.txt`` file: one document.

    In every case the text is normalised as for MUC-4 bodies: blank lines separate paragraphs,
    the lines of a paragraph are joined with one space, and paragraphs are joined with ``"\\n\\n"``.

    Parameters
    ----------
    path : str or Path
        The folder or file.
    split : str
        Name stored in ``Document.split``.
    on_error : {"raise", "skip"}
        What to do with a bad file (folder input) or a bad line (JSONL input): an empty or blank
        file, a binary file (NUL bytes), text that is not UTF-8, a malformed JSON line, a line
        without ``id`` or ``text`` (or with an empty text), a duplicate id, a document longer
        than ``max_chars``. ``"raise"`` (default)
        raises :class:`~aesi_lib.errors.InputError` naming the file (and, for JSONL, the line)
        and listing every other bad file or line too, so one pass fixes them all.
        ``"skip"`` logs a warning naming the file (and line) on the ``aesi_lib.corpus.plain``
        logger, leaves that file or line out (for a duplicate id the later one) and reads the
        rest. Problems with the input as a whole are always raised: a missing path, a folder
        without ``.txt`` files, an empty or binary JSONL file, and no usable document at all.

    encoding : str
        Text encoding of the files (a Python codec name).
    max_chars : int or None
        The most characters a document's text (as given) may have: a longer one is a bad
        file or line as above, before anything parses it (:data:`DEFAULT_MAX_DOC_CHARS`;
        None or 0: no limit).

    Returns
    -------
    list of Document

    Raises
    ------
    InputError
        As described under ``on_error``; also for an unknown ``encoding``.
    ValueError
        For an unknown ``on_error`` value.
    """
    if on_error not in ON_ERROR_CHOICES:
        raise ValueError(f"on_error must be one of {ON_ERROR_CHOICES}, not {on_error!r}")
    check_encoding(encoding)
    source = Path(path)
    if source.is_dir():
        docs = _documents_from_folder(source, split, on_error, encoding, max_chars)
    elif not source.exists():
        raise InputError(source, "no such file or folder")
    elif source.suffix.lower() == ".jsonl":
        docs = _documents_from_jsonl(source, split, on_error, encoding, max_chars)
    elif source.suffix.lower() == ".txt":
        docs = [_read_txt(source, split, encoding, max_chars)]
    else:
        raise InputError(source, "expected a folder of .txt files or a .jsonl file")
    if not docs:
        raise InputError(source, "no usable documents (every file or line was skipped)")
    return docs


def move_to_done(path: str | Path, when: datetime | None = None,
                 read: Iterable[str | Path] | None = None) -> list[Path]:
    """Move what :func:`read_plain_documents` reads from ``path`` (a folder's ``*.txt`` files,
    or the file itself) into ``done/<UTC time>/`` beside it; returns the new paths. An inbox
    that a scheduled update consumes this way is empty at the next run.

    ``read`` (the ``source`` of each document read from a folder) limits the move to those
    files: a file left out as bad (``on_error="skip"``) stays, to be warned about again until
    it is fixed or removed."""
    source = Path(path)
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
    if source.is_dir():
        files = sorted(p for p in source.iterdir() if p.is_file() and p.suffix.lower() == ".txt")
        if read is not None:
            wanted = {Path(p).resolve() for p in read}
            files = [p for p in files if p.resolve() in wanted]
        target = source / "done" / stamp
    elif source.is_file():
        files, target = [source], source.parent / "done" / stamp
    else:
        return []
    if not files:
        return []
    target.mkdir(parents=True, exist_ok=True)
    moved = []
    for f in files:
        f.replace(target / f.name)
        moved.append(target / f.name)
    return moved
