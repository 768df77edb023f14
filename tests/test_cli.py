"""The ``aesi`` command line: every subcommand has a useful --help, configuration options are
merged, and user errors print one line and exit 2 before any flow starts."""

from __future__ import annotations

import json

import pytest

from aesi_lib.run.presets import preset
from flows import cli
from flows.cli.options import run_config, with_runner
from flows.cli.printing import print_scores

SUBCOMMANDS = {
    "run": ["--demo", "--project-dir", "--dask-address", "--templates", "--seed"],
    "update": ["--docs", "new or changed", "--project-dir", "--dask", "--evaluate"],
    "extract": ["--docs", "--run", "without solving again"],
    "evaluate": ["--assignments", "--keys", "--map-keys", "--matcher"],
    "report": ["--run", "--keys", "--out"],
    "sweep": ["--configs", "--seeds", "mean ± std", "--demo"],
}


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_subcommand_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for needle in SUBCOMMANDS[command]:
        assert needle in text, f"{command} --help lacks {needle!r}"


def test_top_level_help_lists_subcommands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    for command in SUBCOMMANDS:
        assert command in text


def _one_line_error(capsys, argv: list[str], expected: str) -> None:
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
    config = tmp_path / "config.json"
    config.write_text("{not json")
    _one_line_error(capsys, ["run", "--demo", "--config", str(config)], "not valid JSON")
    _one_line_error(capsys, ["run", "--demo", "--mode", "sc", "--templates", "0"],
                    "n_templates and n_slots must be >= 1")
    # Factored slots (the default preset) come in blocks of four argument positions.
    _one_line_error(capsys, ["run", "--demo", "--slots", "5"], "multiple of 4")
    _one_line_error(capsys, ["run", "--demo", "--mode", "scaled"], "slot_model='cut'")
    cut = run_config(cli.build_parser().parse_args(
        ["run", "--mode", "scaled", "--slot-model", "cut", "--slots", "5"]))
    assert cut["model"]["slot_model"] == "cut" and cut["model"]["n_slots"] == 5


def test_run_config_merges_file_and_options(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model": {"n_templates": 8, "seed": 1},
                                  "features": {"pmi_variant": "npmi"}}))
    args = cli.build_parser().parse_args(
        ["run", "--config", str(config), "--seed", "4", "--slots", "8", "--casing", "lower",
         "--vectors", "v.kv"])
    merged = run_config(args)
    # The default preset is the base; the file overrides it; options override the file.
    assert merged["model"] == {**preset("default")["model"], "n_templates": 8, "seed": 4,
                               "n_slots": 8}
    assert merged["features"] == {**preset("default")["features"], "pmi_variant": "npmi"}
    assert merged["parser"] == {"casing": "lower"}
    assert merged["vectors_path"] == "v.kv"
    paper = run_config(cli.build_parser().parse_args(["run", "--preset", "reproduction"]))
    assert paper == preset("reproduction")


def test_dask_options_choose_the_dask_runner():
    from prefect_dask import DaskTaskRunner

    from flows.induce import induce_flow

    args = cli.build_parser().parse_args(["run", "--dask-address", "tcp://10.0.0.5:8786"])
    flow = with_runner(induce_flow, args)
    assert isinstance(flow.task_runner, DaskTaskRunner)
    assert flow.task_runner.address == "tcp://10.0.0.5:8786"
    args = cli.build_parser().parse_args(["run", "--dask", "--dask-workers", "3"])
    runner = with_runner(induce_flow, args).task_runner
    assert isinstance(runner, DaskTaskRunner)
    assert runner.cluster_kwargs["n_workers"] == 3
    # The default: one worker thread, so parse batches do not each load a model in parallel.
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
