"""The harness of experiments/reach_rules.py: its options per variant, the issue's macro
average and the table of means over the seeds (the runs themselves are the CLI's, tested
elsewhere)."""

from __future__ import annotations

import pandas as pd
import pytest

from aesi_lib.model.features import ENTITY_RULE_SWITCHES
from experiments import reach_rules


def test_each_variant_sets_an_entity_rule_of_the_features():
    assert reach_rules.settings("default") == []
    assert reach_rules.settings("without_pronoun_arguments") == [
        "--set", "features.pronoun_arguments=false"]
    for options in reach_rules.VARIANTS.values():
        for option in options:
            assert option.split("=")[0].removeprefix("features.") in ENTITY_RULE_SWITCHES


def test_macro_averages_the_roles_with_enough_gold_entities():
    summary = {"roles": {"A": {"f1": 0.2, "r_den": 150}, "B": {"f1": 0.4, "r_den": 100},
                         "C": {"f1": 0.9, "r_den": 99}}}
    assert reach_rules.macro(summary) == pytest.approx(0.3)


def test_the_table_gives_mean_and_deviation_per_variant_in_order():
    rows = pd.DataFrame([{"corpus": "muc4", "variant": "default", "seed": 0, "x": 0.4, "n": 4170},
                         {"corpus": "muc4", "variant": "default", "seed": 1, "x": 0.6, "n": 4170},
                         {"corpus": "muc4", "variant": "b", "seed": 0, "x": 0.1, "n": 3786},
                         {"corpus": "casie-dev", "variant": "b", "seed": 0, "x": 9.0, "n": 1}])
    lines = reach_rules.table(rows, "muc4", ["x", "n"]).splitlines()
    assert lines[0] == "| variant | seeds | x | n |"
    assert lines[2] == "| default | 2 | 0.500 ± 0.100 | 4,170 |"
    assert lines[3] == "| b | 1 | 0.100 ± 0.000 | 3,786 |"


def test_a_missing_corpus_is_named_before_any_run(tmp_path, capsys):
    with pytest.raises(SystemExit):
        reach_rules.main(["--out", str(tmp_path / "w"), "--casie", str(tmp_path / "none.jsonl"),
                          "--corpora", "casie-dev"])
    assert "none.jsonl: not found" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()


def test_a_variants_seeds_share_one_project_per_corpus(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(reach_rules, "aesi", lambda args, log: calls.append((args, log)))
    for seed in (0, 1):
        root, out = reach_rules.run_seed(tmp_path, "muc4", ["--muc4-dir", "M"],
                                         "without_pronoun_arguments", seed)
        assert out == root / f"out-{seed}" and root.is_dir()
    projects = {args[args.index("--project-dir") + 1] for args, _ in calls}
    assert projects == {str(tmp_path / "muc4" / "without_pronoun_arguments" / "project")}
    assert calls[1][0][-4:] == ["--seed", "1", "--set", "features.pronoun_arguments=false"]
    assert calls[1][1].name == "run-1.log"
