"""The Prefect flows end to end on the embedded demo corpus, against one local Prefect server.

One ``prefect server start`` on a free localhost port (temporary PREFECT_HOME, no UI, no
services) serves every test of this module: flows called in this process (through
``temporary_settings``), flows run by ``aesi`` in subprocesses, and ``prefect deploy``.

* resume: a subprocess is killed (SIGKILL) while the solve is running; the second run reuses
  every completed step (no parsing, features Cached) and equals an uninterrupted run;
* incremental: ``update`` parses only new/changed documents, replaces a changed document's
  rows, refreshes PMI and the solve; ``extract`` fills slots without solving;
* scale-out: the parse and embedding tasks on a local Dask cluster of 2 workers;
* sweep: features shared by configurations, cached solves, rows appended;
* deployments: ``prefect deploy --all`` of ``prefect.yaml`` against the server.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pandas as pd
import pytest

from aesi_lib.errors import InputError
from aesi_lib.run.config import RunConfig
from aesi_lib.run.presets import deep_merge, preset

REPO = Path(__file__).resolve().parents[1]
SERVER_START_TIMEOUT = 180


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                "DO_NOT_TRACK": "1", "PYTHONPATH": str(REPO)})
    return env


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> dict[str, Any]:
    """A local Prefect server for this module; skipped with the reason if it cannot start."""
    home = tmp_path_factory.mktemp("prefect-home")
    port = _free_port()
    env = _base_env(home)
    log = open(home / "server.log", "w")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port",
         str(port), "--no-scheduler", "--no-late-runs", "--no-ui", "--analytics-off"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    api = f"http://127.0.0.1:{port}/api"
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    up = False
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            up = httpx.get(f"{api}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            up = False
        if up:
            break
        time.sleep(0.5)
    if not up:
        os.killpg(proc.pid, signal.SIGKILL) if proc.poll() is None else None
        log.close()
        tail = (home / "server.log").read_text()[-2000:]
        pytest.skip(f"prefect server did not start on port {port} within "
                    f"{SERVER_START_TIMEOUT} s: {tail}")
    yield {"api": api, "home": home, "env": {**env, "PREFECT_API_URL": api}}
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()


@pytest.fixture(scope="module")
def prefect_here(server, tmp_path_factory):
    """Flows called in this process talk to the module's server."""
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_LOCAL_STORAGE_PATH,
        temporary_settings,
    )

    storage = tmp_path_factory.mktemp("prefect-results")
    with temporary_settings({PREFECT_API_URL: server["api"],
                             PREFECT_LOCAL_STORAGE_PATH: storage}):
        yield server
        from prefect.logging.handlers import APILogWorker

        APILogWorker.drain_all(timeout=10)   # send the last logs while the server is up


@pytest.fixture(scope="module")
def reference(prefect_here, tmp_path_factory) -> dict[str, Any]:
    """An uninterrupted run of the main flow on the demo corpus (seed 0)."""
    from aesi_flows.induce import induce_flow

    root = tmp_path_factory.mktemp("reference")
    results = induce_flow(project_dir=str(root / "project"), out_dir=str(root / "out"),
                          demo=True)
    return {"root": root, "project": root / "project", "out": root / "out",
            "results": results}


def _assignments(out: Path) -> pd.DataFrame:
    return pd.read_parquet(out / "assignments.parquet")


def _aesi(args: list[str], env: dict[str, str], cwd: Path, **kwargs: Any) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "aesi_cli", *args], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **kwargs)


# ---------------------------------------------------------------------------------------------


def test_main_flow_reports_steps_and_scores(reference):
    r = reference["results"]
    assert r["corpus"] == "demo" and r["documents"] == 40
    assert r["corpus_origin"] == "the embedded demo corpus (40 invented messages) (--demo)"
    assert r["documents_parsed"] == 40
    assert [s for s in r["steps"] if r["steps"][s]["state"] == "Cached"] == []
    # The same scores as the notebook path (tests/test_pipeline.py) on the same corpus and seed.
    lenient = r["scores"]["test-mapped/lenient"]
    assert [lenient[k] for k in ("tp", "fp", "fn")] == [36, 7, 95]
    history = r["solve"]["history"]
    assert history and all("objective" in h for h in history)
    for name in ("features", "labels", "entities", "pmi"):
        assert Path(r["artifacts"][name]).is_file()
        assert Path(r["artifacts"][name]).is_relative_to(reference["project"])
    assert json.loads((reference["out"] / "results.json").read_text())["seed"] == 0


def test_resume_after_kill_during_solve(server, reference, tmp_path, demo_seed):
    project, out1, out2 = tmp_path / "project", tmp_path / "out1", tmp_path / "out2"
    demo_seed.copy_to(project)
    marker = tmp_path / "solve-started"
    first = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "paused_solve.py"), str(marker), "300", "run",
         "--demo", "--project-dir", str(project), "--out", str(out1)],
        env=server["env"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True)
    deadline = time.monotonic() + 240
    while not marker.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.3)
    if not marker.exists():
        first.kill()
        pytest.fail(f"the run never reached the solve:\n{first.communicate()[0][-3000:]}")
    # The solve is running (paused after its first AMP iteration): kill the whole process.
    assert first.poll() is None
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL
    assert "after iteration 0" in marker.read_text()
    assert not list((project / "solutions").glob("*.npz")), "the solve must not have finished"
    assert list((project / "features").glob("*.npz")), "features were done before the solve"
    assert not (out1 / "results.json").exists()

    second = _aesi(["run", "--demo", "--project-dir", str(project), "--out", str(out2)],
                   server["env"], tmp_path)
    output, _ = second.communicate(timeout=300)
    assert second.returncode == 0, output[-3000:]
    r = json.loads((out2 / "results.json").read_text())
    states = {name: rec["state"] for name, rec in r["steps"].items()}
    print("\nsecond run, step states:", json.dumps(states, indent=1))
    # Ingest reused the store: nothing parsed; every cached step before the solve was reused.
    assert r["documents_parsed"] == 0 and r["documents_unchanged"] == 40
    assert states["parse+store"] == "Skipped"
    for step in ("entity-table", "head-pmi", "build-features"):
        assert states[step] == "Cached", step
    assert states["solve"] == "Completed"
    assert set(r["steps_run"]) == {"load-corpus", "plan-ingest", "stored-documents",
                                   "corpus-fingerprint", "solve", "export", "events",
                                   "readable", "keep-export", "evaluate", "template-filling",
                                   "record-run"}
    # The server saw the same: the second flow run's task runs and their states.
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
    from prefect.settings import PREFECT_API_URL, temporary_settings

    by_task: dict[str, str] = {}
    deadline = time.monotonic() + 30       # the server records task runs from events, shortly
    while time.monotonic() < deadline and len(by_task) < len(states) - 1:
        with temporary_settings({PREFECT_API_URL: server["api"]}):
            with get_client(sync_client=True) as client:
                runs = client.read_task_runs(flow_run_filter=FlowRunFilter(
                    id=FlowRunFilterId(any_=[r["flow_run_id"]])))
        by_task = {t.name.rsplit("-", 1)[0]: t.state.name for t in runs}
        time.sleep(0.5)
    print("task runs on the server:", by_task)
    assert by_task["build-features"] == "Cached" and by_task["solve"] == "Completed"
    assert "parse-batch" not in by_task
    # Same result as the uninterrupted run with the same seed.
    pd.testing.assert_frame_equal(_assignments(out2), _assignments(reference["out"]))
    assert r["scores"] == reference["results"]["scores"]


DEMO_EXTRA = "TERRORISTS KIDNAPPED THE MAYOR OF SAN PEDRO AND BURNED HIS CAR."


def _write_jsonl(path: Path, records: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in records))
    return path


def test_a_scheduled_update_runs_its_own_configuration_and_consumes_its_inbox(
        prefect_here, reference, tmp_path):
    from aesi_flows.induce import induce_flow
    from aesi_flows.update import update_flow

    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    # An ad-hoc run with other settings becomes the project's last run ...
    adhoc = deep_merge(preset("default"), {"model": {"seed": 6, "n_init": 1}})
    induce_flow(project_dir=str(project), out_dir=str(tmp_path / "adhoc"), demo=True,
                config=adhoc)
    # ... but the scheduled update runs with the preset its deployment names.
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "NEW-1.txt").write_text("A CAR BOMB EXPLODED IN FRONT OF THE EMBASSY. THE POLICE "
                                     "ARRESTED TWO GUERRILLAS.")
    scheduled = _deployment_parameters("aesi-incremental")
    r = update_flow(docs_path=str(inbox), project_dir=str(project), out_dir=str(tmp_path / "o"),
                    allow_empty=True, consume=True, preset=scheduled["preset"])
    assert r["documents_parsed"] == 1
    assert RunConfig.from_dict(r["config"]) == RunConfig.from_dict(preset("default"))
    assert not list(inbox.glob("*.txt"))
    assert [p.name for p in inbox.glob("done/*/*")] == ["NEW-1.txt"]
    # The next scheduled run finds the inbox empty: nothing is solved.
    again = update_flow(docs_path=str(inbox), project_dir=str(project),
                        out_dir=str(tmp_path / "o"), allow_empty=True, consume=True,
                        preset=scheduled["preset"])
    assert again["documents_given"] == 0 and "skipped" in again


def test_a_full_run_keeps_the_ids_and_the_documents_of_an_update(prefect_here, reference,
                                                                   tmp_path):
    from aesi_flows.induce import induce_flow
    from aesi_flows.update import update_flow

    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    inbox = _write_jsonl(tmp_path / "inbox.jsonl", [
        ("NEW-1", "A CAR BOMB EXPLODED IN FRONT OF THE EMBASSY. THE POLICE ARRESTED TWO "
                  "GUERRILLAS."),
        ("NEW-2", "GUERRILLAS KIDNAPPED THE MAYOR OF THE TOWN AND KILLED HIS DRIVER.")])
    update_flow(docs_path=str(inbox), project_dir=str(project), out_dir=str(tmp_path / "u"))
    updated = pd.read_parquet(tmp_path / "u" / "assignments.parquet")
    full = induce_flow(project_dir=str(project), out_dir=str(tmp_path / "full"), demo=True)
    export = pd.read_parquet(tmp_path / "full" / "assignments.parquet")
    # The nightly export is the whole project: the update's documents are in it.
    assert full["documents"] == 42 and full["documents_added_by_updates"] == 2
    assert {"NEW-1", "NEW-2"} <= set(export["doc_id"])
    # The same configuration as the update's: its schema is kept, nothing solved, no label
    # moves, as the two exports show.
    ids = full["ids"]
    assert ids["previous_mentions"] == len(updated)
    assert ids["template_kept_share"] == ids["slot_kept_share"] == 1.0
    assert "solve" not in full["steps"] and full["steps"]["place"]["state"] == "Completed"
    pd.testing.assert_frame_equal(export, updated)
    assert full["labels"]["label_moved"] == 0
    assert full["labels"]["shared_mentions"] == len(updated)
    # --resolve solves again, warm-started from it, and counts what moved: on a corpus this
    # small 2 documents move much of it (0.82-0.86 of the templates kept with 3 documents,
    # measured when updates solved).
    again = induce_flow(project_dir=str(project), out_dir=str(tmp_path / "again"), demo=True,
                        resolve=True)
    resolved = pd.read_parquet(tmp_path / "again" / "assignments.parquet")
    assert again["steps"]["solve"]["state"] == "Completed" and "place" not in again["steps"]
    moved = ((resolved["template"] != export["template"])
             | (resolved["slot"] != export["slot"])).sum()
    assert again["labels"]["label_moved"] == moved
    # Another seed: its partition is the seed's own (as --fresh gives it), numbered to keep
    # as many of the last solution's (the --resolve run's) ids as that partition allows.
    seed1 = deep_merge(preset("default"), {"model": {"seed": 1}})
    other = induce_flow(project_dir=str(project), out_dir=str(tmp_path / "s1"), demo=True,
                        config=seed1)
    fresh = induce_flow(project_dir=str(project), out_dir=str(tmp_path / "s1-fresh"),
                        demo=True, config=seed1, fresh=True)
    assert fresh["ids"] is None and other["ids"]["previous_mentions"] == len(export)
    numbered = pd.read_parquet(tmp_path / "s1" / "assignments.parquet")
    anew = pd.read_parquet(tmp_path / "s1-fresh" / "assignments.parquet")
    # The default cuts the semantic classes within each template, so a slot number is a
    # class of its own template: the partition kept is that of the (template, slot) roles.
    roles = {"template": ["template"], "slot": ["template", "slot"]}
    for column in ("template", "slot"):
        pairs = pd.DataFrame({name: frame[roles[column]].astype(str).agg("/".join, axis=1)
                              for name, frame in (("numbered", numbered), ("fresh", anew))})
        pairs = pairs.drop_duplicates()
        assert pairs["numbered"].is_unique and pairs["fresh"].is_unique, column
        # Ids are carried on the labels files, the cut's own slots (the export's role slots
        # merge a template's subject slots, aesi_lib.model.subject_merge).
        kept = (_labels(other)[column] == _labels(again)[column]).mean()
        assert kept == other["ids"][f"{column}_kept_share"]
        assert kept >= (_labels(fresh)[column] == _labels(again)[column]).mean(), column
    # The project's update history survives the full runs.
    state = json.loads((project / "project.json").read_text())
    assert [u["doc_ids"] for u in state["updates"]] == [["NEW-1", "NEW-2"]]


def test_an_update_without_documents_solves_again_after_a_delete(prefect_here, reference,
                                                                  tmp_path):
    from aesi_flows.update import update_flow
    from aesi_lib.store import Store

    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    gone = sorted(pd.read_parquet(reference["out"] / "assignments.parquet")["doc_id"])[0]
    with Store(project / "aesi.duckdb") as store:
        store.delete_documents([gone])
    r = update_flow(docs_path=None, project_dir=str(project), out_dir=str(tmp_path / "o"))
    assert r["documents"] == 39 and r["documents_given"] == 0 and r["documents_parsed"] == 0
    export = pd.read_parquet(tmp_path / "o" / "assignments.parquet")
    assert gone not in set(export["doc_id"]) and export["doc_id"].nunique() == 39
    assert r["steps"]["solve"]["state"] == "Completed"
    # 0.895 of the 39 documents' mentions keep their template with the default preset of the
    # predicate salience (the MUC-4 update test asks 0.95 of a corpus 40 times larger).
    assert r["solve"]["carried"]["template_kept_share"] >= 0.85


def test_a_project_keeps_absolute_resource_paths_for_runs_from_another_folder(
        prefect_here, reference, tmp_path, monkeypatch):
    from aesi_flows.induce import induce_flow
    from aesi_flows.update import update_flow

    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    first, later = tmp_path / "first", tmp_path / "later"
    first.mkdir()
    later.mkdir()
    (first / "vectors.txt").write_text("bomb 0.1 0.2 0.3\nkill 0.2 0.1 0.0\n")
    monkeypatch.chdir(first)
    induce_flow(project_dir=str(project), out_dir=str(tmp_path / "o1"), demo=True,
                config={**preset("default"), "vectors_path": "vectors.txt"})
    state = json.loads((project / "project.json").read_text())
    assert state["config"]["vectors_path"] == str(first / "vectors.txt")
    # From another folder, the stored configuration still names the same file.
    monkeypatch.chdir(later)
    r = update_flow(docs_path=None, project_dir=str(project), out_dir=str(tmp_path / "o2"))
    assert r["documents"] == 40
    assert r["config"]["vectors_path"] == str(first / "vectors.txt")


def test_update_reads_a_project_stored_before_options_were_removed(prefect_here, reference,
                                                                   tmp_path):
    """``project.json`` of a project made while the removed options existed holds each of
    them at its default, the behaviour now fixed: ``aesi update`` reads it as the same
    configuration. One that was set to anything else stops the update at once, naming it."""
    from aesi_flows.update import update_flow
    from aesi_lib.errors import ConfigError
    from aesi_lib.run.removed_keys import REMOVED_KEYS

    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    path = project / "project.json"
    state = json.loads(path.read_text())
    for key, (fixed, _) in REMOVED_KEYS.items():
        *parents, name = key.split(".")
        node = state["config"]
        for part in parents:
            node = node.setdefault(part, {})
        node[name] = fixed
    path.write_text(json.dumps(state))
    r = update_flow(docs_path=None, project_dir=str(project), out_dir=str(tmp_path / "o"))
    assert r["documents"] == 40
    assert RunConfig.from_dict(r["config"]) == RunConfig.from_dict(
        reference["results"]["config"])
    state["config"]["features"]["chains"] = True
    path.write_text(json.dumps(state))
    with pytest.raises(ConfigError, match="features.chains: removed; coreference chains "
                       "measured no gain"):
        update_flow(docs_path=None, project_dir=str(project), out_dir=str(tmp_path / "o"))


def _deployment_parameters(name: str) -> dict[str, Any]:
    """The parameters ``prefect.yaml`` gives the deployment ``name``."""
    import yaml

    spec = yaml.safe_load((REPO / "prefect.yaml").read_text())
    return next(d for d in spec["deployments"] if d["name"] == name)["parameters"]


def test_the_nightly_deployment_reads_the_corpus_its_project_recorded(prefect_here, reference,
                                                                     tmp_path):
    from aesi_flows.induce import induce_flow

    assert _deployment_parameters("aesi-full-run")["project_corpus"] is True
    # A project no run has recorded a corpus for: refused before any work.
    empty = tmp_path / "empty"
    with pytest.raises(InputError, match="no corpus recorded for scheduled runs"):
        induce_flow(project_dir=str(empty), out_dir=str(tmp_path / "o1"), project_corpus=True)
    assert not (tmp_path / "o1").exists()
    # The reference project recorded the demo it was given.
    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    r = induce_flow(project_dir=str(project), out_dir=str(tmp_path / "o2"), project_corpus=True)
    assert r["corpus"] == "demo" and r["corpus_spec"]["demo"] is True
    assert r["documents"] == reference["results"]["documents"]


def test_the_scheduled_deployments_run_the_default_preset_by_name():
    for name in ("aesi-full-run", "aesi-incremental"):
        parameters = _deployment_parameters(name)
        assert parameters["preset"] == "default" and "config_path" not in parameters, name
    # No copy of the preset that could drift from it.
    assert not (REPO / "configs" / "scheduled.json").exists()
    from aesi_lib.run.project_state import run_configuration

    assert run_configuration(None, None, "default") == preset("default")
    with pytest.raises(ValueError, match="unknown preset 'defualt'"):
        run_configuration(None, None, "defualt")


def test_update_parses_only_new_and_changed_documents(prefect_here, reference, tmp_path):
    from aesi_flows.update import update_flow
    from aesi_lib.corpus.demo import load_demo_corpus
    from aesi_lib.store import Store

    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    demo = load_demo_corpus().documents
    changed_id = demo[2].doc_id
    changed_text = demo[2].text + "\n\n" + DEMO_EXTRA
    inbox = _write_jsonl(tmp_path / "inbox.jsonl", [
        ("NEW-1", demo[0].text + "\n\n" + DEMO_EXTRA),
        ("NEW-2", "A CAR BOMB EXPLODED IN FRONT OF THE EMBASSY. THE POLICE ARRESTED TWO "
                  "GUERRILLAS."),
        (changed_id, changed_text),
    ])
    out = tmp_path / "out"
    r = update_flow(docs_path=str(inbox), project_dir=str(project), out_dir=str(out))

    assert r["ingest"]["new"] == 2 and r["ingest"]["changed"] == 1
    assert r["ingest"]["unchanged"] == 0 and r["documents_parsed"] == 3
    assert r["documents"] == 42
    for step in ("entity-table", "head-pmi", "build-features", "place"):
        assert r["steps"][step]["state"] == "Completed", step
    assert "solve" not in r["steps"]                 # the schema is kept, not solved again
    assert r["artifacts"]["pmi"] != reference["results"]["artifacts"]["pmi"]
    with Store(project / "aesi.duckdb", read_only=True) as store:
        assert len(store.document_ids()) == 42
        row = store.con.execute("SELECT count(*), any_value(text) FROM documents "
                                "WHERE doc_id = ?", [changed_id]).fetchone()
        assert row == (1, changed_text)
        entities = store.con.execute("SELECT * FROM entities WHERE doc_id = ?",
                                     [changed_id]).df()
    assert "MAYOR" in set(entities["head"])                     # the new sentence's mention
    assert not entities.duplicated().any()                       # old rows replaced, not added
    new_rows = pd.read_parquet(out / "new_documents.parquet")
    assert set(new_rows["doc_id"]) == {"NEW-1", "NEW-2", changed_id}
    model = RunConfig.from_dict(reference["results"]["config"]).model
    assert new_rows["template"].between(0, model.n_templates - 1).all()
    assert new_rows["slot"].between(0, model.n_slots - 1).all()
    assert set(r["new_documents"]["summary"]) == {"NEW-1", "NEW-2", changed_id}
    # A mention keeps its id from one export to the next; (doc_id, entity_id) is the key.
    mention = ["doc_id", "entity_id", "sent_id", "start_char", "end_char", "predicate", "dep"]
    before = _assignments(reference["out"])[mention]
    after = _assignments(out)[mention]
    assert not after.duplicated(["doc_id", "entity_id"]).any()
    # The labels that moved are counted on the two exports, as a user would compare them.
    labelled = [*mention, "template", "slot"]
    pairs = _assignments(reference["out"])[labelled].merge(
        _assignments(out)[labelled], on=mention, suffixes=("", "_new"))
    moved = (pairs["template"] != pairs["template_new"]) | (pairs["slot"] != pairs["slot_new"])
    assert r["labels"]["shared_mentions"] == len(pairs) > 0
    assert r["labels"]["label_moved"] == int(moved.sum())
    # The update keeps the schema as exported too: the role slots of the solution it
    # placed into (SolutionLabels.role_table), so no old mention moves.
    assert r["labels"]["label_moved"] == 0
    assert r["labels"]["template_moved"] == int((pairs["template"]
                                                 != pairs["template_new"]).sum())
    kept = before[before["doc_id"] != changed_id]
    pd.testing.assert_frame_equal(
        after[after["doc_id"].isin(set(kept["doc_id"]))].reset_index(drop=True),
        kept.reset_index(drop=True))
    new_events = pd.read_parquet(out / "new_events.parquet")
    events = pd.read_parquet(out / "events.parquet")
    mine = events[events["doc_id"].isin({"NEW-1", "NEW-2", changed_id})]
    assert new_events.equals(mine.reset_index(drop=True))       # the run's own events
    assert {"schema.json", "schema.md", "events.jsonl", "new_events.jsonl"} <= {
        p.name for p in out.iterdir()}
    # The schema is kept: every mention the full run had keeps its template and slot, and
    # the new ones are placed into it by the rule of `aesi extract`.
    carried = r["solve"]["carried"]
    print("\nupdate carried labels:", carried)
    assert carried["previous_mentions"] > 0 and carried["new_mentions"] > 0
    assert carried["template_kept_share"] == 1.0 and carried["slot_kept_share"] == 1.0
    before = _assignments(reference["out"]).set_index(["doc_id", "sent_id", "head", "dep",
                                                       "predicate"])
    after = _assignments(out).set_index(before.index.names)
    shared = before.index.intersection(after.index).drop_duplicates()
    assert len(shared) > 0.9 * len(before)
    for column in ("template", "slot"):
        assert (before.loc[shared, column] == after.loc[shared, column]).all(), column
    from aesi_flows.extract import extract_flow

    fresh = _write_jsonl(tmp_path / "fresh.jsonl", [("NEW-2", "A CAR BOMB EXPLODED IN FRONT OF "
                                                    "THE EMBASSY. THE POLICE ARRESTED TWO "
                                                    "GUERRILLAS.")])
    extracted = extract_flow(docs_path=str(fresh), run_dir=str(reference["out"]),
                             out_dir=str(tmp_path / "extracted"))
    filled = pd.read_parquet(extracted["export"]["parquet"])
    placed = new_rows[new_rows["doc_id"] == "NEW-2"]
    assert len(filled) == len(placed) > 0
    assert filled["template"].tolist() == placed["template"].tolist()
    assert filled["slot"].tolist() == placed["slot"].tolist()

    again = update_flow(docs_path=str(inbox), project_dir=str(project), out_dir=str(out))
    assert again["documents_parsed"] == 0 and again["ingest"]["unchanged"] == 3
    for step in ("entity-table", "head-pmi", "build-features"):
        assert again["steps"][step]["state"] == "Cached", step
    assert again["solve"]["carried"]["template_kept_share"] == 1.0
    assert again["solve"]["carried"]["slot_kept_share"] == 1.0
    pd.testing.assert_frame_equal(pd.read_parquet(out / "new_documents.parquet"), new_rows)


def test_extract_fills_slots_without_solving(prefect_here, reference, tmp_path):
    from aesi_flows.extract import extract_flow
    from aesi_lib.corpus.demo import load_demo_corpus
    from aesi_lib.store import Store

    demo = load_demo_corpus().documents
    copy = demo[4]
    given = [("COPY-1", copy.text),
             ("FRESH-1", "ARMED MEN ATTACKED THE POWER STATION WITH GRENADES. " + DEMO_EXTRA)]
    docs = _write_jsonl(tmp_path / "docs.jsonl", given)
    db = reference["project"] / "aesi.duckdb"
    with Store(db, read_only=True) as store:
        before = store.con.execute("SELECT count(*) FROM entities").fetchone()
    r = extract_flow(docs_path=str(docs), run_dir=str(reference["out"]),
                     out_dir=str(tmp_path / "filled"))
    assert r["documents"] == 2
    assert r["documents_parsed"] == 1 and r["documents_from_parse_cache"] == 1
    assert "solve" not in r["steps"]
    with Store(db, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM entities").fetchone() == before
    filled = pd.read_parquet(tmp_path / "filled" / "assignments.parquet")
    assert set(filled["doc_id"]) == {"COPY-1", "FRESH-1"}
    assert {"template_score", "slot_score"} <= set(filled.columns)
    model = RunConfig.from_dict(reference["results"]["config"]).model
    assert filled["template"].between(0, model.n_templates - 1).all()
    assert filled["slot"].between(0, model.n_slots - 1).all()
    # A copy of a training document gets back the labels the solve gave the original: the
    # run's own rule (its predicates' templates, its heads' classes), not a similarity guess.
    trained = _assignments(reference["out"])
    trained = trained[trained["doc_id"] == copy.doc_id]
    mine = filled[filled["doc_id"] == "COPY-1"]
    assert len(mine) == len(trained)
    # Matched by position in the sentence, not by mention: a mention is the slice of the
    # text as given, and the training document's original has other line breaks than its
    # copy's normalised text. The n-th mention of a key pairs with the n-th.
    key = ["sent_id", "head", "predicate", "dep"]
    mine, trained = (f.assign(nth=f.groupby(key).cumcount()) for f in (mine, trained))
    both = mine.merge(trained, on=[*key, "nth"])
    assert len(both) == len(trained)
    assert (both["template_x"] == both["template_y"]).mean() >= 0.99
    assert (both["slot_x"] == both["slot_y"]).mean() >= 0.99
    assert set(mine["template_rule"]) == {"unit"} and set(mine["slot_rule"]) == {"unit"}
    # Character spans point into the new document's text.
    assert (mine["mention"].tolist()
            == [copy.text[a:b] for a, b in zip(mine["start_char"], mine["end_char"],
                                               strict=True)])
    # The new documents' events: their fillers are their own text, their template names and
    # roles those of the run's schema.
    texts = dict(given)
    schema = json.loads((reference["out"] / "schema.json").read_text())
    names = {t["template"]: t["name"] for t in schema["templates"]}
    roles = {(t["template"], s["slot"]): s["role"] for t in schema["templates"]
             for s in t["slots"]}
    events = [json.loads(line) for line in (tmp_path / "filled" / "events.jsonl").open()]
    assert set(e["doc_id"] for e in events) <= {"COPY-1", "FRESH-1"}
    evidence = 0
    for record in events:
        for incident in record["incidents"]:
            assert incident["template_name"] == names[incident["template"]]
            for role in incident["roles"]:
                assert role["role"] == roles.get((incident["template"], role["slot"]), "")
                for entity in role["entities"]:
                    for m in entity["mentions"]:
                        assert texts[record["doc_id"]][m["start_char"]:m["end_char"]] \
                            == m["mention"]
                        evidence += 1
    assert evidence == len(pd.read_parquet(tmp_path / "filled" / "events.parquet"))
    # The copy of a training document reports the run's incidents of it, with the same
    # entities in the same roles.
    run_events = pd.read_parquet(reference["out"] / "events.parquet")
    filled_events = pd.read_parquet(tmp_path / "filled" / "events.parquet")
    columns = ["incident", "template", "trigger", "slot", "entity_text"]

    def incidents_of(frame: pd.DataFrame, doc_id: str) -> set[tuple]:
        return set(frame.loc[frame["doc_id"] == doc_id, columns].itertuples(index=False))

    assert incidents_of(filled_events, "COPY-1") == incidents_of(run_events, copy.doc_id)
    # Another project folder's caches: the parses go there, the labels are the same.
    other = tmp_path / "other-project"
    again = extract_flow(docs_path=str(docs), run_dir=str(reference["out"]),
                         out_dir=str(tmp_path / "filled-2"), project_dir=str(other))
    assert again["documents_parsed"] == 2 and any((other / "parse-cache").rglob("*.*"))
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "filled-2" / "assignments.parquet"),
        pd.read_parquet(tmp_path / "filled" / "assignments.parquet"))


def test_parse_and_embedding_on_a_local_dask_cluster(prefect_here, reference, tmp_path,
                                                      caplog):
    from aesi_flows.common import dask_task_runner
    from aesi_flows.induce import induce_flow

    runner = dask_task_runner(n_workers=2, processes=False)
    r = induce_flow.with_options(task_runner=runner)(
        project_dir=str(tmp_path / "project"), out_dir=str(tmp_path / "out"), demo=True,
        parse_batch_size=5)
    workers = r["ingest"]["workers"]
    print("\nparse batches ran on:", workers)
    assert r["steps"]["parse+store"]["batches"] == 8
    assert len(workers) == 2 and all(w.startswith(("inproc://", "tcp://")) for w in workers)
    assert r["documents_parsed"] == 40
    # The encoder ran in the cluster's batches; the step itself read every vector back.
    embedding = r["steps"]["embed-batches"]
    print("embedding batches ran on:", embedding["workers"])
    assert embedding["batches"] == 4 and embedding["documents_embedded"] == 40
    assert len(embedding["workers"]) == 2
    # Each finished batch is logged with the documents done so far.
    progress = [m for m in caplog.messages if m.startswith("embed batches: ")]
    assert len(progress) == 4
    assert progress[-1].startswith("embed batches: 4/4 done, 40/40 documents (40 embedded now")
    assert r["steps"]["context-vectors"]["state"] == "Completed"
    # Other batches of sentences, other matrix shapes: the vectors agree to float rounding,
    # and the labels below are identical.
    with (np.load(r["artifacts"]["context"]) as spread,
          np.load(reference["results"]["artifacts"]["context"]) as here):
        assert sorted(spread.files) == sorted(here.files)
        for name in here.files:
            np.testing.assert_allclose(spread[name], here[name], rtol=0, atol=1e-6)
    pd.testing.assert_frame_equal(_assignments(tmp_path / "out"),
                                  _assignments(reference["out"]))


def _wait_for_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"{what} exited with {proc.returncode}"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not listen on port {port} within {timeout:.0f} s")


def test_the_per_document_work_on_a_dask_cluster_started_apart(server, prefect_here,
                                                                reference, tmp_path):
    """``--dask ADDRESS``: a scheduler and a worker process started on their own, as on a
    real cluster, take the parse, the encoder pass and the feature build; the labels are a
    run's without Dask."""
    from aesi_cli.options import check_dask_scheduler
    from aesi_flows.common import dask_task_runner
    from aesi_flows.induce import induce_flow

    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = server["env"]
    started = []
    try:
        started.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", str(port), "--dashboard-address", ":0"], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        _wait_for_port(port, started[0], "dask scheduler")
        started.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
             "--nworkers", "1", "--dashboard-address", ":0"], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        check_dask_scheduler(address)
        r = induce_flow.with_options(task_runner=dask_task_runner(address))(
            project_dir=str(tmp_path / "project"), out_dir=str(tmp_path / "out"), demo=True,
            parse_batch_size=10)
    finally:
        for proc in reversed(started):
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    workers = r["ingest"]["workers"]
    assert len(workers) == 1 and workers[0].startswith("tcp://127.0.0.1:")
    assert workers[0] != address                  # the worker's own address, not the scheduler's
    assert r["documents_parsed"] == 40
    assert r["steps"]["embed-batches"]["documents_embedded"] == 40
    assert r["steps"]["build-features"]["state"] == "Completed"
    assert r["steps"]["build-features"]["worker"] == workers[0]
    pd.testing.assert_frame_equal(_assignments(tmp_path / "out"),
                                  _assignments(reference["out"]))


def test_sweep_shares_features_and_caches_solves(prefect_here, reference, tmp_path):
    from aesi_flows.sweep import sweep_flow

    # The base is the configuration the reference run used (the default preset).
    spec = {"base": deep_merge(preset("default"), {"model": {"max_iter": 3}}),
            "configurations": {"scaled": {"model": {"mode": "scaled", "constraint_weight": 0.01,
                                                    "slot_model": "cut",
                                                    "class_scope": "corpus",
                                                    "consensus_members": 1}},
                               "sc": {"model": {"mode": "sc"}}}}
    out = tmp_path / "sweep"
    r = sweep_flow(spec=spec, seeds=[0, 1], out_dir=str(out),
                   project_dir=str(reference["project"]), demo=True)
    assert r["steps"]["parse+store"]["state"] == "Skipped"
    # Same feature options as the reference run: its features are reused by both.
    assert r["steps"]["build-features[scaled]"]["state"] == "Cached"
    assert r["steps"]["build-features[sc]"]["state"] == "Cached"
    rows = pd.read_parquet(out / "results.parquet")
    assert sorted(zip(rows["configuration"], rows["seed"], strict=True)) == [
        ("sc", 0), ("sc", 1), ("scaled", 0), ("scaled", 1)]
    assert rows["tst_test_lenient_f1"].between(0, 1).all()
    assert json.loads(rows.iloc[0]["config"])["model"]["max_iter"] == 3
    assert "| sc |" in (out / "results.md").read_text()

    again = sweep_flow(spec=spec, seeds=[0, 1], out_dir=str(out),
                       project_dir=str(reference["project"]), demo=True)
    solves = [k for k in again["steps"] if k.startswith("solve[")]
    assert len(solves) == 4 and all(again["steps"][k]["state"] == "Cached" for k in solves)
    rows2 = pd.read_parquet(out / "results.parquet")
    assert len(rows2) == 4                                         # replaced, not appended twice
    pd.testing.assert_series_equal(rows2["tst_test_lenient_f1"], rows["tst_test_lenient_f1"])


def test_the_cache_is_the_project_folders_whoever_starts_the_flow(server, reference, tmp_path):
    """The reference ran in this process with its own PREFECT_LOCAL_STORAGE_PATH; a run started
    elsewhere (here: ``aesi`` with another storage setting, as a deployment's worker would
    have) finds the cached steps of the same project."""
    env = {**server["env"], "PREFECT_LOCAL_STORAGE_PATH": str(tmp_path / "other-storage")}
    run = _aesi(["run", "--demo", "--project-dir", str(reference["project"]), "--out",
                 str(tmp_path / "out")], env, tmp_path)
    output, _ = run.communicate(timeout=300)
    assert run.returncode == 0, output[-3000:]
    states = {n: r["state"] for n, r in
              json.loads((tmp_path / "out" / "results.json").read_text())["steps"].items()}
    for step in ("entity-table", "head-pmi", "build-features", "solve", "evaluate"):
        assert states[step] == "Cached", (step, states)
    assert list((reference["project"] / "step-results").glob("*.pickle"))
    assert not (tmp_path / "other-storage").exists()


def test_context_vector_step_feeds_the_context_term(prefect_here, reference, tmp_path):
    pytest.importorskip("transformers", reason="the context extra is not installed")
    from aesi_flows.induce import induce_flow

    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    config = deep_merge(preset("default"), {"model": {"similarity": {"context_weight": 0.6}}})
    r = induce_flow(project_dir=str(project), out_dir=str(tmp_path / "out"), demo=True,
                    config=config)
    assert r["steps"]["context-vectors"]["state"] == "Completed"
    table = pd.read_parquet(r["artifacts"]["entities"])
    n, n_sentences = len(table), len(table[["doc_id", "sent_id"]].drop_duplicates())
    with np.load(r["artifacts"]["context"]) as z:
        assert {k: z[k].shape for k in z.files} == {
            "context_vectors": (n_sentences, 384), "context_rows": (n,)}
    again = induce_flow(project_dir=str(project), out_dir=str(tmp_path / "out"), demo=True,
                        config=config)
    assert again["steps"]["context-vectors"]["state"] == "Cached"
    assert again["steps"]["solve"]["state"] == "Cached"


def test_report_command_writes_the_report(reference, tmp_path):
    pytest.importorskip("aesi_lib.report", reason="aesi_lib.report is not written yet")
    import aesi_cli as cli

    assert cli.main(["report", "--run", str(reference["out"]), "--out",
                     str(tmp_path / "report")]) == 0
    names = {p.name for p in (tmp_path / "report").iterdir()}
    assert {"report.md", "report.html"} <= names
    # Scores and the AMP history came from results.json, keys from the demo corpus.
    text = (tmp_path / "report" / "report.md").read_text()
    f1 = reference["results"]["scores"]["test-mapped/lenient"]["f1"]
    assert f"{f1:.3f}" in text


def test_prefect_yaml_deploys_to_a_local_server(server, tmp_path):
    env = server["env"]
    pool = subprocess.run([sys.executable, "-m", "prefect", "work-pool", "create", "aesi-local",
                           "--type", "process"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=180)
    assert pool.returncode == 0, pool.stdout + pool.stderr
    deploy = subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", "deploy", "--all"],
                            env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert deploy.returncode == 0, deploy.stdout[-3000:] + deploy.stderr[-3000:]

    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: server["api"]}):
        with get_client(sync_client=True) as client:
            deployments = {d.name: d for d in client.read_deployments()}
            flows = {f.id: f.name for f in client.read_flows()}
    assert {"aesi-full-run", "aesi-incremental"} <= set(deployments)
    full, incremental = deployments["aesi-full-run"], deployments["aesi-incremental"]
    assert flows[full.flow_id] == "aesi-induce" and flows[incremental.flow_id] == "aesi-update"
    # Two output folders, one project folder; the schedules never fire at the same minute.
    assert full.parameters["out_dir"] != incremental.parameters["out_dir"]
    assert full.parameters["project_dir"] == incremental.parameters["project_dir"]
    minutes = {d.schedules[0].schedule.cron.split()[0] for d in (full, incremental)}
    assert len(minutes) == 2, minutes
    assert full.entrypoint == "flows/induce.py:induce_flow"
    assert incremental.entrypoint == "flows/update.py:update_flow"
    assert incremental.parameters["consume"] is True
    # The full run records itself and prunes the store to the runs its parameter names.
    from aesi_lib.store.database import DEFAULT_KEEP_RUNS

    assert full.parameters["keep_runs"] == DEFAULT_KEEP_RUNS
    for d in (full, incremental):
        # Each names its configuration: nothing of an ad-hoc run reaches it.
        assert d.parameters["preset"] == "default"
        assert d.work_pool_name == "aesi-local"
        assert [s.schedule.cron for s in d.schedules] and all(s.active for s in d.schedules)
        assert d.job_variables["env"]["DO_NOT_TRACK"] == "1"
        pull = d.pull_steps[0]["prefect.deployments.steps.set_working_directory"]
        assert Path(pull["directory"]) == REPO
    assert full.schedules[0].schedule.cron == "0 2 * * *"
    assert incremental.schedules[0].schedule.cron == "30 * * * *"
    assert incremental.parameters["allow_empty"] is True
    assert incremental.parameters["docs_path"] == "inbox"


def test_aesi_worker_stops_on_one_sigterm_when_started_with_sigint_ignored(server, tmp_path):
    """Started in the background by a script, a process inherits SIGINT ignored, and Prefect's
    worker stops on SIGTERM by sending itself SIGINT: `aesi worker` resets it first."""
    env = server["env"]
    pool = subprocess.run([sys.executable, "-m", "prefect", "work-pool", "create",
                           "aesi-stop-test", "--type", "process"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert pool.returncode == 0, pool.stdout + pool.stderr
    log = tmp_path / "worker.log"

    def sigint_ignored() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    with open(log, "w") as out:
        worker = subprocess.Popen([sys.executable, "-m", "aesi_cli", "worker", "--pool",
                                   "aesi-stop-test"], env=env, cwd=REPO, stdout=out,
                                  stderr=subprocess.STDOUT, preexec_fn=sigint_ignored,
                                  start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while "started" not in log.read_text() and time.monotonic() < deadline:
            assert worker.poll() is None, log.read_text()
            time.sleep(0.5)
        assert "started" in log.read_text(), log.read_text()
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) is not None
        assert "stopped" in log.read_text(), log.read_text()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def test_update_and_extract_name_the_documents_that_give_no_mention(prefect_here, reference,
                                                                    tmp_path):
    """The documents that give no entity mention have no row; results.json names them."""
    from aesi_flows.extract import extract_flow
    from aesi_flows.update import update_flow

    docs = _write_jsonl(tmp_path / "docs.jsonl", [
        ("NEW-1", "A CAR BOMB EXPLODED IN FRONT OF THE EMBASSY. THE POLICE ARRESTED TWO "
                  "GUERRILLAS."),
        ("NUMBERS-1", "1989 1990 1991\n\n12 45 78 90"),
    ])
    # A document of figures only is not English ("no words"): by default it is left out,
    # and results.json lists it; --keep-non-english reads it, and it gives no mention.
    skipped = extract_flow(docs_path=str(docs), run_dir=str(reference["out"]),
                           out_dir=str(tmp_path / "skipped"))
    left_out = [{"doc_id": "NUMBERS-1", "source": str(docs), "line": 2,
                 "reason": "not English (no words)"}]
    assert skipped["documents"] == 1 and skipped["left_out"] == left_out
    assert json.loads((tmp_path / "skipped" / "results.json").read_text())["left_out"] \
        == left_out
    filled = extract_flow(docs_path=str(docs), run_dir=str(reference["out"]),
                          out_dir=str(tmp_path / "filled"), keep_non_english=True)
    assert filled["documents_without_mentions"] == ["NUMBERS-1"] and filled["left_out"] == []
    project = tmp_path / "project"
    shutil.copytree(reference["project"], project)
    updated = update_flow(docs_path=str(docs), project_dir=str(project),
                          out_dir=str(tmp_path / "out"), keep_non_english=True)
    assert updated["documents_without_mentions"] == ["NUMBERS-1"]
    for out in (tmp_path / "filled", tmp_path / "out"):
        assert json.loads((out / "results.json").read_text())["documents_without_mentions"] \
            == ["NUMBERS-1"]
    exported = set(_assignments(tmp_path / "out")["doc_id"])
    assert "NEW-1" in exported and "NUMBERS-1" not in exported


def test_a_flow_run_waits_for_the_project_lock_of_another_process(prefect_here, tmp_path):
    """A deployment's flow run (started by a worker, without the command line) queues behind
    an aesi process that writes the same project."""
    from aesi_flows.update import update_flow
    from tests.test_project_lock import hold_lock

    project = tmp_path / "project"
    holder = hold_lock(project, 3)
    started = time.monotonic()
    r = update_flow(docs_path=str(tmp_path / "inbox"), project_dir=str(project),
                    out_dir=str(tmp_path / "out"), allow_empty=True)
    assert time.monotonic() - started > 2.0
    assert "skipped" in r
    holder.wait()


def _labels(run: dict) -> dict[str, np.ndarray]:
    """The template and slot arrays of a run's labels file."""
    from aesi_lib.model.solution_files import load_labels

    labels = load_labels(run["artifacts"]["labels"])
    return {"template": labels.template, "slot": labels.slot}


def test_a_flow_run_in_process_gives_the_labels_of_a_prefect_run_and_shares_its_cache(
        reference, tmp_path):
    """The command line's way without a Prefect API (``aesi_flows.in_process``): the same steps,
    the same labels as the flow run under the server, and the same result store, so that a
    run in process finds the cached steps of a Prefect run of the same project. (Last in
    this module: it writes a run into the reference project.)"""
    from aesi_flows.in_process import run_flow
    from aesi_flows.induce import induce_flow

    alone = run_flow(induce_flow, project_dir=str(tmp_path / "project"),
                     out_dir=str(tmp_path / "alone"), demo=True)
    assert alone["flow_run_id"] is None
    assert list(alone["steps"]) == list(reference["results"]["steps"])
    assert all(step["state"] == "Completed" for step in alone["steps"].values())
    pd.testing.assert_frame_equal(_assignments(tmp_path / "alone"),
                                  _assignments(reference["out"]))
    assert alone["scores"] == reference["results"]["scores"]

    again = run_flow(induce_flow, project_dir=str(reference["project"]),
                     out_dir=str(tmp_path / "again"), demo=True, fresh=True)
    states = {name: step["state"] for name, step in again["steps"].items()}
    for step in ("entity-table", "head-pmi", "build-features", "solve", "events", "evaluate"):
        assert states[step] == "Cached", (step, states)
    pd.testing.assert_frame_equal(_assignments(tmp_path / "again"),
                                  _assignments(reference["out"]))
