"""benchmarks/warm_run.py: its summary of the runs, its refusal of a folder that holds no
project (a cold run would be timed as a warm one), and the import path of a source tree."""

from __future__ import annotations

import sys

import pytest

from tests.benchmark_modules import BENCHMARKS, load_benchmark

sys.path.insert(0, str(BENCHMARKS))       # the script imports its neighbour aesi_commands
warm_run = load_benchmark("warm_run")


def test_the_summary_is_the_median_and_the_minimum_of_the_walls():
    runs = [{"wall_s": 12.0, "flow_s": 5.0}, {"wall_s": 10.0, "flow_s": 4.0},
            {"wall_s": 20.0, "flow_s": 9.0}]
    s = warm_run.summary(runs)
    assert (s["median_s"], s["min_s"], s["flow_median_s"]) == (12.0, 10.0, 5.0)
    assert s["rest_median_s"] == 7.0            # of 7, 6 and 11


def test_a_folder_without_a_project_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="holds no aesi project"):
        warm_run.main(["--project-dir", str(tmp_path), "--out", str(tmp_path / "out")])


def test_a_tree_is_imported_under_the_names_it_installs(tmp_path):
    new, middle, old = tmp_path / "new", tmp_path / "middle", tmp_path / "old"
    for tree, names in ((new, '"aesi_cli" = "cli"\n"aesi_flows" = "flows"'),
                        (middle, '"aesi_flows" = "flows"'), (old, 'include = ["flows*"]')):
        for folder in ("aesi_lib", "cli", "flows", "tasks"):
            (tree / folder).mkdir(parents=True)
        (tree / "pyproject.toml").write_text(names)
    module, path = warm_run.import_path(new, tmp_path / "links")
    assert module == "aesi_cli" and path == tmp_path / "links"
    assert {p.name: p.resolve() for p in path.iterdir()} == {
        "aesi_lib": new / "aesi_lib", "aesi_cli": new / "cli", "aesi_flows": new / "flows",
        "aesi_tasks": new / "tasks"}
    # A tree whose command line was aesi_flows.cli.
    module, path = warm_run.import_path(middle, tmp_path / "middle-links")
    assert module == "aesi_flows.cli"
    assert sorted(p.name for p in path.iterdir()) == ["aesi_flows", "aesi_lib", "aesi_tasks"]
    # An older tree, whose folders were installed under their own names.
    assert warm_run.import_path(old, tmp_path / "other") == ("flows.cli", old)
