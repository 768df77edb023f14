"""DuckDB store: schema, content-hash upserts, one-transaction replacement, locks, PMI SQL,
damaged files, the document journal, deleting documents and pruning old runs."""

from __future__ import annotations

import math
import subprocess
import sys

import duckdb
import pandas as pd
import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.errors import InputError, StoreDamagedError, StoreLockedError
from aesi_lib.parse.types import ParsedDocument, Sentence, Token
from aesi_lib.store import Store, document_sha256
from aesi_lib.store.database import (
    DEFAULT_KEEP_RUNS,
    ENTITY_COLUMNS,
    journal_path,
    read_journal,
)


def _parse(doc_id: str, words: list[str]) -> ParsedDocument:
    tokens = tuple(Token(w, w.lower(), "NOUN", "NN", -1 if i == 0 else 0, "dobj")
                   for i, w in enumerate(words))
    return ParsedDocument(doc_id, (Sentence(tokens),))


def _entities(doc_id: str, heads: list[str]) -> pd.DataFrame:
    return pd.DataFrame([(doc_id, 0, i, h, h.lower(), h, "kill", "dobj", "", -1, -1, -1, h, False)
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


# -- damage, journal, delete, prune ---------------------------------------------------------


def _big_store(path, n_docs: int = 60, words: int = 400) -> None:
    """A store whose tables span several DuckDB blocks (so that a cut can fall in the data)."""
    heads = {f"D{i:03d}": [f"w{i}_{j}" for j in range(words)] for i in range(n_docs)}
    with Store(path) as store:
        store.replace_documents(
            [Document(d, " ".join(h), "user", "x") for d, h in heads.items()],
            [_parse(d, h) for d, h in heads.items()],
            pd.concat([_entities(d, h) for d, h in heads.items()]), "cfg")


def test_a_file_cut_inside_its_data_opens_but_fails_the_read_check(tmp_path):
    path = tmp_path / "aesi.duckdb"
    _big_store(path)
    data = path.read_bytes()
    assert len(data) > 3 * 262144, len(data)
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StoreDamagedError) as err:
        with Store(path, read_only=True) as store:
            store.check_readable()
    message = str(err.value)
    assert message.startswith(f"{path}: the project database is damaged (IO Error")
    assert "\n" not in message
    # The journal beside the store holds every document: the hint names the rebuild.
    assert f"aesi store rebuild --project-dir {tmp_path}" in message
    assert str(tmp_path / "parse-cache") in message


def test_random_bytes_name_the_file_and_the_way_out_without_a_journal(tmp_path):
    path = tmp_path / "aesi.duckdb"
    path.write_bytes(bytes(range(256)) * 400)
    with pytest.raises(StoreDamagedError) as err:
        Store(path)
    message = str(err.value)
    assert "not a valid DuckDB database file" in message
    assert f"mv {path} {path}.damaged" in message
    assert "must be given again with `aesi update --docs`" in message
    assert isinstance(err.value, InputError)


def test_a_healthy_store_reads_to_the_last_row(tmp_path):
    path = tmp_path / "aesi.duckdb"
    _big_store(path, n_docs=3, words=5)
    with Store(path, read_only=True) as store:
        counts = store.check_readable()
    assert counts == {"documents": 3, "sentences": 3, "tokens": 15, "entities": 15,
                      "runs": 0, "assignments": 0}


def test_a_store_of_an_older_schema_is_read_to_the_last_row_too(tmp_path):
    """A project made before a table was added (opened read-only, nothing is created) is
    checked on the tables it has, not waved through."""
    path = tmp_path / "aesi.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE documents AS SELECT 'D' || range AS doc_id, "
                    "repeat('text ', 50) || range AS text FROM range(40000)")
    with Store(path, read_only=True) as store:
        assert store.check_readable() == {"documents": 40000}
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StoreDamagedError, match="the project database is damaged"):
        with Store(path, read_only=True) as store:
            store.check_readable()


def test_the_journal_follows_puts_and_deletes(tmp_path):
    path = tmp_path / "aesi.duckdb"
    with Store(path) as store:
        _add(store, Document("D1", "old text", "user", "a.txt", "hdr"), ["bomb"])
        _add(store, Document("D2", "two", "dev", "b.txt"), ["mine"])
        _add(store, Document("D1", "new text", "user", "a.txt", "hdr"), ["bomb"])
        store.delete_documents(["D2"])
    journal = journal_path(path)
    assert journal == tmp_path / "aesi.documents.jsonl"
    assert len(journal.read_text().splitlines()) == 4
    assert read_journal(journal) == [Document("D1", "new text", "user", "a.txt", "hdr")]
    # A last line cut short by a crash is ignored; a bad line inside is an error.
    journal.write_text(journal.read_text() + '{"op": "put", "doc_id": "D3", "te')
    assert [d.doc_id for d in read_journal(journal)] == ["D1"]
    journal.write_text("not json\n" + journal.read_text())
    with pytest.raises(InputError, match="line 1 is not a journal record"):
        read_journal(journal)


def test_a_store_without_a_journal_writes_one_and_a_new_store_sets_an_old_one_aside(tmp_path):
    path = tmp_path / "aesi.duckdb"
    with Store(path) as store:
        _add(store, Document("D1", "text one", "user", "x"), ["bomb"])
    journal_path(path).unlink()
    with Store(path):                       # an existing store (older aesi): journal written
        pass
    assert [d.text for d in read_journal(journal_path(path))] == ["text one"]
    path.unlink()
    with Store(path):                       # a new database: the old journal is set aside
        pass
    assert not journal_path(path).exists()
    assert len(list(tmp_path.glob("aesi.documents.jsonl.*.old"))) == 1


def test_delete_documents_removes_every_row_in_one_go(tmp_path):
    with Store(tmp_path / "p.duckdb") as store:
        _add(store, Document("D1", "a", "user", "x"), ["bomb", "house"])
        _add(store, Document("D2", "b", "dev", "x"), ["mine"])
        _add(store, Document("D3", "c", "dev", "x"), ["priest", "car", "town"])
        removed = store.delete_documents(["D1"], splits=["dev"])
        assert removed == {"documents": 3, "sentences": 3, "tokens": 6, "entities": 6}
        assert store.document_ids() == []
        for table in ("sentences", "tokens", "entities"):
            assert store.con.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)


def test_delete_of_an_unknown_id_or_split_deletes_nothing(tmp_path):
    with Store(tmp_path / "p.duckdb") as store:
        _add(store, Document("D1", "a", "user", "x"), ["bomb"])
        with pytest.raises(InputError, match=r"1 of the ids given are not in the store \(D9\)"):
            store.delete_documents(["D1", "D9"])
        with pytest.raises(InputError, match="no stored documents in split tst9"):
            store.delete_documents(splits=["tst9"])
        assert store.document_ids() == ["D1"]


def _run_frame(n: int) -> pd.DataFrame:
    return pd.DataFrame([{"doc_id": "D1", "sent_id": 0, "entity_id": i, "head": "bomb",
                          "mention": "a bomb", "predicate": "explode", "dep": "nsubj",
                          "template": 1, "slot": 2} for i in range(n)])


def test_record_run_keeps_the_assignments_of_the_newest_runs(tmp_path):
    with Store(tmp_path / "p.duckdb") as store:
        for i in range(5):
            store.record_run(f"r{i}", {"seed": i}, _run_frame(10 + i), {})
        runs = store.runs()
        # By default the rows of the newest DEFAULT_KEEP_RUNS (the README's 3) stay.
        assert DEFAULT_KEEP_RUNS == 3
        assert list(runs["run_id"]) == ["r4", "r3", "r2", "r1", "r0"]
        assert list(runs["assignments"]) == [14, 13, 12, 0, 0]
        # by hand: keep one
        pruned = store.prune_runs(1)
        assert pruned == {"rows_deleted": 25, "runs_pruned": ["r3", "r2"], "runs_kept": ["r4"]}
        assert store.con.execute("SELECT count(*) FROM runs").fetchone() == (5,)
        # None keeps everything
        store.record_run("r5", {}, _run_frame(2), {}, keep_runs=None)
        assert list(store.runs()["assignments"]) == [2, 14, 0, 0, 0, 0]


def test_a_store_with_the_chains_of_the_removed_coreference_option_opens(tmp_path):
    """A project stored while coreference chains were an option (features.chains) has a
    ``chains`` table: read-only it opens and reads as before, the first write drops the table
    (nothing reads it), and the documents, their rows and deletes are untouched."""
    path = tmp_path / "aesi.duckdb"
    _big_store(path, n_docs=3, words=5)
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE chains (doc_id VARCHAR NOT NULL, sent_id INTEGER NOT NULL, "
                    "head_index INTEGER NOT NULL, chain INTEGER NOT NULL, kind VARCHAR NOT "
                    "NULL, head VARCHAR NOT NULL, head_lemma VARCHAR NOT NULL, mention VARCHAR "
                    "NOT NULL)")
        con.execute("INSERT INTO chains SELECT doc_id, 0, 0, 1, 'nominal', 'h', 'h', 'the h' "
                    "FROM documents")
    with Store(path, read_only=True) as store:
        assert store.check_readable()["chains"] == 3
    with Store(path, read_only=True) as store:
        entities = store.entity_table()
    with Store(path) as store:
        pd.testing.assert_frame_equal(store.entity_table(), entities)
        removed = store.delete_documents([store.document_ids()[0]])
        assert removed["documents"] == 1 and set(removed) == {
            "documents", "sentences", "tokens", "entities"}
    with Store(path, read_only=True) as store:
        counts = store.check_readable()
    assert "chains" not in counts and counts["documents"] == 2


def test_a_store_from_before_character_offsets_and_predicate_indices_reads_minus_one(tmp_path):
    path = tmp_path / "aesi.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE documents (doc_id VARCHAR PRIMARY KEY, split VARCHAR NOT NULL, "
                "source VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, text VARCHAR NOT NULL, "
                "header VARCHAR NOT NULL DEFAULT '', parse_config VARCHAR, "
                "added_at TIMESTAMP NOT NULL DEFAULT current_timestamp)")
    con.execute("CREATE TABLE entities (doc_id VARCHAR NOT NULL, sent_id INTEGER NOT NULL, "
                "head_index INTEGER NOT NULL, head VARCHAR NOT NULL, head_lemma VARCHAR NOT NULL, "
                "mention VARCHAR NOT NULL, predicate VARCHAR NOT NULL, dep VARCHAR NOT NULL, "
                "ner VARCHAR NOT NULL)")
    con.execute("INSERT INTO documents (doc_id, split, source, sha256, text) "
                "VALUES ('old', 'user', 'x', 'h', 'THE BOMB')")
    con.execute("INSERT INTO entities VALUES ('old', 0, 1, 'BOMB', 'bomb', 'BOMB', 'explode', "
                "'nsubj', '')")
    con.close()
    with Store(path) as store:
        _add(store, Document("new", "A bomb hit a house.", "user", "x.txt"), ["Bomb", "House"])
        table = store.entity_table()
    old = table[table["doc_id"] == "old"]
    assert old[["start_char", "end_char", "predicate_index"]].values.tolist() == [[-1, -1, -1]]
    assert len(table[table["doc_id"] == "new"]) == 2
