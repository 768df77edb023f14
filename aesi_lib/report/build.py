"""Entry points: compute a report and write it.

Owns :func:`run_meta` (run facts from ``results.json`` for the overview),
:func:`build_report` (the :class:`~aesi_lib.report.document.SchemaReport` of a run: summaries,
examples, stored or computed scores and mapping, solver history) and
:func:`write_schema_report` (``report.md`` and ``report.html`` in a folder). This is the only
module that ties the others together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.files import writing
from aesi_lib.report._util import _get, _is_number
from aesi_lib.report.blocks import report_blocks
from aesi_lib.report.document import SchemaReport
from aesi_lib.report.load import prepare_assignments, role_grid
from aesi_lib.report.plots import (
    objective_series,
    plot_objective,
    plot_schema,
    plot_slot_f1,
)
from aesi_lib.report.render import render_html, render_markdown
from aesi_lib.report.scores import (
    compute_choices,
    compute_mappings,
    compute_scores,
    scores_from_results,
)
from aesi_lib.report.summaries import pick_examples, summarise_roles, summarise_templates
from aesi_lib.run.pipeline import run_schema


def run_meta(results: Mapping[str, Any] | None) -> dict[str, str]:
    """A few facts about the run from ``results.json``, as display strings."""
    if not isinstance(results, Mapping):
        return {}
    meta: dict[str, str] = {}
    for key in ("corpus", "evaluated_on", "documents", "seed"):
        # A run on one's own documents has no evaluated split (an empty string).
        if results.get(key) is not None and str(results[key]) != "":
            meta[key.replace("_", " ").capitalize()] = str(results[key])
    docs_path = _get(results, "corpus_spec", "docs_path")
    if docs_path and "Corpus" in meta:
        meta["Corpus"] += f" ({docs_path})"
    model = _get(results, "config", "model")
    if isinstance(model, Mapping):
        meta["Model"] = ", ".join(f"{k}={model[k]}" for k in _model_keys(model) if k in model)
    solve = _get(results, "solve")
    if isinstance(solve, Mapping):
        facts = [f"{k}={solve[k]}" for k in ("converged", "n_iter") if solve.get(k) is not None
                 and _get(model, "mode") != "sc"]
        seconds = _get(solve, "timings", "total")
        if _is_number(seconds):
            facts.append(f"{float(seconds):.1f} s when it was computed")
        if facts:
            meta["Solver"] = ", ".join(facts)
    total = _get(results, "timings", "total")
    if _is_number(total):
        steps = _get(results, "steps")
        cached = [n for n, r in steps.items() if isinstance(r, Mapping)
                  and r.get("state") == "Cached"] if isinstance(steps, Mapping) else []
        note = f" ({len(cached)} of {len(steps)} steps from the cache)" if cached else ""
        meta["Run time"] = f"{float(total):.1f} s for this run{note}"
    return meta


def _model_keys(model: Mapping[str, Any]) -> tuple[str, ...]:
    """The model options that apply to the run's mode: the constraint weight only with the
    scaled AMP, the AMP start only with an AMP."""
    keys: tuple[str, ...] = ("n_templates", "n_slots", "mode", "slot_model", "template_unit")
    if model.get("mode") == "scaled":
        keys += ("constraint_weight",)
    if model.get("mode") in ("scaled", "literal"):
        keys += ("init",)
    return keys


def build_report(
    assignments: pd.DataFrame,
    *,
    results: Mapping[str, Any] | None = None,
    eval_keys: Sequence[KeyTemplate] | None = None,
    map_keys: Sequence[KeyTemplate] | None = None,
    seed: int = 0,
    n_examples: int = 5,
    top_n: int = 8,
    events: pd.DataFrame | None = None,
    kinds: Mapping[int, str] | None = None,
) -> SchemaReport:
    """Compute everything the report shows (see :func:`write_schema_report`)."""
    prepared = prepare_assignments(assignments)
    roles = summarise_roles(prepared, top_n, role_grid(prepared, results))
    # The run's own schema rule, so the report, schema.md and schema.json agree.
    schema, names = run_schema(prepared)
    stored = scores_from_results(results)
    scores = stored
    if eval_keys is not None:
        if stored is None:
            scores = compute_scores(prepared, eval_keys, map_keys)
        else:
            stored.mapping = compute_mappings(prepared, eval_keys, map_keys)
            stored.choices = compute_choices(prepared, eval_keys, map_keys)
            stored.source += "; mapping computed from the given keys"
    return SchemaReport(
        roles=roles,
        templates=summarise_templates(prepared, roles, top_n),
        examples=pick_examples(prepared, n_examples, seed),
        scores=scores,
        objective=objective_series(_get(results, "solve", "history")),
        meta=run_meta(results),
        n_mentions=len(prepared),
        n_docs=int(prepared["doc_id"].nunique()),
        seed=seed,
        schema=schema,
        names=names,
        kinds=dict(kinds or {}),
        events=events,
    )


def write_schema_report(
    assignments: pd.DataFrame,
    out_dir: str | Path,
    *,
    results: dict | None = None,
    eval_keys: Sequence[KeyTemplate] | None = None,
    map_keys: Sequence[KeyTemplate] | None = None,
    seed: int = 0,
    n_examples: int = 5,
    top_n: int = 8,
    events: pd.DataFrame | None = None,
    kinds: Mapping[int, str] | None = None,
) -> dict[str, str]:
    """Write ``report.md`` and a self-contained ``report.html`` describing a learned schema.

    Parameters
    ----------
    assignments : pandas.DataFrame
        A run's export (evaluation.md, "Export format"); ``template`` and ``slot`` required.
    out_dir : str or Path
        Created if needed.
    results : dict, optional
        The run's ``results.json``: scores, solver history and run facts are taken from it.
    eval_keys : sequence of KeyTemplate, optional
        Keys of the evaluated split; enables the mapping to MUC-4 types and gold slots (and the
        scores, when ``results`` holds none).
    map_keys : sequence of KeyTemplate, optional
        DEV keys, for the ``dev-mapped`` mapping.
    seed : int
        Seed of the example draw.
    n_examples : int
        Random members shown per role.
    top_n : int
        Predicates, heads and dependencies listed per role.
    events : pandas.DataFrame, optional
        The run's ``events.parquet``: the first screen shows the incidents of a few
        documents beside the schema.
    kinds : mapping of int to str, optional
        Each template's kind, from the run's ``schema.json``.

    Returns
    -------
    dict
        ``{"markdown": path of report.md, "html": path of report.html}``.
    """
    report = build_report(
        assignments,
        results=results,
        eval_keys=eval_keys,
        map_keys=map_keys,
        seed=seed,
        n_examples=n_examples,
        top_n=top_n,
        events=events,
        kinds=kinds,
    )
    blocks = report_blocks(report)
    images = {
        "schema": plot_schema(report.schema, report.names),
        "slot_f1": plot_slot_f1(report.scores.per_slot) if report.scores is not None else None,
        "objective": plot_objective(report.objective),
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md_path, html_path = out / "report.md", out / "report.html"
    with writing(md_path):
        md_path.write_text(render_markdown(blocks), encoding="utf-8")
    with writing(html_path):
        html_path.write_text(render_html(blocks, images), encoding="utf-8")
    return {"markdown": str(md_path), "html": str(html_path)}
