"""Cache keys of the Prefect tasks: content, library fingerprint, task source, missing files;
and the remembered parser configuration id. No flow runs here (task helpers only)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

import aesi_lib.steps.features as ftasks
import aesi_lib.steps.ingest as itasks
import aesi_lib.steps.keys as keys
import aesi_lib.steps.parsers as parsers
import aesi_lib.steps.solve as stasks
from aesi_lib.parse.backends import ParserConfig
from aesi_lib.steps.declaration import Step
from aesi_lib.steps.graph import batches
from aesi_tasks import prefect_task

REPO = Path(__file__).resolve().parents[1]


def test_content_key_follows_content_and_library(monkeypatch):
    a = keys.content_key("features", {"x": 1}, "corpus-1")
    assert a == keys.content_key("features", {"x": 1}, "corpus-1")
    assert a.startswith("features-")
    assert a != keys.content_key("features", {"x": 2}, "corpus-1")
    assert a != keys.content_key("solve", {"x": 1}, "corpus-1")
    # A change anywhere in aesi_lib changes every key.
    monkeypatch.setattr(keys, "library_fingerprint", lambda: "another-library-version")
    assert a != keys.content_key("features", {"x": 1}, "corpus-1")


def test_source_hash_tells_functions_apart():
    def one():
        return 1

    def two():
        return 2

    assert keys.source_hash(one) != keys.source_hash(two)
    assert keys.source_hash(stasks.solve_step.fn) == keys.source_hash(stasks.solve_step.fn)


def test_resource_key_sees_file_changes(tmp_path):
    assert keys.resource_key(None) == "embedded"
    f = tmp_path / "vectors.txt"
    f.write_text("a 1 2\n")
    before = keys.resource_key(f)
    f.write_text("a 1 2\nb 3 4\n")
    assert keys.resource_key(f) != before
    folder = tmp_path / "wordnet"
    folder.mkdir()
    (folder / "data.noun").write_text("x")
    k1 = keys.resource_key(folder)
    (folder / "index.noun").write_text("y")
    assert keys.resource_key(folder) != k1
    assert keys.resource_key(tmp_path / "nope")[1] == "missing"


def _stored(existing: set[str]):
    """Whether a result is kept under a key, as an executor's result store answers."""
    return existing.__contains__


def test_a_file_step_key_rebuilds_only_a_stale_cache_entry(tmp_path):
    step = Step("features", lambda out: out, files="out")
    f = tmp_path / "features-abc.npz"
    # First run: no file and no cached result: the plain key (the result is stored under it).
    assert step.cache_key({"out": str(f)}, _stored(set())) == "features-abc"
    # File present: the plain key (a cache hit when a result exists).
    f.write_bytes(b"x")
    assert step.cache_key({"out": str(f)}, _stored({"features-abc"})) == "features-abc"
    # Cached result but its file was deleted: a fresh key, so the step runs again.
    f.unlink()
    fresh = step.cache_key({"out": str(f)}, _stored({"features-abc"}))
    assert fresh.startswith("features-abc-rebuild-")
    # A step that is not cached has no key.
    assert Step("plain", lambda: None).cache_key({}) is None


def test_step_keys_hold_input_content_and_project(tmp_path):
    entities, pmi = tmp_path / "e.parquet", tmp_path / "p.parquet"
    entities.write_bytes(b"entities v1")
    pmi.write_bytes(b"pmi")
    from aesi_lib.run.config import RunConfig

    config = RunConfig()
    first = ftasks.features_file(str(entities), str(pmi), config, str(tmp_path / "a"))
    assert first == ftasks.features_file(str(entities), str(pmi), config, str(tmp_path / "a"))
    entities.write_bytes(b"entities v2")
    assert ftasks.features_file(str(entities), str(pmi), config, str(tmp_path / "a")) != first
    entities.write_bytes(b"entities v1")
    # Another project folder, other files: another key.
    other = ftasks.features_file(str(entities), str(pmi), config, str(tmp_path / "b"))
    assert Path(other).name != Path(first).name
    # Model options do not enter the features key (configurations share features) ...
    seeded = RunConfig.from_dict({"model": {"seed": 7}})
    assert ftasks.features_file(str(entities), str(pmi), seeded, str(tmp_path / "a")) == first
    # ... but they do enter the solve key.
    a = stasks.solve_files(str(entities), config.model, str(tmp_path))
    b = stasks.solve_files(str(entities), seeded.model, str(tmp_path))
    assert a["labels"] != b["labels"]


def test_a_step_key_is_read_back_from_the_files_the_caller_names(tmp_path):
    solve_key = stasks.solve_step.cache_key
    features = tmp_path / "features.npz"
    features.write_bytes(b"features")
    from aesi_lib.run.config import RunConfig

    files = stasks.solve_files(str(features), RunConfig().model, str(tmp_path))
    name = Path(files["labels"]).stem
    assert name == Path(files["info"]).stem and name.startswith("solve-")
    # The key is the files' name, whatever else the parameters hold.
    assert solve_key({"files": files, "features_path": "elsewhere"}, _stored(set())) == name
    # One of the two files gone while a result is cached under the name: rebuilt.
    Path(files["labels"]).parent.mkdir(parents=True)
    Path(files["labels"]).write_bytes(b"labels")
    assert solve_key({"files": files}, _stored({name})).startswith(f"{name}-rebuild-")
    Path(files["info"]).write_text("{}")
    assert solve_key({"files": files}, _stored({name})) == name
    # A step of one file: the same, from its out_path.
    table = tmp_path / "tables" / "pmi-0123.parquet"
    pmi_key = ftasks.pmi_step.cache_key
    assert pmi_key({"out_path": str(table)}, _stored({"pmi-0123"})).startswith(
        "pmi-0123-rebuild-")
    table.parent.mkdir()
    table.write_bytes(b"pmi")
    assert pmi_key({"out_path": str(table)}, _stored({"pmi-0123"})) == "pmi-0123"


class _FakeParser:
    loads = 0

    def __init__(self, config: ParserConfig):
        type(self).loads += 1
        self.config_id = f"fake:{config.casing}"


def test_parser_config_id_is_remembered(tmp_path, monkeypatch):
    monkeypatch.setattr(parsers, "make_parser", _FakeParser)
    monkeypatch.setattr(parsers, "PARSERS", parsers._ParserPool())
    _FakeParser.loads = 0
    config = ParserConfig(casing="lower")
    assert parsers.parser_config_id(config, str(tmp_path)) == "fake:lower"
    assert _FakeParser.loads == 1
    # A fresh pool (a new process) finds the id on disk without loading a parser.
    monkeypatch.setattr(parsers, "PARSERS", parsers._ParserPool())
    assert parsers.parser_config_id(config, str(tmp_path)) == "fake:lower"
    assert _FakeParser.loads == 1
    assert parsers.parser_config_id(ParserConfig(casing="asis"), str(tmp_path)) == "fake:asis"
    assert _FakeParser.loads == 2
    assert (Path(tmp_path) / "config-ids.json").exists()


def test_parser_pool_shares_idle_parsers(monkeypatch):
    monkeypatch.setattr(parsers, "make_parser", _FakeParser)
    pool = parsers._ParserPool()
    _FakeParser.loads = 0
    config = ParserConfig()
    with pool.checkout(config) as first:
        with pool.checkout(config) as second:      # busy: a second one is loaded
            assert second is not first
    with pool.checkout(config) as third:           # idle ones are reused
        assert third in (first, second)
    assert _FakeParser.loads == 2


def test_transient_steps_retry_with_backoff_but_not_on_user_errors():
    from prefect.states import Failed

    from aesi_lib.errors import InputError, StoreLockedError

    for step in (itasks.load_corpus_step, itasks.parse_batch_step, itasks.store_batch_step):
        delays = step.retry.delays
        assert step.retry.retries == 2 and delays == tuple(sorted(delays))
        assert delays[0] < delays[-1]
        # Its Prefect task retries the same way.
        task = prefect_task(step)
        assert task.retries == 2 and task.retry_delay_seconds == list(delays)
    retry = prefect_task(itasks.store_batch_step).retry_condition_fn
    assert retry(None, None, Failed(data=OSError("disk hiccup"))) is True
    assert retry(None, None, Failed(data=StoreLockedError("held by another run"))) is True
    assert retry(None, None, Failed(data=InputError("x.jsonl", "line 2: malformed"))) is False
    assert itasks.store_batch_step.retry.worth(OSError("disk hiccup"))
    assert not itasks.store_batch_step.retry.worth(InputError("x.jsonl", "malformed"))


def test_batches():
    assert batches(list(range(5)), 2) == [[0, 1], [2, 3], [4]]
    assert batches([], 3) == []
    with pytest.raises(ValueError):
        batches([1], 0)


def test_importing_flows_or_tasks_changes_no_setting():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED")}
    out = subprocess.run(
        [sys.executable, "-c", "import os, aesi_flows, aesi_tasks, aesi_flows.common; print("
         "os.environ.get('DO_NOT_TRACK'), os.environ.get('PREFECT_SERVER_ANALYTICS_ENABLED'))"],
        env=env, capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["None", "None"]


def test_the_command_line_switches_telemetry_off_before_its_command(monkeypatch):
    import aesi_cli as cli

    monkeypatch.delenv("DO_NOT_TRACK", raising=False)
    monkeypatch.delenv("PREFECT_SERVER_ANALYTICS_ENABLED", raising=False)
    seen = {}

    def command(args):
        seen.update({k: os.environ.get(k)
                     for k in ("DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED")})
        return 0

    class Parser:                   # any command: this one, which looks at the environment
        def parse_args(self, argv):
            return argparse.Namespace(func=command, verbose=False)

    monkeypatch.setattr(cli, "build_parser", Parser)
    assert cli.main(["config"]) == 0
    assert seen == {"DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    # An explicit choice of the user wins.
    monkeypatch.setenv("DO_NOT_TRACK", "0")
    assert cli.main(["config"]) == 0
    assert seen["DO_NOT_TRACK"] == "0"


def test_every_deployment_switches_telemetry_off_in_its_runs():
    """A worker starts a deployment's flow run without the command line: ``prefect.yaml``
    sets the variables in the run's environment (``job_variables.env``)."""
    import yaml

    spec = yaml.safe_load((REPO / "prefect.yaml").read_text())
    assert spec["deployments"]
    for deployment in spec["deployments"]:
        env = deployment["work_pool"]["job_variables"]["env"]
        assert env == {**env, "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


def test_record_run_keeps_the_number_of_runs_it_is_given(tmp_path):
    import inspect

    import pandas as pd

    import aesi_cli as cli
    from aesi_flows.induce import induce_flow
    from aesi_lib.store import Store
    from aesi_lib.store.database import DEFAULT_KEEP_RUNS

    frame = pd.DataFrame([{"doc_id": "D1", "sent_id": 0, "entity_id": i, "head": "bomb",
                           "mention": "a bomb", "predicate": "explode", "dep": "nsubj",
                           "template": 0, "slot": 1} for i in range(3)])
    assignments = tmp_path / "assignments.parquet"
    frame.to_parquet(assignments)
    db = str(tmp_path / "aesi.duckdb")
    for i in range(4):
        stasks.record_run_step.fn(db, f"r{i}", {}, str(assignments), {}, keep_runs=2)
    with Store(db, read_only=True) as store:
        assert list(store.runs()["assignments"]) == [3, 3, 0, 0]
    # The value travels as a parameter: the command line's default is the flow's and the
    # task's, which is the store's.
    args = cli.build_parser().parse_args(["run"])
    assert args.keep_runs == DEFAULT_KEEP_RUNS
    assert inspect.signature(induce_flow.fn).parameters["keep_runs"].default == DEFAULT_KEEP_RUNS
    assert inspect.signature(stasks.record_run_step.fn).parameters["keep_runs"].default == \
        DEFAULT_KEEP_RUNS


def test_features_a_cluster_worker_wrote_elsewhere_are_built_here_again(tmp_path, monkeypatch,
                                                                         caplog):
    """Under ``--dask`` the feature build is submitted to a worker; when its file is not on
    this machine (no shared project folder), the flow builds the features itself."""
    import logging

    import aesi_lib.steps.graph as graph
    from aesi_lib.run.config import RunConfig
    from aesi_lib.run.presets import preset

    entities, pmi = tmp_path / "entities.parquet", tmp_path / "pmi.parquet"
    context = tmp_path / "context.npz"
    for path in (entities, pmi, context):
        path.write_bytes(path.name.encode())
    here = str(tmp_path / "features-here.npz")
    calls = []

    class RecordingSteps:
        spreads = True

        def run(self, name, task, *args, **kwargs):
            calls.append(("run", name))
            if task.spread:       # on a worker, whose files this machine does not see
                return {"features": "/on/the/worker/features.npz", "worker": "tcp://10.0.0.9:1"}
            return {"corpus-fingerprint": "corpus", "entity-table": str(entities),
                    "head-pmi": str(pmi), "context-vectors": str(context)}[name]

        def run_here(self, name, task, *args, **kwargs):
            calls.append(("here", name))
            return {"features": here}

    monkeypatch.setattr(graph, "embed_on_workers", lambda *a, **k: calls.append("embed"))
    config = RunConfig.from_dict(preset("default"))
    with caplog.at_level(logging.WARNING, logger="aesi"):
        out = graph.feature_steps(graph.Project.at(tmp_path / "project"), ["d1"], config,
                                   RecordingSteps())
    assert calls[-4:] == ["embed", ("run", "context-vectors"), ("run", "build-features"),
                          ("here", "build-features")]
    assert out["features"] == here
    assert "/on/the/worker/features.npz" in caplog.text and "shared file" in caplog.text


def test_the_machines_wordnet_is_named_in_the_key_by_the_database_it_opens(tmp_path,
                                                                          monkeypatch):
    """``wordnet_path`` None reads the machine's WordNet: its key follows that database, so
    installing or replacing it makes the steps that read it run again."""
    from types import SimpleNamespace

    import aesi_lib.lexicon.wordnet as wordnet
    from aesi_lib.errors import ResourceMissingError

    database = tmp_path / "wordnet"
    database.mkdir()
    (database / "data.noun").write_text("a")
    monkeypatch.setattr(wordnet, "load_wordnet",
                        lambda path=None: SimpleNamespace(source=str(database)))
    first = keys.wordnet_key(None)
    assert first == keys.resource_key(database) and first != "embedded"
    (database / "data.verb").write_text("b")
    assert keys.wordnet_key(None) != first
    assert keys.wordnet_key(str(database)) == keys.resource_key(str(database))

    def missing(path=None):
        raise ResourceMissingError("WordNet not found")

    monkeypatch.setattr(wordnet, "load_wordnet", missing)
    assert keys.wordnet_key(None) == "absent"
