"""Sweep bookkeeping: configuration merging, summaries over seeds, the results table."""

from __future__ import annotations

import pandas as pd
import pytest

from aesi_lib.run.config import RunConfig
from aesi_lib.run.experiments import (
    RESULTS_HEADER,
    append_results,
    named_configurations,
    results_table,
    summarize,
)
from aesi_lib.run.presets import deep_merge, preset


def test_deep_merge_overrides_nested_keys_only():
    base = {"model": {"n_templates": 6, "n_slots": 4}, "features": {"type_scheme": "hypernyms"}}
    merged = deep_merge(base, {"model": {"n_slots": 8}})
    assert merged == {"model": {"n_templates": 6, "n_slots": 8},
                      "features": {"type_scheme": "hypernyms"}}
    assert base["model"]["n_slots"] == 4


def test_named_configurations_apply_overrides_and_reject_typos():
    spec = {"base": {"model": {"n_templates": 6}},
            "configurations": {"reproduction": {}, "lexname": {"features":
                                                               {"type_scheme": "lexname"}}}}
    configs = named_configurations(spec)
    assert configs["reproduction"].model.n_templates == 6
    assert configs["lexname"].features.type_scheme == "lexname"
    assert configs["reproduction"].features.type_scheme == "hypernyms"
    with pytest.raises(ValueError, match="model.n_templatez: unknown key; did you mean"):
        named_configurations({"configurations": {"bad": {"model": {"n_templatez": 3}}}})


def test_a_sweep_base_may_name_a_preset_and_its_rows_list_their_differences():
    spec = {"base": "default", "configurations": {"default": {},
                                                  "|T| = 12": {"model": {"n_templates": 12}}}}
    configs = named_configurations(spec)
    default = RunConfig.from_dict(preset("default"))
    assert configs["default"] == default
    assert configs["|T| = 12"] == RunConfig.from_dict(
        deep_merge(preset("default"), {"model": {"n_templates": 12}}))
    assert configs["|T| = 12"].model.n_slots == default.model.n_slots
    with pytest.raises(ValueError, match="unknown preset 'defualt'; choose one of default"):
        named_configurations({"base": "defualt", "configurations": {"default": {}}})


def _rows(config: str, f1s: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"configuration": config, "seed": range(len(f1s)),
                         "tst_test_lenient_f1": f1s, "tst_test_lenient_p": f1s,
                         "tst_test_lenient_r": f1s})


def test_summary_is_mean_and_sample_std_over_seeds():
    summary = summarize(pd.concat([_rows("a", [0.1, 0.3]), _rows("b", [0.5])]))
    a = summary.set_index("configuration").loc["a"]
    assert a["seeds"] == 2
    assert a["tst_test_lenient_f1_mean"] == pytest.approx(0.2)
    assert a["tst_test_lenient_f1_std"] == pytest.approx(0.1 * 2 ** 0.5)
    table = results_table(summary)
    assert "0.200 ± 0.141" in table
    assert table.splitlines()[2].endswith("| – | – |")  # rows without bounds or margins


def test_table_shows_the_mean_bounds():
    rows = _rows("a", [0.3, 0.5]).assign(tst_test_lenient_template_r=[0.4, 0.5],
                                         tst_test_lenient_oracle_f1=[0.45, 0.55])
    line = results_table(summarize(rows)).splitlines()[2]
    assert line.startswith("| a | 2 | 0.400 ± 0.141 (0.40 / 0.40) |")
    assert line.endswith("| 0.45 / 0.50 | – |")


def test_table_counts_the_seeds_with_a_close_type_choice():
    rows = _rows("a", [0.3, 0.5, 0.4]).assign(tst_test_lenient_min_margin=[0.001, 0.2,
                                                                            float("nan")])
    rows = pd.concat([rows, _rows("b", [0.4]).assign(tst_test_lenient_min_margin=[0.05])])
    lines = results_table(summarize(rows)).splitlines()
    # Seed 2 recorded no choice (no type had a template); it is not counted either way.
    assert lines[2].endswith("| 1 of 2 |")
    assert lines[3].endswith("| 0 of 1 |")



def test_a_pipe_in_a_configuration_name_does_not_split_its_cell():
    line = results_table(summarize(_rows("|T| = 25", [0.3]))).splitlines()[2]
    assert line.startswith("| \\|T\\| = 25 | 1 |")
    assert line.replace("\\|", "").count("|") == len(RESULTS_HEADER) + 1


def test_append_results_replaces_a_rerun_seed(tmp_path):
    append_results(_rows("a", [0.1, 0.3]), tmp_path)
    paths = append_results(_rows("a", [0.5]), tmp_path)
    table = pd.read_parquet(paths["parquet"])
    assert len(table) == 2
    assert sorted(table["tst_test_lenient_f1"]) == [0.3, 0.5]
    assert "0.400 ± 0.141" in open(paths["markdown"]).read()


def test_presets_are_valid_run_configurations():
    from aesi_lib.run.config import RunConfig
    from aesi_lib.run.presets import PRESETS

    for name in PRESETS:
        RunConfig.from_dict(preset(name))
    assert RunConfig.from_dict(preset("reproduction")).model.n_templates == 6
    with pytest.raises(ValueError, match="reproduction"):
        preset("best-ever")


def test_seed_exports_list_a_configurations_exports_by_seed(tmp_path):
    from aesi_lib.run.experiments import seed_exports, seed_run_dir

    for seed in (10, 2, 0):
        folder = seed_run_dir(tmp_path, "default", seed)
        folder.mkdir(parents=True)
        (folder / "assignments.parquet").write_bytes(b"")
    (tmp_path / "runs" / "default" / "seed-x").mkdir()
    assert [s for s, _ in seed_exports(tmp_path / "runs" / "default")] == [0, 2, 10]
    assert seed_exports(tmp_path / "runs" / "other") == []
