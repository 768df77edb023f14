"""Plain corpus reader: .txt folders and JSONL; every bad-input case names the file."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from aesi_lib.corpus.plain import read_plain_documents, text_to_paragraphs
from aesi_lib.errors import InputError


def _folder(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, content in files.items():
        path = folder / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


def _jsonl(tmp_path: Path, lines: list[str] | bytes) -> Path:
    path = tmp_path / "docs.jsonl"
    if isinstance(lines, bytes):
        path.write_bytes(lines)
    else:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _raises(path: Path, problem: str, on_error: str = "raise",
            encoding: str | None = None) -> InputError:
    with pytest.raises(InputError) as info:
        read_plain_documents(path, on_error=on_error, encoding=encoding)
    assert str(path) in str(info.value)
    assert problem in str(info.value)
    return info.value


# ----------------------------------------------------------------------------- good input


def test_folder_of_txt_files(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {
        "b.txt": "Rebels attacked\nthe town.\n\n  Two people died.\n",
        "a.txt": "\ufeffA bomb exploded.",
        "notes.md": "ignored",
    })
    docs = read_plain_documents(folder, split="mine")
    assert [d.doc_id for d in docs] == ["a", "b"]
    assert docs[0].text == "A bomb exploded."
    assert docs[1].text == "Rebels attacked the town.\n\nTwo people died."
    assert {d.split for d in docs} == {"mine"}
    assert docs[1].source == str(folder / "b.txt") and docs[1].header == ""


def test_jsonl_file(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [
        json.dumps({"id": "n1", "text": "Guerrillas kidnapped\na mayor.", "extra": 1}),
        "",
        json.dumps({"id": 7, "text": "Arsonists burned a bus."}),
    ])
    docs = read_plain_documents(path)
    assert [(d.doc_id, d.text) for d in docs] == [
        ("n1", "Guerrillas kidnapped a mayor."), ("7", "Arsonists burned a bus.")]
    assert docs[0].split == "user" and docs[0].source == str(path)


def test_single_txt_file(tmp_path: Path) -> None:
    path = tmp_path / "story.txt"
    path.write_text("One story.")
    assert [d.doc_id for d in read_plain_documents(path)] == ["story"]


def test_text_to_paragraphs() -> None:
    assert text_to_paragraphs(["  A  B", "C-", "D", " \t", "", "E -- ", "F"]) == [
        "A B C-D", "E -- F"]


# ----------------------------------------------------------------------------- bad input


def test_empty_txt_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"a.txt": "ok", "empty.txt": "  \n\n"})
    _raises(folder, "empty.txt: empty file")


def test_binary_txt_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"a.txt": "ok", "image.txt": b"\x89PNG\r\n\x1a\n\x00\x00IHDR"})
    _raises(folder, "image.txt: binary file (NUL byte on line 3)")


def test_bad_utf8_txt_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"latin1.txt": "first line\nBogot\xe1\n".encode("latin-1")})
    _raises(folder, "latin1.txt: line 2: not valid UTF-8 (byte 0xe1)", encoding="utf-8")


def test_duplicate_id_in_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"a.TXT": "one", "a.txt": "two"})
    _raises(folder, "a.txt: duplicate document id 'a' (also a.TXT)")


def test_empty_folder_and_folder_without_txt(tmp_path: Path) -> None:
    _raises(_folder(tmp_path, {}), "folder holds no .txt files")
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("not text")
    _raises(other, "folder holds no .txt files")


def test_missing_path_and_unknown_suffix(tmp_path: Path) -> None:
    _raises(tmp_path / "nowhere", "no such file or folder")
    csv = tmp_path / "docs.csv"
    csv.write_text("id,text\n")
    _raises(csv, "expected a folder of .txt files or a .jsonl file")


def test_malformed_json_line(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, ['{"id": "a", "text": "ok"}', '{"id": "b", "text": '])
    _raises(path, "line 2: malformed JSON")


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"text": "no id"}', "line 1: missing 'id'"),
        ('{"id": "x"}', "line 1: missing 'text'"),
        ("{}", "line 1: missing 'id' and 'text'"),
        ('["a", "b"]', "line 1: expected a JSON object"),
        ('{"id": "x", "text": 5}', "line 1: 'text' must be a string"),
        ('{"id": null, "text": "t"}', "line 1: 'id' must be a non-empty string or an integer"),
        ('{"id": "x", "text": "  "}', "line 1: empty 'text' for id 'x'"),
    ],
    ids=["no-id", "no-text", "neither", "not-object", "text-type", "id-type", "blank-text"],
)
def test_missing_or_bad_fields(tmp_path: Path, line: str, problem: str) -> None:
    _raises(_jsonl(tmp_path, [line]), problem)


def test_duplicate_id_in_jsonl(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, ['{"id": "a", "text": "one"}', '{"id": "a", "text": "two"}'])
    _raises(path, "line 2: duplicate id 'a' (first on line 1)")


def test_jsonl_empty_binary_and_bad_encoding(tmp_path: Path) -> None:
    _raises(_jsonl(tmp_path, b"\n \n"), "empty file")
    _raises(_jsonl(tmp_path, b'{"id": "a", "text": "\x00"}\n'), "binary file")
    _raises(_jsonl(tmp_path, b'{"id": "a", "text": "ok"}\n{"id": "b", "text": "\xe1"}\n'),
            "line 2: not valid UTF-8", encoding="utf-8")


def test_unknown_on_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="on_error"):
        read_plain_documents(tmp_path, on_error="ignore")


# ----------------------------------------------------------------------------- skip mode


def test_skip_bad_files_with_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = _folder(tmp_path, {"a.txt": "good", "b.txt": b"\x00\x01", "c.txt": "", "d.txt": "x"})
    with caplog.at_level(logging.WARNING, logger="aesi_lib.corpus.plain"):
        docs = read_plain_documents(folder, on_error="skip")
    assert [d.doc_id for d in docs] == ["a", "d"]
    messages = [r.getMessage() for r in caplog.records]
    assert any(str(folder / "b.txt") in m and "binary" in m for m in messages)
    assert any(str(folder / "c.txt") in m and "empty file" in m for m in messages)


def test_skip_bad_jsonl_lines_with_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _jsonl(tmp_path, [
        '{"id": "a", "text": "one"}', "{broken", '{"id": "a", "text": "again"}',
        '{"id": "b"}', '{"id": "c", "text": "three"}',
    ])
    with caplog.at_level(logging.WARNING, logger="aesi_lib.corpus.plain"):
        docs = read_plain_documents(path, on_error="skip")
    assert [(d.doc_id, d.text) for d in docs] == [("a", "one"), ("c", "three")]
    messages = " | ".join(r.getMessage() for r in caplog.records)
    for problem in ("line 2: malformed JSON", "line 3: duplicate id", "line 4: missing 'text'"):
        assert f"{path}: {problem}" in messages


def test_skip_mode_still_fails_when_nothing_is_left(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"a.txt": "", "b.txt": " "})
    _raises(folder, "no usable documents", on_error="skip")


def test_every_bad_jsonl_line_is_reported_at_once(tmp_path: Path) -> None:
    lines = ['{"id": "a", "text": "ok"}', "{not json", '{"id": "b"}', '{"id": "c", "text": "x"}',
             '{"id": "a", "text": "again"}']
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        read_plain_documents(path)
    message = str(info.value)
    assert message.startswith(f"{path}: 3 bad lines: line 2: malformed JSON")
    assert "line 3: missing 'text'" in message
    assert "line 5: duplicate id 'a' (first on line 1)" in message
    assert message.endswith("(--skip-bad reads the rest)")


def test_every_bad_file_of_a_folder_is_reported_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_text("A BOMB EXPLODED.")
    (folder / "empty.txt").write_text("  \n")
    (folder / "binary.txt").write_bytes(b"ab\x00cd")
    with pytest.raises(InputError) as info:
        read_plain_documents(folder)
    message = str(info.value)
    assert message.startswith(f"{folder}: 2 bad files: ")
    assert f"{folder / 'binary.txt'}: binary file" in message
    assert f"{folder / 'empty.txt'}: empty file" in message


def test_a_long_list_of_problems_is_cut_with_a_count(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text("".join("{bad\n" for _ in range(14)))
    with pytest.raises(InputError, match=r"14 bad lines: .*; \.\.\. and 4 more"):
        read_plain_documents(path)


def test_encoding_reads_latin1_and_unknown_encodings_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "d.txt").write_bytes("THE MAYOR OF SAN JOSÉ WAS MURDERED.".encode("latin-1"))
    with pytest.raises(InputError, match="not valid UTF-8 .*--encoding"):
        read_plain_documents(folder, encoding="utf-8")
    (doc,) = read_plain_documents(folder, encoding="latin-1")
    assert doc.text == "THE MAYOR OF SAN JOSÉ WAS MURDERED."
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_bytes(json.dumps({"id": 1, "text": "JOSÉ"}, ensure_ascii=False)
                      .encode("cp1252") + b"\n")
    assert read_plain_documents(jsonl, encoding="cp1252")[0].text == "JOSÉ"
    with pytest.raises(InputError, match="nonsense-8: unknown text encoding"):
        read_plain_documents(folder, encoding="nonsense-8")


def test_a_document_over_the_length_limit_is_refused_before_parsing(tmp_path: Path,
                                                                   caplog) -> None:
    folder = _folder(tmp_path, {"big.txt": "the " * 375, "small.txt": "A bomb exploded."})
    with pytest.raises(InputError) as info:
        read_plain_documents(folder, max_chars=1000)
    assert str(info.value) == (
        f"{folder / 'big.txt'}: 1,500 characters, more than the 1,000 characters a document "
        "may have (--max-doc-chars): split it into documents, raise the limit, or leave it "
        "out with --skip-bad")
    with caplog.at_level(logging.WARNING, logger="aesi_lib.corpus.plain"):
        kept = read_plain_documents(folder, on_error="skip", max_chars=1000)
    assert [d.doc_id for d in kept] == ["small"]
    assert [r.getMessage() for r in caplog.records] == [f"skipping {info.value}"]
    # 0 and None lift the limit; the default is a million characters.
    assert len(read_plain_documents(folder, max_chars=0)) == 2
    assert len(read_plain_documents(folder, max_chars=None)) == 2
    assert len(read_plain_documents(folder)) == 2
    lines = _jsonl(tmp_path, [json.dumps({"id": "ok", "text": "A bomb exploded."}),
                              json.dumps({"id": 7, "text": "x" * 1001})])
    with pytest.raises(InputError) as info:
        read_plain_documents(lines, max_chars=1000)
    assert str(info.value).startswith(f"{lines}: line 2: document '7' has 1,001 characters, "
                                      "more than the 1,000 characters")


def test_a_file_far_over_the_limit_is_refused_without_reading_it(tmp_path: Path,
                                                                monkeypatch) -> None:
    folder = _folder(tmp_path, {"dump.txt": "y" * 4001})
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"read {self}"))
    with pytest.raises(InputError, match="4,001 bytes, more than the 1,000 characters"):
        read_plain_documents(folder / "dump.txt", max_chars=1000)


# ------------------------------------------------------------------ encoding of each file


def test_each_file_is_read_in_its_own_encoding(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    folder = _folder(tmp_path, {
        "utf8.txt": "The price was £5 at the café.",
        "latin1.txt": "The café charged £3 for the tea in Bogotá.".encode("latin-1"),
    })
    with caplog.at_level(logging.INFO, logger="aesi_lib.corpus.plain"):
        docs = read_plain_documents(folder)
    assert {d.doc_id: d.text for d in docs} == {
        "latin1": "The café charged £3 for the tea in Bogotá.",
        "utf8": "The price was £5 at the café.",
    }
    # One line for the file that was not UTF-8, naming it and the encoding used.
    assert [r.getMessage() for r in caplog.records] == [
        f"{folder / 'latin1.txt'}: not UTF-8, read as cp1252"]


def test_an_explicit_encoding_applies_to_every_file(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    folder = _folder(tmp_path, {
        "utf8.txt": "The price was £5 at the café.",
        "latin1.txt": "The café charged £3 for the tea.".encode("latin-1"),
    })
    with caplog.at_level(logging.INFO, logger="aesi_lib.corpus.plain"):
        docs = read_plain_documents(folder, encoding="latin-1")
    assert {d.doc_id: d.text for d in docs} == {
        "latin1": "The café charged £3 for the tea.",
        "utf8": "The price was Â£5 at the cafÃ©.",       # what the user asked for
    }
    assert not caplog.records
    with pytest.raises(InputError, match=r"latin1\.txt: line 1: not valid UTF-8 \(byte 0xe9\)"):
        read_plain_documents(folder, encoding="utf-8")


def test_a_file_in_no_encoding_is_a_bad_file(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    folder = _folder(tmp_path, {"good.txt": "The town was attacked.",
                                "noise.txt": b"The town " + bytes(range(128, 256)) * 3})
    info = _raises(folder, "noise.txt: line 1: not valid UTF-8 (byte 0x80) nor in any other "
                   "encoding detected; give the file's encoding with --encoding")
    assert "\n" not in str(info)
    with caplog.at_level(logging.WARNING, logger="aesi_lib.corpus.plain"):
        docs = read_plain_documents(folder, on_error="skip")
    assert [d.doc_id for d in docs] == ["good"]
    assert [r.getMessage() for r in caplog.records] == [f"skipping {info}"]


def test_a_jsonl_file_is_read_in_one_encoding_detected(tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    lines = [json.dumps({"id": 1, "text": "The café charged £3 for the tea."},
                        ensure_ascii=False),
             json.dumps({"id": 2, "text": "The mayor of San José was killed."},
                        ensure_ascii=False)]
    path = _jsonl(tmp_path, "\n".join(lines).encode("cp1252") + b"\n")
    with caplog.at_level(logging.INFO, logger="aesi_lib.corpus.plain"):
        docs = read_plain_documents(path)
    assert [d.text for d in docs] == ["The café charged £3 for the tea.",
                                      "The mayor of San José was killed."]
    assert [r.getMessage() for r in caplog.records] == [f"{path}: not UTF-8, read as cp1252"]


def test_an_empty_file_of_a_folder_says_how_to_go_on(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"a.txt": "ok", "empty.txt": ""})
    info = _raises(folder, "empty.txt: empty file: remove it or leave it out with --skip-bad")
    assert str(info) == f"{folder / 'empty.txt'}: empty file: remove it or leave it out with " \
                        "--skip-bad"


def test_a_malformed_jsonl_line_reads_cleanly(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, ['{"id": "a", "text": "ok"}', '{"id": "b", "text": '])
    with pytest.raises(InputError) as info:
        read_plain_documents(path)
    assert str(info.value) == (f"{path}: line 2: malformed JSON at column 21 (Expecting "
                               "value); fix the line or leave it out with --skip-bad")
