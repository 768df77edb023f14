"""The documentation's generated regions: how they are written, and that docs/ is current."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from aesi_lib.docs import renderers
from aesi_lib.docs.configuration import configuration_reference, schema_keys
from aesi_lib.docs.regions import END, generate, render_page
from aesi_lib.errors import InputError
from aesi_lib.run.config import RunConfig, json_schema
from aesi_lib.run.experiments import RECORD_COLUMNS, append_results, results_table, summarize
from aesi_lib.run.presets import PRESETS, preset

REPO = Path(__file__).resolve().parent.parent


def _upper(arguments, folder):
    return arguments.get("word", "none").upper() + "\n"


def test_a_region_is_written_anew_and_the_rest_of_the_page_kept(tmp_path):
    page = tmp_path / "p.md"
    text = ("# Title\n\nkept\n<!-- aesi:generated upper word=abc -->\nstale\nlines\n"
            f"{END}\nalso kept\n")
    fresh = render_page(text, page, {"upper": _upper})
    assert fresh == ("# Title\n\nkept\n<!-- aesi:generated upper word=abc -->\nABC\n"
                     f"{END}\nalso kept\n")
    assert render_page(fresh, page, {"upper": _upper}) == fresh


@pytest.mark.parametrize("text, problem", [
    ("<!-- aesi:generated upper -->\nno end\n", "has no <!-- aesi:end -->"),
    (f"x\n{END}\n", "without a start marker"),
    ("<!-- aesi:generated nothing -->\n" + END + "\n", "unknown generated region 'nothing'"),
    ("<!-- aesi:generated upper word -->\n" + END + "\n", "is not NAME=VALUE"),
    ("<!-- aesi:generated upper -->\n<!-- aesi:generated upper -->\n" + END + "\n",
     "not closed before the next one"),
])
def test_a_malformed_region_names_the_page_and_line(tmp_path, text, problem):
    page = tmp_path / "bad.md"
    with pytest.raises(InputError, match=problem) as err:
        render_page(text, page, {"upper": _upper})
    assert f"{page}:" in str(err.value)


def test_generate_reports_stale_pages_and_writes_only_when_asked(tmp_path):
    (tmp_path / "sub").mkdir()
    stale = tmp_path / "sub" / "a.md"
    stale.write_text(f"<!-- aesi:generated upper word=x -->\nold\n{END}\n")
    current = tmp_path / "b.md"
    current.write_text(f"<!-- aesi:generated upper word=y -->\nY\n{END}\n")
    assert generate(tmp_path, {"upper": _upper}, write=False) == [stale]
    assert "old" in stale.read_text()
    assert generate(tmp_path, {"upper": _upper}, write=True) == [stale]
    assert generate(tmp_path, {"upper": _upper}, write=False) == []


def test_the_documentation_is_current():
    # A key added to the configuration, a preset changed or a recorded row edited without
    # `aesi docs` fails here (and in scripts/test.sh's `aesi docs --check`).
    assert generate(REPO / "docs", renderers(), write=False) == []


def test_the_configuration_reference_lists_every_key_of_the_schema():
    schema = json_schema(RunConfig.from_dict(preset("default")).to_dict())
    keys = [key for key, _ in schema_keys(schema)]
    page = (REPO / "docs" / "configuration.md").read_text()
    for key in keys:
        assert f"| `{key}` |" in page, key
    assert page.count("\n| `") - len(PRESETS) == len(keys)
    assert configuration_reference(schema).count("\n| `") == len(keys)


def test_the_reference_shows_the_default_preset_values():
    reference = renderers()["configuration"]({}, REPO / "docs")
    line = next(line for line in reference.splitlines() if line.startswith("| `model.n_slots`"))
    assert "| `36` |" in line


def _seed_rows(path: Path) -> pd.DataFrame:
    rows = pd.DataFrame([
        {"configuration": name, "seed": seed, "commit": "abc1234", "config_digest": "d",
         **{c: f1 + 0.01 * seed for c in RECORD_COLUMNS[4:]}}
        for name, f1 in (("default", 0.45), ("other", 0.40)) for seed in (0, 1, 2)])
    rows.to_csv(path, index=False)
    return rows


def test_per_seed_rows_give_the_sweeps_own_table_and_name_their_commit(tmp_path):
    rows = _seed_rows(tmp_path / "rows.csv")
    body = renderers()["results"]({"rows": "rows.csv", "command": "aesi sweep x"}, tmp_path)
    assert body.startswith(results_table(summarize(rows)))
    assert "over 3 seeds of the 6 rows (2 configurations)" in body
    assert "commit `abc1234`" in body
    assert "Measured by `aesi sweep x`." in body


def test_a_sweeps_csv_record_renders_as_its_markdown_table(tmp_path):
    rows = _seed_rows(tmp_path / "unused.csv").assign(export="/x.parquet", config="{}")
    paths = append_results(rows, tmp_path / "sweep")
    record = pd.read_csv(paths["csv"])
    assert list(record.columns) == list(RECORD_COLUMNS)
    body = renderers()["results"]({"rows": "results.csv"}, tmp_path / "sweep")
    assert body.startswith(Path(paths["markdown"]).read_text())


def test_a_recorded_table_stands_as_it_was_measured(tmp_path):
    with open(tmp_path / "t.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["configuration", "dev-mapped F1"])
        writer.writerow(["|T| = 18", "0.440 ± 0.005"])
    body = renderers()["results"]({"rows": "t.csv", "commit": "5ff1b42"}, tmp_path)
    assert "| \\|T\\| = 18 | 0.440 ± 0.005 |" in body
    assert "per-seed rows were not kept" in body
    assert "commit `5ff1b42`" in body


def test_a_recorded_table_names_the_rows_it_was_made_from(tmp_path):
    (tmp_path / "t.csv").write_text("share,slots below\n3%,0 of 80\n")
    body = renderers()["results"]({"rows": "t.csv", "per_seed": "rows.csv"}, tmp_path)
    assert "| 3% | 0 of 80 |" in body
    assert "from the per-seed rows in [`rows.csv`](rows.csv)" in body
    assert "not kept" not in body


def test_a_missing_or_empty_rows_file_is_named(tmp_path):
    with pytest.raises(InputError, match="no such rows file"):
        renderers()["results"]({"rows": "gone.csv"}, tmp_path)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(InputError, match="empty.csv: not a CSV table"):
        renderers()["results"]({"rows": "empty.csv"}, tmp_path)


def test_aesi_docs_check_fails_on_a_stale_page_and_docs_writes_it(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(f"<!-- aesi:generated presets -->\n{END}\n")
    command = [sys.executable, "-m", "aesi_cli", "docs", "--dir", str(tmp_path)]
    check = subprocess.run([*command, "--check"], capture_output=True, text=True, cwd=REPO)
    assert check.returncode == 1
    assert f"{page}: generated regions are not current" in check.stderr
    assert subprocess.run(command, capture_output=True, cwd=REPO).returncode == 0
    assert "`default`" in page.read_text()
    assert subprocess.run([*command, "--check"], cwd=REPO).returncode == 0


def test_the_presets_table_names_every_preset_and_its_settings():
    table = renderers()["presets"]({}, REPO / "docs")
    for name in PRESETS:
        assert f"| `{name}` |" in table
    n_templates = json.dumps(PRESETS["default"]["model"]["n_templates"])
    assert f"`model.n_templates={n_templates}`" in table


def test_the_experiments_index_links_every_experiment_page():
    folder = REPO / "docs" / "experiments"
    index = (folder / "index.md").read_text()
    for page in sorted(folder.glob("*.md")):
        if page.name != "index.md":
            assert f"]({page.name})" in index, f"{page.name} is not linked from index.md"
