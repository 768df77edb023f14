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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from aesi_lib.corpus.language import detect_language
from aesi_lib.corpus.types import Document
from aesi_lib.errors import InputError

log = logging.getLogger(__name__)

ON_ERROR_CHOICES: tuple[str, ...] = ("raise", "skip")
DEFAULT_ENCODING = "utf-8"
"""The encoding :func:`decode_text` assumes when given none (the MUC-4 files are UTF-8)."""
PREFERRED_LEGACY_ENCODING = "cp1252"
"""The encoding a file that is not UTF-8 is read in when it fits as well as any other:
Windows Western, the usual legacy encoding of English text and a superset of Latin-1's
printable characters. On a short text charset-normalizer finds many single-byte encodings
that fit equally well and would take the first (cp1250 turns a Latin-1 "£" into "Ł")."""
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


def decode_text(data: bytes, path: str | Path, encoding: str | None = DEFAULT_ENCODING
                ) -> str:
    """Decode the bytes of a text file, refusing binary and badly encoded input.

    Parameters
    ----------
    data : bytes
        The file content. A UTF-8 byte-order mark is dropped.
    path : str or Path
        Only used in error messages.
    encoding : str or None
        The text encoding (a Python codec name such as ``utf-8``, ``latin-1``, ``cp1252``);
        None: UTF-8 when the bytes are valid UTF-8, else the encoding
        :func:`detect_encoding` finds (logged at info level, naming the file).

    Returns
    -------
    str

    Raises
    ------
    InputError
        When the file is empty or blank, holds NUL bytes (a binary file), or is not in
        ``encoding`` (the message names the line of the first bad byte); with no
        ``encoding``, when it is neither UTF-8 nor in any encoding detected.
    """
    return _decode(data, path, encoding)[0]


def _decode(data: bytes, path: str | Path, encoding: str | None) -> tuple[str, str]:
    """:func:`decode_text`'s text and the encoding it was read in."""
    if not data.strip():
        raise InputError(path, "empty file")
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError(path, f"binary file (NUL byte on line {line}), expected "
                         f"{_label(encoding)} text")
    codec = encoding or DEFAULT_ENCODING
    try:
        return data.decode("utf-8-sig" if _is_utf8(codec) else codec), codec
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problem = f"line {line}: not valid {_label(codec)} (byte 0x{data[exc.start]:02x})"
        if encoding is None and (found := detect_encoding(data)) is not None:
            log.info("%s: not UTF-8, read as %s", path, found)
            return data.decode(found), found
        if encoding is None:
            problem += " nor in any other encoding detected"
        raise InputError(path, f"{problem}; give the file's encoding with --encoding"
                         ) from None


def detect_encoding(data: bytes) -> str | None:
    """The encoding charset-normalizer finds for ``data`` (bytes that are not UTF-8).

    Among the encodings that fit best (least "chaos"), :data:`PREFERRED_LEGACY_ENCODING`
    when it is one of them; else charset-normalizer's first choice; None when nothing fits
    (bytes that are no text in any encoding it knows).
    """
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        return None
    least = min(m.chaos for m in matches)
    for match in matches:
        if match.chaos == least and PREFERRED_LEGACY_ENCODING in match.could_be_from_charset:
            return PREFERRED_LEGACY_ENCODING
    return str(matches[0].encoding)


def _is_utf8(encoding: str | None) -> bool:
    return encoding is None or codecs.lookup(encoding).name == "utf-8"


def _label(encoding: str | None) -> str:
    """How messages name an encoding: UTF-8 as such, others as the user gave them."""
    return "UTF-8" if _is_utf8(encoding) else str(encoding)


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


def _read_txt(path: Path, split: str, encoding: str | None, max_chars: int | None = None,
              *, in_folder: bool = False) -> Document:
    if max_chars and (size := path.stat().st_size) > _MAX_BYTES_PER_CHAR * max_chars:
        raise InputError(path, _too_long(f"{size:,} bytes", max_chars))
    data = path.read_bytes()
    if in_folder and not data.strip():
        # The one bad file of a folder that no option fixes: say how to go on without it.
        raise InputError(path, "empty file: remove it or leave it out with --skip-bad")
    raw = decode_text(data, path, encoding)
    if max_chars and len(raw) > max_chars:
        raise InputError(path, _too_long(f"{len(raw):,} characters", max_chars))
    return user_document(path.stem, raw, split, str(path))


@dataclass
class UserCorpus:
    """What :func:`read_user_corpus` read: the documents, and those it left out as not English.

    Attributes
    ----------
    documents : list of Document
        The documents kept, in reading order.
    left_out : list of dict
        One ``{"doc_id", "source", "reason"}`` per document left out because it is not
        English (``"line"`` too for a JSONL line), in reading order; what ``results.json``
        lists as ``left_out``.
    """

    documents: list[Document] = field(default_factory=list)
    left_out: list[dict[str, str | int]] = field(default_factory=list)

    def add(self, doc: Document, place: str, keep_non_english: bool,
            line: int | None = None) -> None:
        """Keep ``doc``, or leave it out with one warning naming ``place`` when it is not
        English (unless ``keep_non_english``)."""
        if not keep_non_english:
            guess = detect_language(doc.text)
            if not guess.is_english:
                log.warning("skipping %s: not English (%s; --keep-non-english keeps it)",
                            place, guess.finding)
                self.left_out.append({"doc_id": doc.doc_id, "source": doc.source,
                                      **({"line": line} if line is not None else {}),
                                      "reason": guess.reason})
                return
        self.documents.append(doc)


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


def _documents_from_folder(folder: Path, split: str, on_error: str, encoding: str | None,
                           max_chars: int | None, keep_non_english: bool) -> UserCorpus:
    read = UserCorpus()
    seen: dict[str, Path] = {}
    problems: list[InputError] = []
    for file in _txt_files(folder):
        try:
            doc = _read_txt(file, split, encoding, max_chars, in_folder=True)
            if doc.doc_id in seen:
                other = seen[doc.doc_id].name
                raise InputError(file, f"duplicate document id {doc.doc_id!r} (also {other})")
        except InputError as exc:
            if on_error == "skip":
                log.warning("skipping %s", exc)
            problems.append(exc)
            continue
        seen[doc.doc_id] = file
        read.add(doc, str(file), keep_non_english)
    if problems and on_error == "raise":
        raise problems[0] if len(problems) == 1 else _problems(folder, problems, "file")
    return read


def _jsonl_record(raw: bytes, path: Path, lineno: int, encoding: str | None,
                  max_chars: int | None = None) -> tuple[str, str]:
    """The (id, text) of one JSONL line; InputError naming the file and line otherwise."""
    where = f"line {lineno}"
    try:
        line = raw.decode("utf-8-sig" if _is_utf8(encoding) and lineno == 1
                          else encoding or DEFAULT_ENCODING)
    except UnicodeDecodeError:
        raise InputError(path, f"{where}: not valid {_label(encoding)}") from None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        # json's own message ("Expecting value: line 1 column 26 (char 25)") counts lines
        # and characters of the line alone; the column is the part that helps.
        raise InputError(path, f"{where}: malformed JSON at column {exc.colno} ({exc.msg}); "
                         "fix the line or leave it out with --skip-bad") from None
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


def _jsonl_encoding(data: bytes, path: Path, encoding: str | None) -> str | None:
    """The encoding of a whole JSONL file: ``encoding`` when given; else UTF-8 when the
    file is UTF-8, else the encoding detected (logged once). When nothing fits, UTF-8, so that
    each bad line is named as such."""
    if encoding is not None:
        return encoding
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError:
        found = detect_encoding(data)
        if found is not None:
            log.info("%s: not UTF-8, read as %s", path, found)
            return found
    return None


def _documents_from_jsonl(path: Path, split: str, on_error: str, encoding: str | None,
                          max_chars: int | None, keep_non_english: bool) -> UserCorpus:
    data = path.read_bytes()
    if not data.strip():
        raise InputError(path, "empty file")
    if b"\x00" in data:
        raise InputError(path, f"binary file (NUL bytes), expected {_label(encoding)} JSON lines")
    encoding = _jsonl_encoding(data, path, encoding)
    read = UserCorpus()
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
        read.add(user_document(doc_id, text, split, str(path)), f"{path}: line {lineno}",
                 keep_non_english, line=lineno)
    if problems and on_error == "raise":
        raise problems[0] if len(problems) == 1 else _problems(path, problems, "line")
    return read


def read_user_corpus(
    path: str | Path, split: str = "user", on_error: str = "raise",
    encoding: str | None = None, max_chars: int | None = DEFAULT_MAX_DOC_CHARS,
    keep_non_english: bool = False,
) -> UserCorpus:
    """Read a user's own corpus, leaving out the documents that are not English.

    Accepted inputs:

    * a folder: every ``*.txt`` file directly in it (not in sub-folders) is one document;
      ``doc_id`` is the file name without ``.txt``; documents come sorted by file name;
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
        file, a binary file (NUL bytes), text in no encoding that fits, a malformed JSON line,
        a line without ``id`` or ``text`` (or with an empty text), a duplicate id, a document
        longer than ``max_chars``. ``"raise"`` (default)
        raises :class:`~aesi_lib.errors.InputError` naming the file (and, for JSONL, the line)
        and listing every other bad file or line too, so one pass fixes them all.
        ``"skip"`` logs a warning naming the file (and line) on the ``aesi_lib.corpus.plain``
        logger, leaves that file or line out (for a duplicate id the later one) and reads the
        rest. Problems with the input as a whole are always raised: a missing path, a folder
        without ``.txt`` files, an empty or binary JSONL file, and no usable document at all.
    encoding : str or None
        Text encoding of every file (a Python codec name). None (default): each ``.txt`` file
        (and a JSONL file as a whole) is read as UTF-8 when it is UTF-8, else in the encoding
        :func:`detect_encoding` finds, logged at info level naming the file.
    max_chars : int or None
        The most characters a document's text (as given) may have: a longer one is a bad
        file or line as above, before anything parses it (:data:`DEFAULT_MAX_DOC_CHARS`;
        None or 0: no limit).
    keep_non_english : bool
        Keep the documents that are not English
        (:func:`aesi_lib.corpus.language.detect_language`). By default each is left out with
        one warning naming it (file, or file and line) and the language found, and listed in
        ``left_out``; whatever ``on_error`` says, since such a document is readable.

    Returns
    -------
    UserCorpus

    Raises
    ------
    InputError
        As described under ``on_error``; also for an unknown ``encoding``.
    ValueError
        For an unknown ``on_error`` value.
    """
    if on_error not in ON_ERROR_CHOICES:
        raise ValueError(f"on_error must be one of {ON_ERROR_CHOICES}, not {on_error!r}")
    if encoding is not None:
        check_encoding(encoding)
    source = Path(path)
    if source.is_dir():
        read = _documents_from_folder(source, split, on_error, encoding, max_chars,
                                      keep_non_english)
    elif not source.exists():
        raise InputError(source, "no such file or folder")
    elif source.suffix.lower() == ".jsonl":
        read = _documents_from_jsonl(source, split, on_error, encoding, max_chars,
                                     keep_non_english)
    elif source.suffix.lower() == ".txt":
        read = UserCorpus()
        read.add(_read_txt(source, split, encoding, max_chars), str(source), keep_non_english)
    else:
        raise InputError(source, "expected a folder of .txt files or a .jsonl file")
    if not read.documents:
        why = "every file or line was skipped"
        if read.left_out:
            why += f"; {len(read.left_out)} not English, --keep-non-english keeps them"
        raise InputError(source, f"no usable documents ({why})")
    return read


def read_plain_documents(
    path: str | Path, split: str = "user", on_error: str = "raise",
    encoding: str | None = None, max_chars: int | None = DEFAULT_MAX_DOC_CHARS,
    keep_non_english: bool = False,
) -> list[Document]:
    """The documents of :func:`read_user_corpus` (same parameters), without the list of
    those left out as not English.

    Returns
    -------
    list of Document

    Raises
    ------
    InputError
        As :func:`read_user_corpus` does.
    ValueError
        For an unknown ``on_error`` value.
    """
    return read_user_corpus(path, split, on_error, encoding, max_chars,
                            keep_non_english).documents


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
