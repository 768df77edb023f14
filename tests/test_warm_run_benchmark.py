"""benchmarks/warm_run.py: its summary of the runs, and its refusal of a folder that holds no
project (a cold run would be timed as a warm one)."""

from __future__ import annotations

import pytest

from tests.benchmark_modules import load_benchmark

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
