"""Reader for a user's own corpus: a folder of ``.txt`` files or one ``.jsonl`` file.

Also home of the paragraph normalisation that the MUC-4 reader shares
(:func:`text_to_paragraphs`, :func:`paragraphs_to_text`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from aesi_lib.corpus.types import Document
from aesi_lib.errors import InputError

log = logging.getLogger(__name__)

ON_ERROR_CHOICES: tuple[str, ...] = ("raise", "skip")

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


def decode_text(data: bytes, path: str | Path) -> str:
    """Decode the bytes of a text file, refusing binary and badly encoded input.

    Parameters
    ----------
    data : bytes
        The file content. A UTF-8 byte-order mark is dropped.
    path : str or Path
        Only used in error messages.

    Returns
    -------
    str

    Raises
    ------
    InputError
        When the file is empty or blank, holds NUL bytes (a binary file), or is not UTF-8 (the
        message names the line of the first bad byte).
    """
    if not data.strip():
        raise InputError(path, "empty file")
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError(path, f"binary file (NUL byte on line {line}), expected UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            path, f"line {line}: not valid UTF-8 (byte 0x{data[exc.start]:02x})"
        ) from None


def _read_txt(path: Path, split: str) -> Document:
    text = paragraphs_to_text(text_to_paragraphs(decode_text(path.read_bytes(), path).splitlines()))
    return Document(doc_id=path.stem, text=text, split=split, source=str(path))


def _txt_files(folder: Path) -> list[Path]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".txt")
    if not files:
        raise InputError(folder, "folder holds no .txt files")
    return files


def _documents_from_folder(folder: Path, split: str, on_error: str) -> list[Document]:
    docs: list[Document] = []
    seen: dict[str, Path] = {}
    for file in _txt_files(folder):
        try:
            doc = _read_txt(file, split)
            if doc.doc_id in seen:
                other = seen[doc.doc_id].name
                raise InputError(file, f"duplicate document id {doc.doc_id!r} (also {other})")
        except InputError as exc:
            if on_error == "raise":
                raise
            log.warning("skipping %s", exc)
            continue
        seen[doc.doc_id] = file
        docs.append(doc)
    return docs


def _jsonl_record(raw: bytes, path: Path, lineno: int) -> tuple[str, str]:
    """The (id, text) of one JSONL line; InputError naming the file and line otherwise."""
    where = f"line {lineno}"
    try:
        line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
    except UnicodeDecodeError:
        raise InputError(path, f"{where}: not valid UTF-8") from None
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
    return str(doc_id).strip(), text


def _jsonl_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if raw.strip():
            yield lineno, raw


def _documents_from_jsonl(path: Path, split: str, on_error: str) -> list[Document]:
    data = path.read_bytes()
    if not data.strip():
        raise InputError(path, "empty file")
    if b"\x00" in data:
        raise InputError(path, "binary file (NUL bytes), expected UTF-8 JSON lines")
    docs: list[Document] = []
    seen: dict[str, int] = {}
    for lineno, raw in _jsonl_lines(data):
        try:
            doc_id, text = _jsonl_record(raw, path, lineno)
            if doc_id in seen:
                raise InputError(
                    path, f"line {lineno}: duplicate id {doc_id!r} (first on line {seen[doc_id]})"
                )
        except InputError as exc:
            if on_error == "raise":
                raise
            log.warning("skipping %s", exc)
            continue
        seen[doc_id] = lineno
        body = paragraphs_to_text(text_to_paragraphs(text.splitlines()))
        docs.append(Document(doc_id=doc_id, text=body, split=split, source=str(path)))
    return docs


def read_plain_documents(
    path: str | Path, split: str = "user", on_error: str = "raise"
) -> list[Document]:
    """Read a user's own corpus.

    Accepted inputs:

    * a folder: every ``*.txt`` file directly in it (not in sub-folders) is one document, read as
      UTF-8; ``doc_id`` is the file name without ``.txt``; documents come sorted by file name;
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
        without ``id`` or ``text`` (or with an empty text), a duplicate id. ``"raise"`` (default)
        raises :class:`~aesi_lib.errors.InputError` naming the file (and, for JSONL, the line).
        ``"skip"`` logs a warning naming the file (and line) on the ``aesi_lib.corpus.plain``
        logger, leaves that file or line out (for a duplicate id the later one) and reads the
        rest. Problems with the input as a whole are always raised: a missing path, a folder
        without ``.txt`` files, an empty or binary JSONL file, and no usable document at all.

    Returns
    -------
    list of Document

    Raises
    ------
    InputError
        As described under ``on_error``.
    ValueError
        For an unknown ``on_error`` value.
    """
    if on_error not in ON_ERROR_CHOICES:
        raise ValueError(f"on_error must be one of {ON_ERROR_CHOICES}, not {on_error!r}")
    source = Path(path)
    if source.is_dir():
        docs = _documents_from_folder(source, split, on_error)
    elif not source.exists():
        raise InputError(source, "no such file or folder")
    elif source.suffix.lower() == ".jsonl":
        docs = _documents_from_jsonl(source, split, on_error)
    elif source.suffix.lower() == ".txt":
        docs = [_read_txt(source, split)]
    else:
        raise InputError(source, "expected a folder of .txt files or a .jsonl file")
    if not docs:
        raise InputError(source, "no usable documents (every file or line was skipped)")
    return docs
