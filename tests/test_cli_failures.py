"""Failures of the surroundings, each run for real as an ``aesi`` subprocess: an output folder that
cannot be written, a damaged store (truncated, random bytes) and its rebuild, a Prefect API
that does not answer, evaluation keys that match no document. Each ends with one line on
stderr and exit status 2 before any work, and leaves what was there as it was. A disk that
fills up during the work (a writer made to fail as on a full disk) ends the command with one
line naming the file, exit status 1, and the rerun resumes."""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from aesi_cli.environment import STORE_FILE
from aesi_lib.corpus.demo import demo_data_dir
from aesi_lib.corpus.types import Document
from aesi_lib.parse.types import ParsedDocument, Sentence, Token
from aesi_lib.store import Store
from aesi_lib.store.database import ENTITY_COLUMNS, journal_path, read_journal

REPO = Path(__file__).resolve().parents[1]
DEMO_KEYS = demo_data_dir() / "demo-key.muc4"
EARLY_S = 30.0
"""A check that runs before any work answers well within this (imports included)."""


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "prefect-home"), "PYTHONPATH": str(REPO),
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1", **extra})
    return env


def aesi(tmp_path: Path, *args: str, timeout: float = 120, **env: str
         ) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "aesi_cli", *args],
                          env=_env(tmp_path, **env), capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)
    done.seconds = time.monotonic() - started  # type: ignore[attr-defined]
    return done


def one_line_error(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The one stderr line of a command that failed with exit status 2 before any work."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith("aesi: error: "), lines
    assert "Traceback" not in done.stderr + done.stdout
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert done.seconds < EARLY_S, done.seconds  # type: ignore[attr-defined]
    return lines[0]


def _docs(tmp_path: Path) -> Path:
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": "U1", "text": "A bomb exploded in Lima."}) + "\n")
    return path


def _fake_run(tmp_path: Path) -> Path:
    """A run folder that passes ``read_run`` (the files it names exist)."""
    run = tmp_path / "run"
    run.mkdir()
    for name in ("features.npz", "labels.npz"):
        (run / name).write_bytes(b"x")
    (run / "results.json").write_text(json.dumps({"artifacts": {
        "features": str(run / "features.npz"), "labels": str(run / "labels.npz"),
        "project_dir": str(tmp_path / "project")}}))
    return run


def test_every_writing_command_fails_at_once_on_an_unwritable_folder(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    bad = str(blocker / "sub")
    project = str(tmp_path / "project")
    sweep = tmp_path / "sweep.json"
    sweep.write_text(json.dumps({"base": {}, "configurations": {"one": {}}}))
    docs, run = str(_docs(tmp_path)), str(_fake_run(tmp_path))
    cases = {
        "--out": [["run", "--demo", "--project-dir", project, "--out", bad],
                  ["update", "--docs", docs, "--project-dir", project, "--out", bad],
                  ["extract", "--docs", docs, "--run", run, "--out", bad],
                  ["report", "--run", run, "--out", bad],
                  ["sweep", "--configs", str(sweep), "--demo", "--project-dir", project,
                   "--out", bad]],
        "--project-dir": [["run", "--demo", "--project-dir", bad, "--out", str(tmp_path / "o")],
                          ["extract", "--docs", docs, "--run", run, "--project-dir", bad],
                          ["store", "rebuild", "--project-dir", bad]],
        "the folder of --json": [["evaluate", "--assignments", str(_assignments(tmp_path, 40)),
                                  "--keys", str(DEMO_KEYS), "--json", f"{bad}/scores.json"]],
    }
    for what, commands in cases.items():
        for argv in commands:
            line = one_line_error(aesi(tmp_path, *argv), f"{what} cannot be created",
                                  f"{blocker} is a file, not a folder")
            assert line.startswith(f"aesi: error: {blocker}/sub"), line
    # Nothing was started: no project folder, no output.
    assert not Path(project).exists()
    assert not (tmp_path / "o").exists()
    assert not (tmp_path / "run" / "report").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder (chmod does "
                    "not stop it), so the case cannot be made; the file-in-the-way case above "
                    "covers the same check")
def test_a_read_only_folder_is_named_with_its_parent(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        one_line_error(aesi(tmp_path, "run", "--demo", "--project-dir", str(tmp_path / "p"),
                            "--out", str(locked / "out")),
                       "--out is not writable", f"its parent {locked} is not writable")
    finally:
        locked.chmod(0o755)


def _parse(doc_id: str, words: list[str]) -> ParsedDocument:
    tokens = tuple(Token(w, w.lower(), "NOUN", "NN", -1 if i == 0 else 0, "dobj")
                   for i, w in enumerate(words))
    return ParsedDocument(doc_id, (Sentence(tokens),))


def _stored_project(project: Path, n_docs: int = 60, words: int = 400) -> Path:
    """A project whose store spans several DuckDB blocks, with its document journal."""
    heads = {f"D{i:03d}": [f"w{i}_{j}" for j in range(words)] for i in range(n_docs)}
    db = project / STORE_FILE
    base = ["doc_id", "sent_id", "head_index", "head", "head_lemma", "mention", "predicate",
            "dep", "ner"]
    entities = pd.concat([
        pd.DataFrame([(d, 0, i, w, w, w, "kill", "dobj", "") for i, w in enumerate(h)],
                     columns=base) for d, h in heads.items()]
    ).reindex(columns=ENTITY_COLUMNS, fill_value=-1)      # later columns: character offsets
    with Store(db) as store:
        store.replace_documents([Document(d, " ".join(h), "user", "x") for d, h in heads.items()],
                                [_parse(d, h) for d, h in heads.items()], entities, "cfg")
    return db


def test_a_truncated_store_fails_in_one_line_before_any_work(tmp_path):
    project = tmp_path / "project"
    db = _stored_project(project)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    cut = db.read_bytes()
    for argv in (["run", "--demo", "--out", str(tmp_path / "out")],
                 ["update", "--docs", str(_docs(tmp_path)), "--out", str(tmp_path / "out")]):
        one_line_error(aesi(tmp_path, *argv, "--project-dir", str(project)),
                       f"{db}: the project database is damaged (IO Error",
                       f"aesi store rebuild --project-dir {project}",
                       f"{project / 'parse-cache'}", "records of past runs are lost")
    assert db.read_bytes() == cut                 # left as it was
    assert not (tmp_path / "out").exists()


def test_random_bytes_fail_in_one_line_and_say_what_is_lost(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    db = project / STORE_FILE
    db.write_bytes(os.urandom(100_000))
    before = db.read_bytes()
    one_line_error(aesi(tmp_path, "run", "--demo", "--project-dir", str(project), "--out",
                        str(tmp_path / "out")),
                   "not a valid DuckDB database file", f"mv {db} {db}.damaged",
                   "documents added with `aesi update` must be given again")
    # Without a journal there is nothing to rebuild from: said in one line, file untouched.
    one_line_error(aesi(tmp_path, "store", "rebuild", "--project-dir", str(project)),
                   "nothing to rebuild it from", f"mv {db} {db}.damaged")
    assert db.read_bytes() == before


def test_store_rebuild_restores_every_journaled_document_from_the_parse_cache(tmp_path,
                                                                             demo_seed):
    """The documents of the journal (including those an update added) come back; the second
    rebuild parses nothing: every parse is in the parse cache."""
    project = tmp_path / "project"
    demo_seed.copy_to(prefect_home=tmp_path / "prefect-home")     # the rebuild is a flow
    db = project / STORE_FILE
    texts = {"A1": ("demo", "Guerrillas attacked the embassy in Lima."),
             "A2": ("demo", "A bomb exploded near the mayor's house."),
             "U1": ("user", "Terrorists kidnapped two priests on Monday.")}
    with Store(db) as store:
        store.replace_documents([Document(d, t, s, "x") for d, (s, t) in texts.items()],
                                [_parse(d, t.split()) for d, (s, t) in texts.items()],
                                pd.DataFrame(columns=ENTITY_COLUMNS), "unparsed")
    expected = read_journal(journal_path(db))
    assert [d.doc_id for d in expected] == ["A1", "A2", "U1"]
    for round_ in (1, 2):
        db.write_bytes(db.read_bytes()[:5000])    # damaged
        done = aesi(tmp_path, "store", "rebuild", "--project-dir", str(project), timeout=180)
        assert done.returncode == 0, done.stderr[-3000:]
        parsed = 3 if round_ == 1 else 0
        assert (f"rebuilt {db}: 3 documents stored again ({parsed} parsed, {3 - parsed} from "
                "the parse cache)") in done.stdout, done.stdout
        assert len(list(project.glob(f"{STORE_FILE}.damaged-*"))) >= 1
        with Store(db, read_only=True) as store:
            assert store.documents() == expected
            assert store.check_readable()["entities"] > 0     # parsed for real this time
        assert read_journal(journal_path(db)) == expected
        assert not list(project.glob("*.rebuilding"))
    done = aesi(tmp_path, "store", "rebuild", "--project-dir", str(project))
    assert done.returncode == 0 and "is readable: nothing to rebuild" in done.stdout


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]       # closed again when the socket is


def test_an_unreachable_prefect_api_fails_in_one_line_before_any_work(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/api"
    done = aesi(tmp_path, "run", "--demo", "--project-dir", str(tmp_path / "p"), "--out",
                str(tmp_path / "o"), PREFECT_API_URL=url)
    one_line_error(done, f"the Prefect API at {url} (set by PREFECT_API_URL) is unreachable",
                   "start that server (`prefect server start`) or unset PREFECT_API_URL")
    assert not (tmp_path / "p").exists()
    assert not (tmp_path / "o").exists()


def _assignments(tmp_path: Path, n_docs: int, prefix: str = "") -> Path:
    path = tmp_path / f"assignments-{n_docs}{prefix}.csv"
    pd.DataFrame([{"doc_id": f"{prefix}DEMO-{i:04d}", "head": "GUERRILLAS", "template": 0,
                   "slot": 0} for i in range(1, n_docs + 1)]).to_csv(path, index=False)
    return path


def test_evaluate_warns_on_key_messages_without_documents_and_fails_without_overlap(tmp_path):
    half = aesi(tmp_path, "evaluate", "--assignments", str(_assignments(tmp_path, 20)),
                "--keys", str(DEMO_KEYS), "--mapping", "test-mapped", "--matcher", "lenient")
    assert half.returncode == 0, half.stderr
    warning = [line for line in half.stderr.splitlines() if "warning" in line]
    assert warning == [f"aesi: warning: 20 of the 40 messages of the --keys files have no "
                       f"document in {tmp_path / 'assignments-20.csv'} (e.g. DEMO-0021, "
                       "DEMO-0022, DEMO-0023); they are scored as documents with nothing "
                       "extracted"]
    assert "| this run (test-mapped, lenient) |" in half.stdout
    full = aesi(tmp_path, "evaluate", "--assignments", str(_assignments(tmp_path, 40)),
                "--keys", str(DEMO_KEYS), "--mapping", "test-mapped", "--matcher", "lenient")
    assert full.returncode == 0 and "warning" not in full.stderr, full.stderr
    none = aesi(tmp_path, "evaluate", "--assignments", str(_assignments(tmp_path, 40, "X")),
                "--keys", str(DEMO_KEYS), "--json", str(tmp_path / "scores.json"))
    one_line_error(none, "assignments-40X.csv: none of the 40 messages of the --keys files has "
                   "a document in this export (keys name e.g. DEMO-0001, the export e.g. "
                   "XDEMO-0001)")
    assert not (tmp_path / "scores.json").exists()


def test_delete_and_prune_from_the_command_line(tmp_path):
    project = tmp_path / "project"
    db = _stored_project(project, n_docs=4, words=3)
    with Store(db) as store:
        frame = pd.DataFrame([{"doc_id": "D000", "sent_id": 0, "entity_id": 0, "head": "w",
                               "mention": "w", "predicate": "kill", "dep": "dobj",
                               "template": 0, "slot": 0}])
        for i in range(4):
            store.record_run(f"r{i}", {}, frame, {}, keep_runs=None)
    one_line_error(aesi(tmp_path, "delete", "D001", "D404", "--project-dir", str(project)),
                   "1 of the ids given are not in the store (D404); nothing was deleted")
    done = aesi(tmp_path, "delete", "D001", "D002", "--project-dir", str(project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"deleted 2 documents (2 sentences, 6 tokens, 6 entities) "
                                  f"from {db}; 2 documents left.")
    done = aesi(tmp_path, "store", "prune", "--keep", "1", "--project-dir", str(project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("deleted 3 assignment rows of 3 older runs; 1 rows of the "
                                  "1 newest runs stay")
    with Store(db, read_only=True) as store:
        assert store.document_ids() == ["D000", "D003"]
        assert list(store.runs()["assignments"]) == [1, 0, 0, 0]
    assert [d.doc_id for d in read_journal(journal_path(db))] == ["D000", "D003"]


def test_aesi_worker_without_a_reachable_api_fails_in_one_line(tmp_path):
    done = aesi(tmp_path, "worker")
    one_line_error(done, "aesi worker runs the deployments of a Prefect server: set "
                   "PREFECT_API_URL")
    url = f"http://127.0.0.1:{_closed_port()}/api"
    done = aesi(tmp_path, "worker", PREFECT_API_URL=url)
    one_line_error(done, f"the Prefect API at {url} is unreachable")


def _aesi_with_full_disk(tmp_path: Path, writer: str, *args: str, timeout: float = 300
                         ) -> subprocess.CompletedProcess[str]:
    """``aesi ARGS`` with the callable ``writer`` (``module:attribute``) failing as on a full
    disk: ``OSError(ENOSPC)`` without a file name (``tests/failing_write.py``)."""
    return subprocess.run(
        [sys.executable, str(REPO / "tests" / "failing_write.py"), writer, str(errno.ENOSPC),
         *args], env=_env(tmp_path), capture_output=True, text=True, timeout=timeout,
        cwd=tmp_path)


def _one_fault_line(done: subprocess.CompletedProcess[str]) -> str:
    """The command stopped with exit status 1 and one error line, last, without a traceback,
    a retry or Prefect's records of the failure."""
    assert done.returncode == 1, (done.returncode, done.stderr[-3000:])
    lines = done.stderr.strip().splitlines()
    assert [line for line in lines if "aesi: error" in line] == lines[-1:], done.stderr[-3000:]
    for noise in ("Traceback", "Retry", " ERROR ", "Logging error"):
        assert noise not in done.stderr + done.stdout, (noise, done.stderr[-3000:])
    return lines[-1]


RESUME_HINT = ("free space there and rerun the same command; nothing done is lost (the "
               "finished steps are kept)")


def test_a_full_disk_stops_in_one_line_naming_the_file_and_the_rerun_resumes(tmp_path,
                                                                            demo_seed):
    project, out = tmp_path / "project", tmp_path / "out"
    demo_seed.copy_to(project, tmp_path / "prefect-home")
    args = ["run", "--demo", "--project-dir", str(project), "--out", str(out)]
    line = _one_fault_line(_aesi_with_full_disk(tmp_path, "pandas:DataFrame.to_csv", *args))
    assert line == (f"aesi: error: no space left on device writing {out / 'assignments.csv'}: "
                    f"{RESUME_HINT}")
    # Space freed: the rerun takes every step before the export from the cache.
    done = aesi(tmp_path, *args, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    steps = json.loads((out / "results.json").read_text())["steps"]
    for step in ("entity-table", "head-pmi", "build-features", "solve"):
        assert steps[step]["state"] == "Cached", (step, steps[step])
    assert steps["parse+store"]["state"] == "Skipped"


def test_a_full_disk_in_a_step_that_retries_is_not_retried(tmp_path, demo_seed):
    """The store writes retry passing troubles (a lock held a moment); a full disk is not one."""
    project = tmp_path / "project"
    demo_seed.copy_to(project, tmp_path / "prefect-home")
    done = _aesi_with_full_disk(tmp_path, "os:fsync", "run", "--demo", "--project-dir",
                                str(project), "--out", str(tmp_path / "out"))
    line = _one_fault_line(done)
    assert line == (f"aesi: error: no space left on device writing "
                    f"{project / 'aesi.documents.jsonl'}: {RESUME_HINT}")
    with Store(project / STORE_FILE, read_only=True) as store:
        assert store.document_ids() == []          # the batch's transaction was undone


def test_a_document_over_the_length_limit_stops_run_update_and_extract_before_any_work(
        tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "short.txt").write_text("A bomb exploded in Lima.")
    (docs / "long.txt").write_text("Guerrillas attacked the embassy. " * 40)     # 1,320
    run, project = str(_fake_run(tmp_path)), str(tmp_path / "project")
    for argv in (["run", "--docs", str(docs), "--project-dir", project],
                 ["update", "--docs", str(docs), "--project-dir", project],
                 ["extract", "--docs", str(docs), "--run", run]):
        one_line_error(aesi(tmp_path, *argv, "--max-doc-chars", "1000"),
                       f"{docs / 'long.txt'}: 1,320 characters, more than the 1,000 "
                       "characters a document may have (--max-doc-chars)", "--skip-bad")
    one_line_error(aesi(tmp_path, "run", "--docs", str(docs), "--max-doc-chars", "-1"),
                   "--max-doc-chars must be 0 (no limit) or more, not -1")
    assert not Path(project).exists()


def _folder_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file under ``folder``."""
    return {str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_second_writer_of_a_project_is_refused_before_any_work_or_waits(tmp_path):
    from tests.test_project_lock import hold_lock

    project = tmp_path / "project"
    db = _stored_project(project, n_docs=3, words=3)
    holder = hold_lock(project, 60)
    try:
        before = _folder_state(project)
        for argv in (["run", "--demo"], ["update", "--docs", str(_docs(tmp_path))],
                     ["delete", "D001"], ["store", "prune"], ["store", "rebuild"]):
            done = aesi(tmp_path, *argv, "--project-dir", str(project))
            one_line_error(done, f"{project}: the project is in use by another aesi process "
                           f"(pid {holder.pid}, aesi update, since ",
                           "rerun with --wait to start when it has")
            # Refused at the door: not a file of the project was written or added.
            assert _folder_state(project) == before, argv
    finally:
        holder.kill()
        holder.wait()
    holder = hold_lock(project, 3)
    done = aesi(tmp_path, "delete", "D001", "--wait", "--project-dir", str(project))
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"aesi: waiting for the other aesi process in {project} "
                                  f"(pid {holder.pid}, aesi update, since ")
    assert done.seconds > 2.0
    holder.wait()
    with Store(db, read_only=True) as store:
        assert store.document_ids() == ["D000", "D002"]


def test_a_dask_address_that_is_malformed_or_answers_nothing_stops_before_any_work(tmp_path):
    project = tmp_path / "project"
    one_line_error(aesi(tmp_path, "run", "--demo", "--dask", "10.0.0.5:8786",
                        "--project-dir", str(project)),
                   "--dask 10.0.0.5:8786: not a Dask scheduler address",
                   "tcp://10.0.0.5:8786")
    with socket.socket() as s:          # a port that nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    one_line_error(aesi(tmp_path, "run", "--demo", "--dask", f"tcp://127.0.0.1:{port}",
                        "--project-dir", str(project)),
                   f"--dask tcp://127.0.0.1:{port}: no Dask scheduler answers there",
                   "dask scheduler")
    assert not (project / STORE_FILE).exists()      # nothing was parsed or stored


def test_a_writer_holds_an_existing_project_while_it_checks_its_input(tmp_path, monkeypatch):
    """Two updates started at the same moment: the second stops at once, not after the
    first's checks of its options and documents (which may take seconds)."""
    import aesi_cli as cli
    from aesi_cli import commands
    from aesi_lib.errors import InputError
    from aesi_lib.project_lock import _HELD, lock_path

    seen: dict[str, bool] = {}

    def check_docs(path: str, **reading: object) -> None:
        """The documents' check, which records whether this process holds the project."""
        seen["held"] = any(lock_path(p).parent in _HELD for p in (project, new))
        raise InputError(path, "stop here")

    monkeypatch.setattr(commands, "check_docs", check_docs)
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")   # no early server
    docs = str(_docs(tmp_path))
    project, new = tmp_path / "project", tmp_path / "new-project"
    project.mkdir()
    assert cli.main(["update", "--docs", docs, "--project-dir", str(project)]) == 2
    assert seen["held"] is True
    # A project folder that does not exist yet is not made by a command that stops.
    assert cli.main(["update", "--docs", docs, "--project-dir", str(new)]) == 2
    assert seen["held"] is False and not new.exists()
