"""The ``aesi`` command line: every subcommand has a useful --help, configuration options are
merged, every key of the configuration can be set, and user errors print one line and exit 2
before any flow starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Literal, get_args, get_origin
from unittest import mock

import pandas as pd
import pytest

import aesi_cli as cli
from aesi_cli.options import CONFIG_FLAGS, check_runner, run_config, with_runner
from aesi_cli.printing import print_scores
from aesi_lib import __version__
from aesi_lib.run.config import RunConfig, config_keys
from aesi_lib.run.presets import preset
from tests.test_config_validation import fake_model_folder, fake_wordnet

REPO = Path(__file__).resolve().parents[1]

SUBCOMMANDS = {
    "run": ["--demo", "--project-dir", "--dask", "--templates", "--seed"],
    "update": ["--docs", "new or changed", "--project-dir", "--dask", "--evaluate"],
    "extract": ["--docs", "--run", "without solving again"],
    "evaluate": ["--assignments", "--keys", "--map-keys", "--matcher"],
    "report": ["--run", "--keys", "--out"],
    "sweep": ["--configs", "--seeds", "mean ± std", "--demo"],
    "config": ["--schema", "--set", "JSON schema"],
}


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_subcommand_has_help(command, capsys):
    """Every option of every subcommand says what it does (an option without help, as
    ``evaluate --matcher`` once was, fails), and --help prints them all."""
    import argparse

    sub = next(a for a in cli.build_parser()._actions
               if isinstance(a, argparse._SubParsersAction)).choices[command]
    options = [a for a in sub._actions if a.option_strings and a.dest != "help"]
    undocumented = [a.option_strings[0] for a in options
                    if not a.help or a.help == argparse.SUPPRESS]
    assert undocumented == []
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    missing = [a.option_strings[-1] for a in options if a.option_strings[-1] not in text]
    assert missing == []
    for needle in SUBCOMMANDS[command]:
        assert needle in text, f"{command} --help lacks {needle!r}"


def test_top_level_help_lists_subcommands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    for command in SUBCOMMANDS:
        assert command in text


#: The project of a command that names none: a folder that does not exist (and that the command,
#: stopping on its input, does not make), not the repository's .aesi, which a writer takes
#: from the start and a test on another worker would find in use.
_NO_PROJECT = ["--project-dir", str(Path(tempfile.mkdtemp(prefix="aesi-cli-test-")) / "none")]


def _one_line_error(capsys, argv: list[str], expected: str) -> None:
    if argv and argv[0] in ("run", "update", "sweep") and "--project-dir" not in argv:
        argv = [*argv, *_NO_PROJECT]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("aesi: error: ")
    assert expected in err[0]


def test_user_errors_print_one_line_and_exit_2(tmp_path, capsys):
    _one_line_error(capsys, ["run", "--muc4-dir", str(tmp_path / "nope")],
                    "MUC-4 folder not found")
    _one_line_error(capsys, ["run", "--docs", str(tmp_path / "missing.jsonl")],
                    "no such file or folder")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "fine"}\n{"id": "b"\n')
    _one_line_error(capsys, ["update", "--docs", str(bad)], "line 2")
    _one_line_error(capsys, ["extract", "--docs", str(bad), "--run", str(tmp_path)],
                    "no results.json")
    _one_line_error(capsys, ["report", "--run", str(tmp_path)], "no results.json")
    sweep = tmp_path / "sweep.json"
    sweep.write_text(json.dumps({"configurations": {"x": {"model": {"n_templatez": 3}}}}))
    _one_line_error(capsys, ["sweep", "--configs", str(sweep)], "bad configuration")
    _one_line_error(capsys, ["sweep", "--configs", str(tmp_path / "none.json")], "not found")
    # A row's resources are checked before the first row runs.
    sweep.write_text(json.dumps({"configurations": {"a": {}, "b": {"features": {
        "context": True, "encoder": "transformer", "encoder_model": str(tmp_path / "nomodel")}}}}))
    _one_line_error(capsys, ["sweep", "--configs", str(sweep)],
                    f"{tmp_path / 'nomodel'}: model folder not found")
    config = tmp_path / "config.json"
    config.write_text("{not json")
    _one_line_error(capsys, ["run", "--demo", "--config", str(config)], "not valid JSON")
    _one_line_error(capsys, ["run", "--demo", "--keep-runs", "-1"],
                    "--keep-runs must be 0 or more, not -1")
    _one_line_error(capsys, ["run", "--demo", "--mode", "sc", "--templates", "0"],
                    "model.n_templates (from --templates): must be at least 1, got 0")
    # Factored slots (the default preset) come in blocks of four argument positions.
    _one_line_error(capsys, ["run", "--demo", "--slots", "5"], "multiple of 4")
    _one_line_error(capsys, ["run", "--demo", "--mode", "scaled"], "slot_model='cut'")
    # The default's classes are cut within each template: cut slots have no classes.
    _one_line_error(capsys, ["run", "--demo", "--slot-model", "cut", "--slots", "8"],
                    "class_scope='corpus'")
    cut = run_config(cli.build_parser().parse_args(
        ["run", "--mode", "scaled", "--slot-model", "cut", "--slots", "5", "--set",
         "model.consensus_members=1", "--set", "model.class_scope=corpus"]))
    assert cut["model"]["slot_model"] == "cut" and cut["model"]["n_slots"] == 5


def test_a_missing_sentence_encoder_fails_before_any_work(capsys, monkeypatch):
    # The default preset embeds sentences: without the context extra, the command stops at
    # the start with the install command, and runs when the option is switched off.
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None
                        if name == "transformers" else real(name, *a))
    _one_line_error(capsys, ["run", "--demo"], "transformers is not installed: "
                    "install them with `.venv/bin/pip install 'transformers==5.24.0'")
    off = run_config(cli.build_parser().parse_args(
        ["run", "--set", "features.context=false", "--set", "model.similarity.context_weight=0",
         "--set", "model.consensus_members=1"]))
    assert off["features"]["context"] is False
    # The static encoder needs no extra.
    static = run_config(cli.build_parser().parse_args(
        ["run", "--set", "features.encoder=static"]))
    assert static["features"]["encoder"] == "static"


def test_a_problem_of_a_whole_section_names_the_keys_set_within_it(capsys):
    # R12 off over the default fails for the section (R14-R16 read its nouns); the key the
    # user set is the cause, so the message names it beside the preset.
    _one_line_error(capsys, ["config", "--set", "features.event_nouns=false"],
                    "features (from preset default; features.event_nouns from --set): ")
    _one_line_error(capsys, ["config", "--set", "features.event_nouns=false", "--set",
                             "features.support_verbs=false"],
                    "features (from preset default; features.event_nouns from --set; "
                    "features.support_verbs from --set): ")


def test_a_weight_without_its_feature_fails_in_one_line(capsys):
    _one_line_error(capsys, ["run", "--demo", "--set", "features.context=false"],
                    "model.similarity.context_weight (from preset default): 0.75 needs "
                    "features.context=true")
    _one_line_error(capsys, ["run", "--demo", "--set", "model.template_unit=chain"],
                    "model.template_unit (from --set): \"chain\" was removed; templates tied "
                    "by coreference chain measured no gain")
    for weight in ("context_weight", "salience_weight", "pmi_weight"):
        _one_line_error(capsys, ["run", "--demo", "--set", f"model.similarity.{weight}=-1"],
                        f"model.similarity.{weight}")


def test_run_config_merges_file_and_options(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model": {"n_templates": 8, "seed": 1},
                                  "features": {"type_scheme": "lexname"}}))
    vectors = tmp_path / "v.kv"
    vectors.write_bytes(b"")
    args = cli.build_parser().parse_args(
        ["run", "--config", str(config), "--seed", "4", "--slots", "8", "--casing", "lower",
         "--vectors", str(vectors)])
    merged = run_config(args)
    # The default preset is the base; the file overrides it; options override the file.
    assert merged["model"] == {**preset("default")["model"], "n_templates": 8, "seed": 4,
                               "n_slots": 8}
    assert merged["features"] == {**preset("default")["features"], "type_scheme": "lexname"}
    assert merged["parser"] == {"casing": "lower"}
    assert merged["vectors_path"] == str(vectors)
    paper = run_config(cli.build_parser().parse_args(["run", "--preset", "reproduction"]))
    assert paper == preset("reproduction")


def test_run_config_makes_relative_resource_paths_absolute(tmp_path, monkeypatch):
    (tmp_path / "v.kv").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    merged = run_config(cli.build_parser().parse_args(["run", "--vectors", "v.kv"]))
    assert merged["vectors_path"] == str(tmp_path / "v.kv")


def test_dask_options_choose_the_dask_runner():
    from prefect_dask import DaskTaskRunner

    from aesi_flows.induce import induce_flow

    args = cli.build_parser().parse_args(["run", "--dask", "tcp://10.0.0.5:8786", "--demo"])
    assert args.dask == "tcp://10.0.0.5:8786" and args.demo
    with mock.patch("aesi_cli.options.check_dask_scheduler") as checked:
        check_runner(args)
    checked.assert_called_once_with("tcp://10.0.0.5:8786")
    flow = with_runner(induce_flow, args)
    assert isinstance(flow.task_runner, DaskTaskRunner)
    assert flow.task_runner.address == "tcp://10.0.0.5:8786"
    args = cli.build_parser().parse_args(["run", "--dask", "--dask-workers", "3"])
    runner = with_runner(induce_flow, args).task_runner
    assert isinstance(runner, DaskTaskRunner)
    assert runner.cluster_kwargs["n_workers"] == 3
    # The default: one worker thread (aesi_flows.common.default_task_runner); ingest keeps two
    # parse batches in flight with a two-thread runner of its own when processes parse.
    args = cli.build_parser().parse_args(["run"])
    default = with_runner(induce_flow, args).task_runner
    assert type(default).__name__ == "ThreadPoolTaskRunner"
    assert default._max_workers == 1


def test_scores_print_the_bounds_beside_the_scores(capsys):
    entry = {"precision": 0.5, "recall": 0.25, "f1": 1 / 3, "tp": 1, "fp": 1, "fn": 3,
             "fp_share_irrelevant": 1.0, "template_recall_ceiling": 0.5,
             "relevance_oracle": {"f1": 0.4}}
    old = {k: v for k, v in entry.items() if k not in ("template_recall_ceiling",
                                                       "relevance_oracle")}
    print_scores({"evaluated_on": "TST1+TST2", "scores": {
        "test-mapped/lenient": entry, "dev-mapped/lenient": old, "recall_ceiling/lenient": 0.8}})
    lines = capsys.readouterr().out.splitlines()
    assert "| test-mapped/lenient | 0.500 | 0.250 | 0.333 | 1 | 1 | 3 |" in lines
    assert "recall_ceiling/lenient: 0.800" in lines
    assert "| test-mapped/lenient | 100% | 0.500 | 0.400 |" in lines
    # Results stored before the bounds existed print their scores and no bounds row.
    assert not any(line.startswith("| dev-mapped/lenient | 100%") for line in lines)
    assert not any("missed" in line for line in lines)


def test_scores_print_where_the_missed_entities_are(capsys):
    misses = {"found": 1, "other_slot": 2, "other_template": 1, "no_mention": 0,
              "other_slot_roles": [[3, 5, 2]], "other_templates": [[7, 1]]}
    entry = {"precision": 0.5, "recall": 0.25, "f1": 1 / 3, "tp": 1, "fp": 1, "fn": 3,
             "fp_share_irrelevant": 1.0, "template_recall_ceiling": 0.5,
             "relevance_oracle": {"f1": 0.4}, "misses": {"Victim": misses}}
    print_scores({"evaluated_on": "TST1+TST2", "scores": {
        "test-mapped/lenient": entry, "test-mapped/strict": entry}})
    lines = capsys.readouterr().out.splitlines()
    assert "| test-mapped/lenient | Victim | 1 | 2 | t3 s5 (2) | 1 | t7 (1) | 0 |" in lines
    # The lenient entries only, when there are any.
    assert not any(line.startswith("| test-mapped/strict | Victim") for line in lines)
    # Stored before the kinds of what no mention reaches existed: no such table.
    assert not any("no mention reaches" in line for line in lines)


def test_scores_print_what_no_mention_reaches(capsys):
    misses = {"found": 1, "other_slot": 0, "other_template": 0, "no_mention": 3,
              "other_slot_roles": [], "other_templates": []}
    entry = {"precision": 0.5, "recall": 0.25, "f1": 1 / 3, "tp": 1, "fp": 1, "fn": 3,
             "fp_share_irrelevant": 1.0, "template_recall_ceiling": 0.5,
             "relevance_oracle": {"f1": 0.4}, "misses": {"Perpetrator": misses, "Victim": misses},
             "unreached": {"Perpetrator": {"inside a mention, not its head": 2,
                                           "no mention there": 1},
                           "Victim": {"number or amount": 3}}}
    print_scores({"evaluated_on": "TST1+TST2", "scores": {"test-mapped/lenient": entry}})
    lines = capsys.readouterr().out.splitlines()
    assert "gold entities no mention reaches, by what they are (lenient):" in lines
    assert "| number or amount | 0 | 3 |" in lines
    assert "| inside a mention, not its head | 2 | 0 |" in lines
    assert not any(line.startswith("| pronoun") for line in lines)


def _no_work(monkeypatch) -> None:
    """Make any step after the configuration check fail the test."""
    from aesi_cli import commands

    def started(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("work started before the configuration was checked")

    for name in ("check_corpus", "check_docs", "prefect_environment"):
        monkeypatch.setattr(commands, name, started)


@pytest.mark.parametrize(("options", "expected"), [
    (["--casing", "foo"], "parser.casing (from --casing): must be 'asis', 'lower', "
     "'truecase' or 'auto', got 'foo'"),
    (["--type-scheme", "depth:x"], "features.type_scheme (from --type-scheme): unknown typing "
     "scheme 'depth:x': use 'hypernyms', 'lexname' or 'depth:N'"),
    (["--templates", "5000"], "model.n_templates (from --templates): must be at most 1000, "
     "got 5000"),
    (["--templates", "many"], "model.n_templates (from --templates): must be an integer, got "
     "many"),
    (["--parser", "spacyy"], "parser.backend (from --parser): must be 'spacy' or 'stanza'"),
    (["--vectors", "/nonexistent.txt"], "/nonexistent.txt: word vectors file not found"),
    (["--wordnet", "/nonexistent-wordnet"], "/nonexistent-wordnet: WordNet folder not found"),
    (["--set", "features.encoder=transformer", "--set", "features.encoder_model=/nonexistent-m"],
     "/nonexistent-m: model folder not found (features.encoder_model)"),
    (["--set", "features.encoder=transformer"], "features.encoder=transformer needs "
     "features.encoder_model (the model folder)"),
    (["--set", "model.n_initt=8"], "model.n_initt (from --set): unknown key; did you mean "
     "'n_init'?"),
    (["--set", "features.context=maybe"],
     "features.context (from --set): must be true or false, got maybe"),
    (["--set", "model.n_init"], "--set 'model.n_init': expected KEY=VALUE"),
    (["--set", "model.similarity.pmi_weight=-1"],
     "model.similarity.pmi_weight (from --set): must be at least 0, got -1"),
    (["--mode", "scaled"], "model.slot_model (from preset default): slot_model='factored' "
     "fixes the slots, so it needs mode='sc'"),
])
@pytest.mark.parametrize("command", ["run", "update", "config"])
def test_configuration_errors_stop_before_any_work(command, options, expected, tmp_path,
                                                   capsys, monkeypatch):
    if command == "update" and options in (["--mode", "scaled"],
                                           ["--set", "features.encoder=transformer"]):
        # update merges into the project's configuration: no preset to clash with, and the
        # project's configuration may name the model folder
        return
    _no_work(monkeypatch)
    docs = ["--docs", str(tmp_path)] if command == "update" else []
    _one_line_error(capsys, [command, *docs, *options], expected)


def test_errors_in_a_config_file_name_the_file(tmp_path, capsys, monkeypatch):
    _no_work(monkeypatch)
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"model": {"init": "zero"}, "parser": {"casing": "x"}}))
    _one_line_error(capsys, ["run", "--config", str(config)],
                    f"parser.casing (from {config}): must be 'asis', 'lower', 'truecase' or "
                    f"'auto', got 'x'; model.init (from {config}): must be 'random' or 'sc', "
                    "got 'zero'")


def test_a_removed_key_is_named_with_its_reason_and_its_fixed_value_is_accepted(
        tmp_path, capsys, monkeypatch):
    _no_work(monkeypatch)
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"model": {"eig_tol": 1e-4}}))
    _one_line_error(capsys, ["run", "--config", str(config)],
                    f"model.eig_tol (from {config}): removed; the eigensolver's tolerance is "
                    "always 1e-8")
    _one_line_error(capsys, ["config", "--set", "model.deflate=true"],
                    "model.deflate (from --set): removed;")
    # The behaviour that is now fixed, as an old file or project states it, is dropped.
    config.write_text(json.dumps({"model": {"eig_tol": 1e-8, "solver": "eigsh"}}))
    assert cli.main(["config", "--config", str(config), "--set", "model.deflate=false"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "eig_tol" not in printed["model"] and "deflate" not in printed["model"]


def _example_value(key: str, info: Any, current: Any, tmp_path: Path) -> tuple[str, Any]:
    """A command-line text for ``key`` and the value it must give (not ``current``)."""
    annotation = info.annotation
    if get_origin(annotation) is Literal:
        value = next(c for c in get_args(annotation) if c != current)
        return value, value
    if annotation is bool:
        return str(not current).lower(), not current
    numbers = {int, float} & ({annotation} | set(get_args(annotation)))
    if numbers:             # int, float, or optional (None: "as many as usable", ...)
        value = (current or 1) + (1 if int in numbers else 0.5)
        return str(value), value
    if key == "features.type_scheme":
        return "depth:2", "depth:2"
    if key == "vectors_path":
        path = tmp_path / "vectors.txt"
        path.write_text("word 0.1 0.2\n")
        return str(path), str(path)
    if key == "wordnet_path":
        path = str(fake_wordnet(tmp_path / "wordnet"))
        return path, path
    if key == "features.encoder_model":
        path = str(fake_model_folder(tmp_path / "model"))
        return path, path
    if key == "parser.stanza_dir":
        path = str(tmp_path / "stanza")
        return path, path
    assert str in get_args(annotation) or annotation is str, key
    return f"value-of-{key}", f"value-of-{key}"


def _value_at(config: RunConfig, key: str) -> Any:
    value: Any = config
    for part in key.split("."):
        value = getattr(value, part)
    return value


# Keys whose new value needs another key set too (the configuration's own combination checks).
COMPANIONS = {
    "features.support_verbs": ["features.event_nouns=true"],
    "features.event_noun_senses": ["features.event_nouns=true"],
    "features.agentive_modifiers": ["features.event_nouns=true"],
    "features.attribution_verbs": ["features.event_nouns=true"],
    "features.encoder_model": ["features.encoder=transformer"],
    "model.similarity.context_weight": ["features.context=true"],
    "model.consensus_members": ["features.context=true", "model.similarity.context_weight=1",
                                "model.consensus_spread=0.5"],
    "model.class_scope": ["model.slot_model=factored"],
}


def test_every_configuration_key_can_be_set_from_the_command_line(tmp_path):
    base = RunConfig.from_dict(preset("reproduction-sc"))
    keys = config_keys()
    assert len(keys) >= 35
    for key, info in keys.items():
        text, expected = _example_value(key, info, _value_at(base, key), tmp_path)
        companions = [a for item in COMPANIONS.get(key, []) for a in ("--set", item)]
        args = cli.build_parser().parse_args(
            ["run", "--preset", "reproduction-sc", *companions, "--set", f"{key}={text}"])
        config = RunConfig.from_dict(run_config(args))
        assert _value_at(config, key) == expected, key
        assert _value_at(config, key) != _value_at(base, key), key


def test_named_options_set_their_keys(tmp_path):
    base = RunConfig.from_dict(preset("reproduction-sc"))
    keys = config_keys()
    flags = [flag for flag, _, _, _ in CONFIG_FLAGS]
    assert len(set(flags)) == len(flags)
    for flag, _, key, _ in CONFIG_FLAGS:
        assert key in keys, flag
        text, expected = _example_value(key, keys[key], _value_at(base, key), tmp_path)
        args = cli.build_parser().parse_args(["run", "--preset", "reproduction-sc", flag, text])
        assert _value_at(RunConfig.from_dict(run_config(args)), key) == expected, flag


def test_set_overrides_the_named_options_and_null_unsets(tmp_path):
    args = cli.build_parser().parse_args(
        ["run", "--templates", "7", "--set", "model.n_templates=9", "--set",
         "model.similarity.dep_weight=0.25", "--set", "parser.model=null"])
    config = run_config(args)
    assert config["model"]["n_templates"] == 9
    # The default preset's own similarity options (the context and salience weights) stay
    # beside the one set.
    assert config["model"]["similarity"] == {"context_weight": 0.75, "salience_weight": 0.5,
                                             "dep_weight": 0.25}
    assert config["parser"] == {"model": None}


def test_update_checks_its_options_alone(tmp_path):
    # The project's configuration is not known before the flow: factored slots without
    # --mode sc are not a clash here (they would be over the defaults).
    args = cli.build_parser().parse_args(
        ["update", "--docs", str(tmp_path), "--slot-model", "factored", "--slots", "8"])
    assert run_config(args) == {"model": {"slot_model": "factored", "n_slots": 8}}


def _help(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_each_command_states_its_own_defaults(capsys):
    run = _help(capsys, ["run", "--help"])
    default = RunConfig.from_dict(preset("default"))
    assert f"(model.n_templates; default: {default.model.n_templates})" in run
    assert f"(model.n_init; default: {default.model.n_init})" in run
    assert "(parser.casing; one of asis, lower, truecase, auto; default: auto)" in run
    assert "(vectors_path; default: none)" in run
    assert "(default: the default preset)" in run
    update = _help(capsys, ["update", "--help"])
    assert "(model.n_templates; default: as in the project's last run)" in update
    assert "(default: the configuration of the project's last run)" in update
    assert "run: default" not in update and "default: 20" not in update
    evaluate = _help(capsys, ["evaluate", "--help"])
    matcher = evaluate.split("--matcher {lenient,strict,both}")[-1].split("--mapping")[0]
    mapping = evaluate.split("--mapping {test-mapped,dev-mapped,both}")[-1].split("--json")[0]
    assert "strict (it equals" in matcher and matcher.endswith("(default: both) ")
    assert "dev-mapped (on --map-keys" in mapping and mapping.endswith("(default: both) ")


def test_version_is_the_package_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"aesi {__version__}\n"


def test_config_prints_the_configuration_and_its_schema(tmp_path, capsys):
    assert cli.main(["config", "--preset", "reproduction", "--set", "model.n_init=3"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = RunConfig.from_dict({**preset("reproduction"), "model": {
        **preset("reproduction")["model"], "n_init": 3}})
    assert printed == expected.to_dict()
    # The printed configuration is a --config file, also with a "$schema" line for editors.
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"$schema": "aesi-config.schema.json", **printed}))
    assert cli.main(["config", "--config", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == printed
    assert cli.main(["config", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "aesi RunConfig"
    assert set(schema["properties"]) == {"parser", "features", "model", "vectors_path",
                                         "wordnet_path"}


@pytest.mark.slow
def test_sizes_above_the_corpus_fail_in_one_line_without_a_traceback(tmp_path, demo_seed):
    # |T| <= 1000 passes the early check; that the demo corpus has fewer template units is
    # known only once its entity table is, inside the flow's solve task.
    demo_seed.copy_to(tmp_path / "project", tmp_path / "home")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)})
    done = subprocess.run(
        [sys.executable, "-m", "aesi_cli", "run", "--demo", "--templates", "900",
         "--project-dir", str(tmp_path / "project"), "--out", str(tmp_path / "out")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("aesi: error: model.n_templates: 900 templates, but the corpus "
                           "has only ")
    assert last.endswith(tuple(f"use at most {n}" for n in range(1, 900)))
    assert "Traceback" not in done.stderr


def test_a_corpus_without_entities_fails_in_one_line_without_retries(tmp_path, demo_seed):
    demo_seed.copy_to(prefect_home=tmp_path / "home")
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": f"d{i}", "text": "Yes. No. Maybe so. 42."}) + "\n"
                            for i in range(3)))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)})
    done = subprocess.run(
        [sys.executable, "-m", "aesi_cli", "run", "--docs", str(docs), "--set",
         "features.context=false", "--set", "model.similarity.context_weight=0",
         "--set", "model.consensus_members=1", "--project-dir", str(tmp_path / "project"),
         "--out", str(tmp_path / "out")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("aesi: error: ") and "hold no entity mention" in last
    assert "Traceback" not in done.stderr
    assert "Retrying" not in done.stderr and "AwaitingRetry" not in done.stderr


def test_an_unknown_encoding_fails_even_without_docs(capsys):
    _one_line_error(capsys, ["run", "--demo", "--encoding", "nonsense"],
                    "unknown text encoding")


def test_log_lines_name_their_step():
    import logging

    from aesi_cli import _StepName

    record = logging.LogRecord("prefect.task_runs", logging.INFO, __file__, 1,
                               "Finished in state Completed()", None, None)
    record.task_run_name = "solve-4e2"
    assert _StepName().filter(record) and record.step == "solve-4e2"
    flow_line = logging.LogRecord("prefect.flow_runs", logging.INFO, __file__, 1, "x", None, None)
    flow_line.flow_run_name = "outgoing-deer"
    _StepName().filter(flow_line)
    assert flow_line.step == "outgoing-deer"
    plain = logging.LogRecord("aesi", logging.INFO, __file__, 1, "x", None, None)
    _StepName().filter(plain)
    assert plain.step == "aesi"


def test_the_document_length_limit_of_the_help_is_the_readers():
    from aesi_cli.options import MAX_DOC_CHARS_DEFAULT
    from aesi_lib.corpus.plain import DEFAULT_MAX_DOC_CHARS

    assert MAX_DOC_CHARS_DEFAULT == DEFAULT_MAX_DOC_CHARS
    for command in ("run", "update", "extract"):
        args = cli.build_parser().parse_args([command, "--docs", "x", "--run", "r"]
                                             if command == "extract" else [command])
        assert args.max_doc_chars == DEFAULT_MAX_DOC_CHARS


# Greetings without a verb: the English rules find no noun argument of a verb in them (a
# Spanish sentence with verbs gives mentions, as English words or not).
SPANISH = "Buenos días. Muchas gracias, señora. Hasta mañana."
NUMBERS = "1989 1990 1991\n\n12 45 78 90\n\n3.14 2.71 1.41"


def test_documents_that_give_no_mention_are_named_in_one_warning_and_in_the_results(
        tmp_path, demo_seed):
    from aesi_lib.corpus.demo import load_demo_corpus

    demo_seed.copy_to(tmp_path / "project", tmp_path / "home")     # the demo's parses
    docs = tmp_path / "docs"
    docs.mkdir()
    for doc in load_demo_corpus().documents:
        (docs / f"{doc.doc_id}.txt").write_text(doc.text)
    (docs / "es.txt").write_text(SPANISH)
    (docs / "numbers.txt").write_text(NUMBERS)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)})
    done = subprocess.run(
        [sys.executable, "-m", "aesi_cli", "run", "--docs", str(docs), "--project-dir",
         str(tmp_path / "project"), "--out", str(tmp_path / "out"),
         "--keep-non-english"],   # else the figures-only document is left out as no words
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    # Which corpus and why, before any work.
    assert done.stdout.splitlines()[0] == f"corpus: the documents of {docs} (--docs)"
    warnings = [line for line in done.stderr.splitlines() if " WARNING " in line]
    assert len(warnings) == 1, done.stderr[-3000:]
    assert warnings[0].endswith("42 documents gave no entity mention (not English?), so the "
                                "export has no row of theirs: es, numbers")
    assert warnings[0].split(" WARNING ", 1)[1].split(": ", 1)[1].startswith("2 of 42")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["documents_without_mentions"] == ["es", "numbers"]
    exported = set(pd.read_parquet(tmp_path / "out" / "assignments.parquet")["doc_id"])
    assert len(exported) == 40 and not exported & {"es", "numbers"}


def test_update_move_done_moves_the_files_it_read_aside(tmp_path, demo_seed):
    from aesi_lib.corpus.demo import load_demo_corpus

    demo_seed.copy_to(tmp_path / "project", tmp_path / "home")     # the demo's parses
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    demo = load_demo_corpus().documents
    for doc in demo:
        (inbox / f"{doc.doc_id}.txt").write_text(doc.text)
    (inbox / "empty.txt").write_text("")            # left out by --skip-bad: it stays
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PREFECT_") and k != "AESI_MUC4_DIR"}
    env.update({"PREFECT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)})
    done = subprocess.run(
        [sys.executable, "-m", "aesi_cli", "update", "--docs", str(inbox), "--move-done",
         "--skip-bad", "--project-dir", str(tmp_path / "project"), "--out",
         str(tmp_path / "out")], env=env, cwd=tmp_path, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert [p.name for p in inbox.iterdir() if p.is_file()] == ["empty.txt"]
    (moved_to,) = (inbox / "done").iterdir()
    assert sorted(p.name for p in moved_to.iterdir()) == sorted(f"{d.doc_id}.txt" for d in demo)
    assert f"the 40 files read from {inbox} moved to {moved_to}" in done.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["moved_to"]["folder"] == str(moved_to)
    assert results["documents_given"] == 40


def test_move_done_needs_docs_and_an_empty_inbox_is_nothing_to_do(tmp_path, capsys):
    _one_line_error(capsys, ["update", "--move-done"], "--move-done moves the files of --docs "
                    "aside: give --docs")
    inbox = tmp_path / "inbox"
    (inbox / "done").mkdir(parents=True)
    project = tmp_path / "project"
    argv = ["update", "--docs", str(inbox), "--project-dir", str(project)]
    assert cli.main([*argv, "--move-done"]) == 0
    assert capsys.readouterr().out == f"update: no documents in {inbox}: nothing to do\n"
    assert not project.exists()
    # Without --move-done an empty folder is still an error (a wrong path, most likely).
    _one_line_error(capsys, argv, "folder holds no .txt files")
