"""MUC-4 message reader: ID lines, header/body split, paragraphs, bad input, split loading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aesi_lib.corpus import muc4, muc4_keys
from aesi_lib.corpus.muc4 import (
    MUC4_SPLITS,
    load_muc4_corpus,
    load_muc4_split,
    read_muc4_messages,
    resolve_muc4_dir,
    split_muc4_header,
)
from aesi_lib.errors import InputError

TWO_MESSAGES = """
DEV-MUC3-0001 (NOSC)

   SAN SALVADOR, 3 JAN 90 -- [REPORT] [ARMED FORCES PRESS COMMITTEE,
COPREFA] [TEXT] THE BATTALION REPORTED THAT 50 PEASANTS WERE
KIDNAPPED.  THE SOURCE ADDED A NON-
COMMISSIONED OFFICER WAS HURT.

   MEANWHILE, A SOLDIER WAS WOUNDED -- THE ARMY SAID.


DEV-MUC3-0002  (NOSC)

   CLANDESTINE, 8 JAN 90 (RADIO VENCEREMOS)-- [TEXT] A WAR BULLETIN
INDICATES THAT TROOPS CLASHED WITH THE CAVALRY.
<BLANKS>
   AN M-16 RIFLE WAS SEIZED, SERIAL
AK-47
   THE END.
""".replace("<BLANKS>", "  \t")


def _write(tmp_path: Path, text: str | bytes, name: str = "msgs") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@pytest.fixture()
def two_docs(tmp_path: Path):
    return read_muc4_messages(_write(tmp_path, TWO_MESSAGES), "dev")


def test_ids_are_first_token_and_leading_blank_line_is_fine(two_docs) -> None:
    assert [d.doc_id for d in two_docs] == ["DEV-MUC3-0001", "DEV-MUC3-0002"]
    assert {d.split for d in two_docs} == {"dev"}
    assert two_docs[0].source.endswith("msgs")


def test_header_spans_lines_and_ends_at_text_marker(two_docs) -> None:
    assert two_docs[0].header == (
        "SAN SALVADOR, 3 JAN 90 -- [REPORT] [ARMED FORCES PRESS COMMITTEE, COPREFA] [TEXT]"
    )
    assert two_docs[1].header == "CLANDESTINE, 8 JAN 90 (RADIO VENCEREMOS)-- [TEXT]"


def test_body_keeps_paragraphs_and_joins_lines(two_docs) -> None:
    paragraphs = two_docs[0].text.split("\n\n")
    assert paragraphs == [
        "THE BATTALION REPORTED THAT 50 PEASANTS WERE KIDNAPPED. THE SOURCE ADDED A "
        "NON-COMMISSIONED OFFICER WAS HURT.",
        "MEANWHILE, A SOLDIER WAS WOUNDED -- THE ARMY SAID.",
    ]


def test_blank_line_with_spaces_ends_paragraph_and_short_id_like_line_is_body(two_docs) -> None:
    paragraphs = two_docs[1].text.split("\n\n")
    assert paragraphs[0] == "A WAR BULLETIN INDICATES THAT TROOPS CLASHED WITH THE CAVALRY."
    # "AK-47" at column 0 does not start a message: it neither follows a blank line nor has
    # the 3+ digits of an ID.
    assert paragraphs[1] == "AN M-16 RIFLE WAS SEIZED, SERIAL AK-47 THE END."


@pytest.mark.parametrize(
    ("paragraphs", "header", "body"),
    [
        (
            ["BOGOTA, 29 OCT 88 (INRAVISION) -- [REPORT ON NEWS CONFERENCE WITH BARCO]",
             "[TEXT] THE MEETING ENDED.", "SECOND."],
            "BOGOTA, 29 OCT 88 (INRAVISION) -- [REPORT ON NEWS CONFERENCE WITH BARCO] [TEXT]",
            ["THE MEETING ENDED.", "SECOND."],
        ),
        (
            ["SAN SALVADOR, NO DATE (FBIS) -- [EDITORIAL REPORT] [CONTINUED] THE STATION SAYS."],
            "SAN SALVADOR, NO DATE (FBIS) -- [EDITORIAL REPORT] [CONTINUED]",
            ["THE STATION SAYS."],
        ),
        (
            ["SAN SALVADOR, NO DATE (YSU) -- [INTERVIEW WITH HANDAL BY REPORTER] [TEXT] "
             "[CONTINUED] [HANDAL] WE ARE NOT DEMANDING IT."],
            "SAN SALVADOR, NO DATE (YSU) -- [INTERVIEW WITH HANDAL BY REPORTER] [TEXT] [CONTINUED]",
            ["[HANDAL] WE ARE NOT DEMANDING IT."],
        ),
        (
            ["MANAGUA (NICARAGUA), 18 NOV 89 (RADIO SANDINO) -- [TEXT] "
             "[NEWS CONFERENCE WITH NORMAN LACAYO] [LACAYO, IN PROGRESS] ...GOVERNMENT."],
            "MANAGUA (NICARAGUA), 18 NOV 89 (RADIO SANDINO) -- [TEXT] "
            "[NEWS CONFERENCE WITH NORMAN LACAYO]",
            ["[LACAYO, IN PROGRESS] ...GOVERNMENT."],
        ),
        (
            ["LIMA, 5 MAY 90 (AFP) -- [STATEMENT] [SHINING PATH] THE PEOPLE WILL WIN."],
            "LIMA, 5 MAY 90 (AFP) -- [STATEMENT] [SHINING PATH]",
            ["THE PEOPLE WILL WIN."],
        ),
        (
            ["Concepcion, 23 Aug 88 (Santiago) -- [Report] [Miguel] [Text] Police said."],
            "Concepcion, 23 Aug 88 (Santiago) -- [Report] [Miguel] [Text]",
            ["Police said."],
        ),
        (["NO DATELINE IN THIS TEXT.", "SECOND."], "", ["NO DATELINE IN THIS TEXT.", "SECOND."]),
        ([], "", []),
    ],
    ids=["across-paragraphs", "no-general", "speaker-stays", "news-conference-after-text",
         "specific-and-author", "mixed-case", "no-dateline", "empty"],
)
def test_split_muc4_header(paragraphs, header, body) -> None:
    assert split_muc4_header(paragraphs) == (header, body)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty file"),
        (b"DEV-MUC3-0001\n\n   X, 1 JAN 90 -- [TEXT] A\x00B\n", "binary file"),
        (b"DEV-MUC3-0001\n\n   X, 1 JAN 90 -- [TEXT] CAF\xe9\n", "line 3: not valid UTF-8"),
        (b"JUNK BEFORE\n\nDEV-MUC3-0001\n\n   X -- [TEXT] A.\n", "line 1: text before the first"),
        (b"   JUST TEXT.\n", "no message ID line"),
        (b"DEV-MUC3-0001\n\n   A.\n\nDEV-MUC3-0001\n\n   B.\n", "line 5: duplicate message ID"),
        (b"DEV-MUC3-0001\n\n   X, 1 JAN 90 -- [TEXT]\n\nDEV-MUC3-0002\n\n   B.\n",
         "line 1: message DEV-MUC3-0001 has no body"),
    ],
    ids=["empty", "nul", "bad-utf8", "junk-first", "no-id", "duplicate", "no-body"],
)
def test_bad_message_files_name_the_file(tmp_path: Path, content: bytes, problem: str) -> None:
    path = _write(tmp_path, content, "bad-file")
    with pytest.raises(InputError) as info:
        read_muc4_messages(path, "dev")
    assert info.value.path == str(path)
    assert problem in str(info.value)
    assert str(path) in str(info.value)


def test_missing_message_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_muc4_messages(tmp_path / "absent", "dev")


# ----------------------------------------------------------------------------- split loading

KEY_BLOCK = "\n".join(
    [f"{n}.".ljust(4) + label.ljust(32) + ("TST1-MUC3-0001" if n == 0 else "*")
     for n, label in enumerate(muc4_keys.SLOT_LABELS)]
)


def _layout(root: Path, with_key: bool) -> Path:
    for split, text_name, key_name in (
        ("tst1", "tst1-muc3", "key-tst1.v7"),
        ("tst3", "tst3-muc4", None),
    ):
        folder = root / split
        folder.mkdir(parents=True)
        prefix = split.upper() + ("-MUC3" if split == "tst1" else "-MUC4")
        (folder / text_name).write_text(f"{prefix}-0001\n\n   LIMA, 1 MAY 90 -- [TEXT] A.\n")
        if with_key and key_name:
            (folder / key_name).write_text(KEY_BLOCK + "\n")
    return root


def test_load_split_with_and_without_keys(tmp_path: Path) -> None:
    root = _layout(tmp_path / "muc4", with_key=True)
    tst1 = load_muc4_split(root, "tst1")
    assert tst1.name == "tst1"
    assert [d.doc_id for d in tst1.documents] == ["TST1-MUC3-0001"]
    assert tst1.keys is not None and tst1.keys[0].is_irrelevant
    assert load_muc4_split(root, "tst3").keys is None


def test_load_split_when_key_file_is_absent(tmp_path: Path) -> None:
    root = _layout(tmp_path / "muc4", with_key=False)
    assert load_muc4_split(root, "tst1").keys is None


def test_load_split_errors(tmp_path: Path) -> None:
    root = _layout(tmp_path / "muc4", with_key=False)
    with pytest.raises(ValueError, match="unknown MUC-4 split"):
        load_muc4_split(root, "tst9")
    with pytest.raises(InputError, match="no text file for split dev"):
        load_muc4_split(root, "dev")
    with pytest.raises(InputError, match="MUC-4 folder not found"):
        load_muc4_split(tmp_path / "nowhere", "tst1")


def test_resolve_muc4_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(muc4.MUC4_DIR_ENV, raising=False)
    cwd = tmp_path / "cwd" / "main"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(muc4, "_REPO_ROOT", tmp_path / "repo")
    assert resolve_muc4_dir() is None

    beside_repo = tmp_path / "shared" / "data" / "muc4"
    beside_repo.mkdir(parents=True)
    assert resolve_muc4_dir() == beside_repo
    beside_cwd = tmp_path / "cwd" / "shared" / "data" / "muc4"
    beside_cwd.mkdir(parents=True)
    assert resolve_muc4_dir() == beside_cwd

    explicit = tmp_path / "explicit"
    explicit.mkdir()
    monkeypatch.setenv(muc4.MUC4_DIR_ENV, str(explicit))
    assert resolve_muc4_dir() == explicit
    assert resolve_muc4_dir(str(beside_repo)) == beside_repo
    with pytest.raises(InputError, match="MUC-4 folder not found") as info:
        resolve_muc4_dir(tmp_path / "missing")
    assert info.value.path == str(tmp_path / "missing")
    monkeypatch.setenv(muc4.MUC4_DIR_ENV, str(tmp_path / "gone"))
    with pytest.raises(InputError, match="AESI_MUC4_DIR"):
        resolve_muc4_dir()


# ----------------------------------------------------------------------------- real corpus


@pytest.fixture(scope="module")
def corpus(muc4_dir: Path):
    return {s.name: s for s in load_muc4_corpus(muc4_dir)}


@pytest.mark.muc4
def test_message_counts_per_split(corpus) -> None:
    counts = {name: len(s.documents) for name, s in corpus.items()}
    assert counts == {"dev": 1300, "tst1": 100, "tst2": 100, "tst3": 100, "tst4": 100}
    assert tuple(corpus) == MUC4_SPLITS


@pytest.mark.muc4
def test_ids_are_unique_and_numbered(corpus) -> None:
    for name, split in corpus.items():
        ids = [d.doc_id for d in split.documents]
        prefix = {"dev": "DEV-MUC3", "tst1": "TST1-MUC3"}.get(name, f"{name.upper()}-MUC4")
        assert ids == [f"{prefix}-{i:04d}" for i in range(1, len(ids) + 1)]
        assert {d.split for d in split.documents} == {name}


@pytest.mark.muc4
def test_every_real_message_has_dateline_header_and_clean_body(corpus) -> None:
    general = re.compile(r"\[(TEXT|SUMMARY|EXCERPTS?|CONTINUED)\]")
    for split in corpus.values():
        for doc in split.documents:
            assert " -- " in doc.header or "--" in doc.header, doc.doc_id
            assert general.search(doc.header), doc.doc_id
            assert doc.text and "\n\n\n" not in doc.text, doc.doc_id
            assert not doc.text.startswith(("[TEXT]", "[EXCERPT", "[CONTINUED]")), doc.doc_id
            assert all(p == p.strip() and "\n" not in p for p in doc.text.split("\n\n"))


@pytest.mark.muc4
def test_known_messages(corpus) -> None:
    docs = {d.doc_id: d for s in corpus.values() for d in s.documents}
    first = docs["DEV-MUC3-0001"]
    assert first.header == (
        "SAN SALVADOR, 3 JAN 90 -- [REPORT] [ARMED FORCES PRESS COMMITTEE, COPREFA] [TEXT]"
    )
    assert first.text.startswith("THE ARCE BATTALION COMMAND HAS REPORTED THAT ABOUT 50")
    assert len(first.text.split("\n\n")) == 7
    assert docs["TST4-MUC4-0048"].header.endswith("PUNTA DEL ESTE, URUGUAY] [TEXT]")
    assert docs["TST4-MUC4-0048"].text.startswith("THE SECOND MEETING OF THE SO-CALLED GROUP")
    assert docs["TST4-MUC4-0069"].text.startswith("[REPORTER] DEAR LISTENERS")
    assert docs["TST3-MUC4-0001"].text.startswith("[HANDAL] WE ARE NOT DEMANDING")


@pytest.mark.muc4
def test_mixed_case_tst4_reads_like_upper_case(muc4_dir: Path, corpus) -> None:
    mixed = read_muc4_messages(muc4_dir / "tst4" / "tst4-muc4.mixed-case", "tst4")
    upper = corpus["tst4"].documents
    assert [d.doc_id for d in mixed] == [d.doc_id for d in upper]
    assert [d.text.upper() for d in mixed] == [d.text for d in upper]
