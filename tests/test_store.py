"""DuckDB store: schema, content-hash upserts, one-transaction replacement, locks, PMI SQL."""

from __future__ import annotations

import math
import subprocess
import sys

import duckdb
import pandas as pd
import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.errors import InputError, StoreLockedError
from aesi_lib.parse.types import ParsedDocument, Sentence, Token
from aesi_lib.store import Store, document_sha256
from aesi_lib.store.database import ENTITY_COLUMNS


def _parse(doc_id: str, words: list[str]) -> ParsedDocument:
    tokens = tuple(Token(w, w.lower(), "NOUN", "NN", -1 if i == 0 else 0, "dobj")
                   for i, w in enumerate(words))
    return ParsedDocument(doc_id, (Sentence(tokens),))


def _entities(doc_id: str, heads: list[str]) -> pd.DataFrame:
    return pd.DataFrame([(doc_id, 0, i, h, h.lower(), h, "kill", "dobj", "")
                         for i, h in enumerate(heads)], columns=ENTITY_COLUMNS)


def _add(store: Store, doc: Document, heads: list[str], config: str = "cfg") -> None:
    store.replace_documents([doc], [_parse(doc.doc_id, heads)], _entities(doc.doc_id, heads),
                            config)


def test_unchanged_document_is_not_parsed_again(tmp_path):
    with Store(tmp_path / "p.duckdb") as store:
        doc = Document("D1", "A bomb hit a house.", "user", "x.txt")
        assert store.documents_to_parse([doc], "cfg") == [doc]
        _add(store, doc, ["bomb", "house"])
        assert store.documents_to_parse([doc], "cfg") == []
        # Another parser configuration makes the stored parse stale.
        assert store.documents_to_parse([doc], "other") == [doc]
        assert store.stored_hashes()["D1"] == (document_sha256(doc.text), "cfg")


def test_changed_document_replaces_all_its_rows(tmp_path):
    with Store(tmp_path / "p.duckdb") as store:
        _add(store, Document("D1", "old text", "user", "x"), ["bomb", "house", "car"])
        _add(store, Document("D2", "other", "user", "y"), ["priest"])
        changed = Document("D1", "new text", "user", "x")
        assert store.documents_to_parse([changed], "cfg") == [changed]
        _add(store, changed, ["mine"])
        table = store.entity_table()
        assert sorted(table["head"]) == ["mine", "priest"]
        tokens = store.con.execute("SELECT count(*) FROM tokens WHERE doc_id='D1'").fetchone()
        assert tokens == (1,)
        assert list(table["entity_id"]) == [0, 1]


def test_failed_replacement_leaves_the_old_rows(tmp_path):
    with Store(tmp_path / "p.duckdb") as store:
        _add(store, Document("D1", "old", "user", "x"), ["bomb"])
        broken = _entities("D1", ["mine"]).assign(sent_id="not a number")
        with pytest.raises(duckdb.Error):
            store.replace_documents([Document("D1", "new", "user", "x")],
                                    [_parse("D1", ["mine"])], broken, "cfg")
        assert list(store.entity_table()["head"]) == ["bomb"]
        assert store.stored_hashes()["D1"][0] == document_sha256("old")


def test_second_writer_process_gets_a_clear_error(tmp_path):
    path = tmp_path / "p.duckdb"
    with Store(path):
        code = ("import sys\nfrom aesi_lib.store import Store\nfrom aesi_lib.errors import "
                "StoreLockedError\ntry:\n    Store(sys.argv[1])\nexcept StoreLockedError as e:\n"
                "    print('LOCKED', e)\n")
        out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                             text=True, timeout=120)
    assert "LOCKED" in out.stdout, out.stderr
    assert str(path) in out.stdout
    assert issubclass(StoreLockedError, Exception)


def test_corrupt_database_file_is_named(tmp_path):
    path = tmp_path / "broken.duckdb"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputError, match="broken.duckdb"):
        Store(path)


def test_head_pmi_matches_a_hand_computed_example(tmp_path):
    docs = {"D1": ["bomb", "house"], "D2": ["bomb", "house"], "D3": ["bomb", "priest"],
            "D4": ["priest"]}
    with Store(tmp_path / "p.duckdb") as store:
        for doc_id, heads in docs.items():
            _add(store, Document(doc_id, " ".join(heads), "user", doc_id), heads)
        pmi = store.head_pmi()
        store_pairs = {(r.word1, r.word2): r for r in pmi.itertuples()}
    # N = 4 documents; df(bomb)=3, df(house)=2, df(priest)=2.
    assert store_pairs[("bomb", "house")].pmi == pytest.approx(math.log(2 * 4 / (3 * 2)))
    assert store_pairs[("house", "bomb")].pmi == pytest.approx(math.log(4 / 3))
    assert store_pairs[("bomb", "priest")].pmi == pytest.approx(math.log(1 * 4 / (3 * 2)))
    assert store_pairs[("bomb", "house")].npmi == pytest.approx(
        math.log(4 / 3) / -math.log(2 / 4))
    assert store_pairs[("bomb", "bomb")].pmi == pytest.approx(math.log(3 * 4 / 9))
    assert ("house", "priest") not in store_pairs
    # With a support threshold, pairs seen in one document only disappear.
    with Store(tmp_path / "p.duckdb") as store:
        strict = store.head_pmi(min_pair_docs=2)
    assert ("bomb", "priest") not in set(zip(strict.word1, strict.word2, strict=True))


def test_runs_and_assignments_round_trip(tmp_path):
    with Store(tmp_path / "p.duckdb") as store:
        store.start_run("r1", {"seed": 0})
        frame = pd.DataFrame([{"doc_id": "D1", "sent_id": 0, "entity_id": 0, "head": "bomb",
                               "mention": "a bomb", "predicate": "explode", "dep": "nsubj",
                               "template": 1, "slot": 2}])
        store.finish_run("r1", frame, {"f1": 0.5})
        status = store.con.execute("SELECT status, results FROM runs").fetchone()
        assert status == ("completed", '{"f1": 0.5}')
        assert store.con.execute("SELECT template, slot FROM assignments").fetchall() == [(1, 2)]


def test_record_run_replaces_an_earlier_record(tmp_path):
    frame = pd.DataFrame([{"doc_id": "D1", "sent_id": 0, "entity_id": 0, "head": "bomb",
                           "mention": "a bomb", "predicate": "explode", "dep": "nsubj",
                           "template": 1, "slot": 2}])
    with Store(tmp_path / "p.duckdb") as store:
        store.record_run("r1", {"seed": 0}, frame, {"f1": 0.5})
        store.record_run("r1", {"seed": 0}, frame.assign(slot=3), {"f1": 0.6})
        assert store.con.execute("SELECT count(*), any_value(results) FROM runs").fetchone() == (
            1, '{"f1": 0.6}')
        assert store.con.execute("SELECT slot FROM assignments").fetchall() == [(3,)]
