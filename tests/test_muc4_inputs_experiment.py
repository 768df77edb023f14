"""The MUC-4 benchmarks' checks of their inputs (experiments/muc4_inputs.py): one line, exit 2."""

from __future__ import annotations

import pytest

from experiments import muc4_inputs as inputs


def test_a_missing_muc4_folder_stops_in_one_line_with_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        inputs.muc4_corpus("role_share", str(tmp_path / "nowhere"), eval_keys=False)
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == (
        f"role_share: {tmp_path / 'nowhere'}: MUC-4 folder not found")


def test_a_project_without_a_store_stops_in_one_line_with_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        inputs.project_store("incident_levers", tmp_path)
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == (
        f"incident_levers: {tmp_path / 'aesi.duckdb'}: no project store; run ./scripts/run.sh "
        "first")
    (tmp_path / "aesi.duckdb").write_bytes(b"")
    assert inputs.project_store("incident_levers", tmp_path) == tmp_path / "aesi.duckdb"
