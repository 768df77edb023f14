"""Experiment bookkeeping for sweeps: named configurations, one scored row per (configuration,
seed), and the results table (Parquet + Markdown) with mean ± std over seeds."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.evaluate import KeyGold, score_grid
from aesi_lib.evaluate.mapping import CLOSE_CHOICE
from aesi_lib.evaluate.split import SplitIndex
from aesi_lib.files import replacing, writing
from aesi_lib.markdown import markdown_table
from aesi_lib.run.config import RunConfig
from aesi_lib.run.presets import deep_merge, preset

SCORE_COLUMNS = (
    "tst_test_lenient_f1", "tst_test_lenient_p", "tst_test_lenient_r",
    "tst_dev_lenient_f1", "tst_dev_lenient_p", "tst_dev_lenient_r",
    "tst_test_strict_f1", "tst_dev_strict_f1", "dev_dev_lenient_f1",
    "tst_test_lenient_template_r", "tst_test_lenient_oracle_f1",
)
#: The smallest margin of a type's choice of template, test-mapped lenient (not averaged:
#: the summary counts the seeds where it is below ``CLOSE_CHOICE``).
MARGIN_COLUMN = "tst_test_lenient_min_margin"
#: The columns of ``results.csv``, the record of a sweep that an experiment page keeps: which
#: configuration, seed and code, and the scores (not the run's paths and timings).
RECORD_COLUMNS = ("configuration", "seed", "commit", "config_digest", *SCORE_COLUMNS,
                  MARGIN_COLUMN)


def seed_run_dir(out_dir: str | Path, configuration: str, seed: int) -> Path:
    """Where a sweep writes the export of one configuration and seed."""
    return Path(out_dir) / "runs" / configuration / f"seed-{seed}"


def seed_exports(runs: str | Path) -> list[tuple[int, Path]]:
    """The exports of one configuration of a sweep (``OUT/runs/CONFIGURATION``, the folders
    of :func:`seed_run_dir`), as ``(seed, assignments.parquet)`` by seed."""
    found = [(int(p.parent.name.removeprefix("seed-")), p)
             for p in Path(runs).glob("seed-*/assignments.parquet")
             if p.parent.name.removeprefix("seed-").isdigit()]
    return sorted(found)


def extraction_groups(configurations: Mapping[str, RunConfig]) -> list[list[str]]:
    """The names of ``configurations`` grouped by what makes a document's entity rows: the
    parser configuration and the id the store records for the entity rules
    (``aesi_lib.entities.rules.stored_config_id`` of ``aesi_lib.run.pipeline.entity_rules``:
    R12 with its lexicon, its senses and its WordNet, R14-R16). A store holds one set of rows
    per document, so a sweep ingests once per group; configurations of one group differ only
    in what is computed from the rows (the feature arrays, the model, the seed). Groups and
    names keep the order of ``configurations``.
    """
    from aesi_lib.entities.rules import stored_config_id
    from aesi_lib.run.pipeline import entity_rules

    groups: dict[Any, list[str]] = {}
    for name, config in configurations.items():
        rows_id = stored_config_id("", entity_rules(config))
        groups.setdefault((config.parser, rows_id), []).append(name)
    return list(groups.values())


def named_configurations(spec: dict[str, Any]) -> dict[str, RunConfig]:
    """Configurations of a sweep file.

    The file is ``{"base": ..., "configurations": {"name": {...overrides}}}``; ``base`` names
    a preset (``"default"``, ``aesi_lib.run.presets``) or is a ``RunConfig`` as nested dicts
    (missing: the dataclasses' defaults), and each configuration is ``base`` with its
    overrides merged in, so that it lists only its differences. An unknown preset, unknown
    keys and bad values raise ``ValueError`` (``ConfigError`` for the keys), so a typo never
    silently runs the default.
    """
    base = spec.get("base", {})
    if isinstance(base, str):
        base = preset(base)
    configurations = spec.get("configurations") or {"base": {}}
    return {name: RunConfig.from_dict(deep_merge(base, override))
            for name, override in configurations.items()}


def score_row(assignments: pd.DataFrame, eval_keys: Sequence[KeyTemplate] | KeyGold,
              dev_keys: Sequence[KeyTemplate] | KeyGold | None) -> dict[str, float]:
    """The sweep's scores of one run, read off its score grid (``aesi_lib.evaluate.grid``).

    ``tst_*``: the evaluated split (TST1+TST2, the selection split), test-mapped and
    dev-mapped, lenient and strict; ``dev_dev_lenient_f1``: DEV scored with a mapping learned
    on DEV itself (a cross-check on the split the mapping saw, not a held-out score);
    ``tst_test_lenient_template_r`` and ``tst_test_lenient_oracle_f1``: the template recall
    ceiling and the relevance-oracle F1 of the test-mapped lenient result
    (``aesi_lib.evaluate.bounds``); ``tst_test_lenient_min_margin`` (:data:`MARGIN_COLUMN`):
    the smallest margin by which a type kept its template in that mapping
    (``aesi_lib.evaluate.mapping.type_choices``; NaN when no type chose one), where a seed
    sits on a knife-edge.
    """
    eval_keys = KeyGold.of(eval_keys)
    grid = score_grid(assignments, eval_keys, dev_keys)
    row: dict[str, float] = {}
    for (mode, matcher), cell in grid.cells.items():
        prefix = f"tst_{mode.split('-')[0]}_{matcher}"
        r = cell.result
        row.update({f"{prefix}_f1": r.f1, f"{prefix}_p": r.precision, f"{prefix}_r": r.recall})
        if prefix == "tst_test_lenient":
            row[f"{prefix}_template_r"] = cell.bounds["template_recall_ceiling"]
            row[f"{prefix}_oracle_f1"] = cell.bounds["relevance_oracle"]["f1"]
    if dev_keys:
        dev = score_grid(assignments, dev_keys, matchers=("lenient",), bounds=False)
        row["dev_dev_lenient_f1"] = dev.cell("test-mapped", "lenient").result.f1
    choices = SplitIndex(assignments, eval_keys, "lenient").type_choices()
    margins = [c.margin for c in choices.values()]
    row[MARGIN_COLUMN] = min(margins) if margins else float("nan")
    return row


def summarize(rows: pd.DataFrame, columns: Sequence[str] = SCORE_COLUMNS) -> pd.DataFrame:
    """Mean and sample standard deviation over seeds of every score column, per configuration."""
    present = [c for c in columns if c in rows.columns]
    grouped = rows.groupby("configuration", sort=False)[present]
    mean, std = grouped.mean(), grouped.std(ddof=1)
    out = pd.DataFrame(index=mean.index)
    out["seeds"] = rows.groupby("configuration", sort=False)["seed"].nunique()
    for c in present:
        out[f"{c}_mean"] = mean[c]
        out[f"{c}_std"] = std[c]
    if MARGIN_COLUMN in rows.columns:
        margins = rows.groupby("configuration", sort=False)[MARGIN_COLUMN]
        out["close_choices"] = margins.apply(lambda m: int((m < CLOSE_CHOICE).sum()))
        out["margin_seeds"] = margins.count()
    return out.reset_index()


RESULTS_HEADER = (
    "configuration", "seeds", "TST1+TST2 (selection) test-mapped lenient F1 (P / R)",
    "dev-mapped lenient F1", "test-mapped strict F1", "DEV, mapped on DEV itself, F1",
    "bounds: R templates / F1 oracle", "seeds with a close type choice",
)


def results_table(summary: pd.DataFrame) -> str:
    """The README's results table: F1 on the selection split (TST1+TST2) as mean ± std over
    seeds, the DEV cross-check, and the mean bounds of the test-mapped lenient result (template
    recall ceiling, relevance-oracle F1), and in how many seeds a type's choice of template
    in the test-mapped mapping was closer than ``CLOSE_CHOICE`` (out of the seeds that
    recorded it)."""

    def cell(row: pd.Series, name: str) -> str:
        if f"{name}_mean" not in row or pd.isna(row[f"{name}_mean"]):
            return "–"
        return f"{row[f'{name}_mean']:.3f} ± {row[f'{name}_std']:.3f}"

    def bounds(row: pd.Series) -> str:
        names = ("tst_test_lenient_template_r_mean", "tst_test_lenient_oracle_f1_mean")
        if any(n not in row or pd.isna(row[n]) for n in names):
            return "–"
        return f"{row[names[0]]:.2f} / {row[names[1]]:.2f}"

    def close(row: pd.Series) -> str:
        if "close_choices" not in row or pd.isna(row["close_choices"]) or not row[
                "margin_seeds"]:
            return "–"
        return f"{int(row['close_choices'])} of {int(row['margin_seeds'])}"

    rows = []
    for _, row in summary.iterrows():
        pr = ""
        if "tst_test_lenient_p_mean" in row:
            pr = (f" ({row['tst_test_lenient_p_mean']:.2f} / "
                  f"{row['tst_test_lenient_r_mean']:.2f})")
        # A configuration's name is the user's text: a "|" in it (|T| = 25) would split its cell.
        name = str(row["configuration"]).replace("|", "\\|")
        rows.append([name, row["seeds"], cell(row, "tst_test_lenient_f1") + pr,
                     cell(row, "tst_dev_lenient_f1"), cell(row, "tst_test_strict_f1"),
                     cell(row, "dev_dev_lenient_f1"), bounds(row), close(row)])
    return markdown_table(RESULTS_HEADER, rows)


def append_results(rows: pd.DataFrame, out_dir: str | Path) -> dict[str, str]:
    """Append rows to ``results.parquet`` in ``out_dir`` and rewrite ``results.csv`` (their
    :data:`RECORD_COLUMNS`, the record an experiment page of ``docs/`` keeps beside it) and
    ``results.md``.

    A row for the same configuration name and seed replaces the older one, so re-running a
    sweep refreshes its rows instead of counting a seed twice.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    parquet = out / "results.parquet"
    if parquet.exists():
        rows = pd.concat([pd.read_parquet(parquet), rows], ignore_index=True)
        rows = rows.drop_duplicates(["configuration", "seed"], keep="last")
    # The Parquet file accumulates the rows of every sweep into this folder: written whole.
    with replacing(parquet) as tmp:
        rows.to_parquet(tmp, index=False)
    csv = out / "results.csv"
    with writing(csv):
        rows[[c for c in RECORD_COLUMNS if c in rows.columns]].to_csv(csv, index=False)
    markdown = out / "results.md"
    with writing(markdown):
        markdown.write_text(results_table(summarize(rows)))
    return {"parquet": str(parquet), "csv": str(csv), "markdown": str(markdown)}


def config_json(config: RunConfig) -> str:
    return json.dumps(config.to_dict(), sort_keys=True)
