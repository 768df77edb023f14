"""Character offsets into the text as the user gave it (``aesi_lib.corpus.offsets``): every
entity row of a corpus with untidy whitespace slices the user's own text."""

from __future__ import annotations

import json
import re

import pytest

from aesi_lib.corpus.offsets import offset_map, original_span
from aesi_lib.corpus.plain import paragraphs_to_text, read_plain_documents, text_to_paragraphs


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_the_map_finds_every_visible_character():
    original = "  The  guer-\r\nrillas\tattacked\n\n\n   the   town .  "
    text = paragraphs_to_text(text_to_paragraphs(original.splitlines()))
    positions = offset_map(text, original)
    for i, char in enumerate(text):
        if not char.isspace():
            assert original[positions[i]] == char
    start = text.index("guer-rillas")
    a, b = original_span(start, start + len("guer-rillas"), positions)
    assert original[a:b] == "guer-\r\nrillas"
    assert original_span(3, 3, positions) == (-1, -1)
    with pytest.raises(ValueError):
        offset_map("The towns", "The town")


TXT = {
    "a.txt": "GUERRILLAS   ATTACKED\tTHE POLICE\r\nSTATION IN THE NORTH.\r\n\r\n\r\n"
             "  TWO OFFICERS WERE KILLED BY THE TERRO-\r\nRISTS.\r\n",
    "b.txt": "The army    captured\n\n\nthe rebel   leader\tin  the capital.",
}
JSONL = [("j1", "A car bomb\n  exploded near\t\tthe embassy.\n\n\nThe police arrested two men."),
         ("j2", "Tidy text: the mayor was kidnapped.")]


@pytest.mark.parametrize("kind", ["txt", "jsonl"])
def test_every_entity_row_slices_the_users_own_text(kind, tmp_path):
    from aesi_lib.run.config import RunConfig
    from aesi_lib.steps.executor import Executor
    from aesi_lib.steps.graph import Project, ingest
    from aesi_lib.store import Store

    if kind == "txt":
        folder = tmp_path / "docs"
        folder.mkdir()
        for name, text in TXT.items():
            (folder / name).write_bytes(text.encode("utf-8"))
        path, originals = folder, {n.removesuffix(".txt"): t for n, t in TXT.items()}
    else:
        path = tmp_path / "docs.jsonl"
        path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in JSONL))
        originals = dict(JSONL)
    documents = read_plain_documents(path)
    assert any(d.original for d in documents)
    project = Project.at(tmp_path / "project")
    ingest(documents, RunConfig(), project, Executor())
    with Store(project.db, read_only=True) as store:
        table = store.entity_table()
        assert {d.doc_id: d.original for d in store.documents()} == {
            d.doc_id: d.original for d in documents}
    assert len(table) >= 4
    for row in table.itertuples():
        original = originals[row.doc_id]
        piece = original[row.start_char:row.end_char]
        assert piece and not piece[0].isspace() and not piece[-1].isspace()
        # The mention is the user's text itself, line breaks and blanks included.
        assert row.mention == piece, (row.doc_id, piece, row.mention)
    if kind == "txt":
        assert "POLICE\r\nSTATION" in set(table["mention"])   # a line break inside a mention


@pytest.mark.muc4
def test_every_muc4_word_slices_the_message_as_the_file_has_it(muc4_dir):
    from aesi_lib.corpus.muc4 import load_muc4_corpus

    for split in load_muc4_corpus(muc4_dir):
        for doc in split.documents:
            assert doc.original.endswith(doc.text.split()[-1])
            positions = offset_map(doc.text, doc.original)
            for match in re.finditer(r"\S+", doc.text):
                a, b = original_span(match.start(), match.end(), positions)
                # A word broken at a line-end hyphen spans the line break in the file.
                assert _squeeze(doc.original[a:b]) == match.group(), (doc.doc_id, match.group())
