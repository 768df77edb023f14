"""The policy over ``project.json`` (aesi_lib/run/project_state.py), without Prefect: which
configuration a run and an update take, which documents a full run solves, which corpus a
scheduled run reads again, and what each command leaves in the state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aesi_lib.errors import InputError
from aesi_lib.run.config import RunConfig
from aesi_lib.run.presets import preset
from aesi_lib.run.project_state import (
    after_run,
    after_update,
    corpus_record,
    recorded_reading,
    run_configuration,
    run_documents,
    solution_record,
    update_configuration,
)

READING = {"encoding": None, "skip_bad": False, "max_doc_chars": 200_000,
           "keep_non_english": False}


def test_a_run_takes_its_preset_with_the_file_merged_over_it(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"model": {"n_templates": 12}}))
    data = run_configuration(None, str(path))
    assert data["model"]["n_templates"] == 12
    assert {k: v for k, v in data.items() if k != "model"} == {
        k: v for k, v in preset("default").items() if k != "model"}
    assert run_configuration({"seed": 3}, None) == {"seed": 3}


def test_an_update_refines_the_last_runs_configuration_unless_it_names_its_own(tmp_path):
    state = {"config": {"seed": 4, "model": {"n_templates": 12}}}
    assert update_configuration(state, {"seed": 5}, None, None) == {
        "seed": 5, "model": {"n_templates": 12}}
    assert update_configuration({}, None, None, None) == {}
    own = update_configuration(state, {"seed": 5}, None, "default")
    assert own["seed"] == 5 and own["model"] == preset("default")["model"]


def test_a_scheduled_run_reads_the_recorded_corpus_as_it_was_read(tmp_path):
    state = {"corpus": {"docs_path": "/data/news", "demo": False, "encoding": "latin-1",
                        "skip_bad": True, "max_doc_chars": None, "keep_non_english": False}}
    assert recorded_reading(state, tmp_path, READING) == {
        "muc4_dir": None, "docs_path": "/data/news", "demo": False, "encoding": "latin-1",
        "skip_bad": True, "max_doc_chars": None, "keep_non_english": False}
    # An older record without the reading options: the options given.
    older = {"corpus": {"docs_path": "/data/news"}}
    assert recorded_reading(older, tmp_path, READING)["max_doc_chars"] == 200_000
    with pytest.raises(InputError, match="no corpus recorded"):
        recorded_reading({"corpus": {"demo": False}}, tmp_path, READING)


def test_the_corpus_record_holds_absolute_folders_and_the_muc4_folder_as_found(tmp_path,
                                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    record = corpus_record(None, "news", False, READING, found_muc4=None)
    assert record["docs_path"] == str(Path(tmp_path / "news").resolve())
    assert record["muc4_dir"] is None and record["max_doc_chars"] == 200_000
    assert corpus_record(None, None, False, READING, "muc4")["muc4_dir"] == str(
        (tmp_path / "muc4").resolve())


def test_a_full_run_solves_its_corpus_and_the_updates_documents_still_stored():
    state = {"updates": [{"doc_ids": ["u2", "u1"]}, {"doc_ids": ["a", "gone"]}]}
    doc_ids, added = run_documents(["a", "b"], state, stored=["a", "b", "u1", "u2"])
    assert doc_ids == ["a", "b", "u1", "u2"] and added == ["u1", "u2"]
    assert run_documents(["a"], {}, ["a", "x"]) == (["a"], [])


def test_each_command_leaves_its_solution_and_a_run_keeps_the_updates():
    config = RunConfig.from_dict(preset("default"))
    artifacts = {"entities": "e", "labels": "l", "features": "f", "warm": 1,
                 "kept_export": "x"}
    solution = solution_record(artifacts, config)
    assert solution == {"entities": "e", "labels": "l", "features": "f",
                        "config": config.digest(), "warm": True, "export": "x"}
    state = {"corpus": {"demo": True}, "updates": [{"doc_ids": ["u"]}], "other": 1}
    ran = after_run(state, {"demo": False}, config, "out", solution)
    assert ran == {"corpus": {"demo": False}, "config": config.to_dict(), "out_dir": "out",
                   "last_solution": solution, "updates": [{"doc_ids": ["u"]}]}
    updated = after_update(ran, "inbox", ["n1"], 1, 7, {"labels": "m"})
    assert updated["updates"][-1] == {"docs_path": "inbox", "documents": 1,
                                      "doc_ids": ["n1"], "parsed": 1, "carried": 7}
    assert updated["last_solution"] == {"labels": "m"} and updated["corpus"] == {"demo": False}
    assert len(ran["updates"]) == 1  # the state given is not changed
