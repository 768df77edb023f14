"""The harness of experiments/unit_counts.py: every run of CASIE-dev in one project, each
solved from its seed, scored as reach_rules scores it, and the table of means (the runs
themselves are the CLI's, tested elsewhere)."""

from __future__ import annotations

import json

import pandas as pd

from experiments import unit_counts


def test_every_run_shares_one_project_and_is_solved_from_its_seed(tmp_path, monkeypatch):
    calls = []

    def fake_aesi(args, log):
        calls.append(args)
        if args[0] == "evaluate":
            summary = {"roles": {"A": {"f1": 0.2, "r_den": 100}}}
            scores = {f"{s}/{m}": summary for s in ("aesi", "predicate+position")
                      for m in ("single", "multi")}
            json_path = args[args.index("--json") + 1]
            with open(json_path, "w") as fh:
                json.dump(scores, fh)

    monkeypatch.setattr(unit_counts, "aesi", fake_aesi)
    for templates, slots, seed in ((20, 36, 0), (10, 36, 1)):
        (tmp_path / f"out-{templates}-{slots}-{seed}").mkdir()
        row = unit_counts.casie_row(tmp_path, tmp_path / "c.jsonl", templates, slots, seed)
        assert row["configuration"] == f"|T| {templates}, |S| {slots}"
        assert row["aesi_multi_macro"] == 0.2
    runs = [args for args in calls if args[0] == "run"]
    assert {args[args.index("--project-dir") + 1] for args in runs} == {
        str(tmp_path / "project")}
    assert all("--fresh" in args for args in runs)
    assert runs[1][runs[1].index("--templates") + 1] == "10"


def test_the_summary_gives_each_configuration_its_means_and_ratio_in_order():
    rows = pd.DataFrame([
        {"configuration": "|T| 20, |S| 36", "seed": s, "aesi_single_macro": 0.1,
         "aesi_multi_macro": 0.2 + s / 100, "predicate_single_macro": 0.1,
         "predicate_multi_macro": 0.2} for s in (0, 2)] + [
        {"configuration": "|T| 10, |S| 36", "seed": 0, "aesi_single_macro": 0.1,
         "aesi_multi_macro": 0.1, "predicate_single_macro": 0.1,
         "predicate_multi_macro": 0.2}])
    table = unit_counts.summary(rows)
    assert table["configuration"].tolist() == ["|T| 20, |S| 36", "|T| 10, |S| 36"]
    assert table.loc[0, "aesi_multi_macro"] == "0.210 ± 0.014"
    assert table.loc[0, "multi / baseline"] == "1.05"
    assert unit_counts.UNIT_COUNTS[0] == (20, 36)


def test_the_muc4_sweep_file_holds_the_same_counts_over_the_default():
    from aesi_lib.run.experiments import named_configurations
    from aesi_lib.run.presets import preset

    spec = unit_counts.sweep_spec()
    configurations = named_configurations(spec)
    assert list(configurations) == [unit_counts.configuration_name(t, s)
                                    for t, s in unit_counts.UNIT_COUNTS]
    default = preset("default")["model"]
    assert (default["n_templates"], default["n_slots"]) == unit_counts.UNIT_COUNTS[0]
    for (templates, slots), config in zip(unit_counts.UNIT_COUNTS, configurations.values(),
                                          strict=True):
        assert (config.model.n_templates, config.model.n_slots) == (templates, slots)


def test_a_missing_corpus_is_named_before_any_run(tmp_path, capsys, monkeypatch):
    import pytest

    monkeypatch.setattr(unit_counts, "aesi", lambda *a: pytest.fail("ran"))
    with pytest.raises(SystemExit):
        unit_counts.main(["--out", str(tmp_path / "w"), "--corpora", "muc4", "--muc4-dir",
                          str(tmp_path / "none")])
    assert "none: not found" in capsys.readouterr().err
