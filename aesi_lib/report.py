"""Human-readable report of a learned schema: templates, slots, examples, mapping, diagnostics.

A run's export (``assignments`` with the columns of evaluation.md, "Export format") labels
every entity mention with a learned template and slot; a *role* is the pair (template, slot).
:func:`write_schema_report` turns it into ``report.md`` and a self-contained ``report.html``:

* per role: size, most frequent predicates, heads and dependencies, and ``n_examples`` members
  drawn at random with a seed (mention text with predicate and dependency), per-template totals;
* when answer keys are given: the mapping of learned templates to MUC-4 incident types and of
  roles to gold slots, shown like the paper's figure of learned schemas ("Bombing template ←
  learned template 3: Perpetrator: ..., Victim: ..."), computed with
  :func:`aesi_lib.evaluate.evaluate`;
* diagnostics: scores per mapping × matcher (from ``results["scores"]`` when the run stored
  them, else computed from the keys), per-gold-slot scores, the recall ceiling, the share of
  false positives from messages without a relevant incident;
* plots (matplotlib, Agg, embedded as base64 PNG in the HTML): cluster sizes, F1 per gold slot,
  solver objective terms per iteration.

The work is split into small pure functions: :func:`summarise_roles`,
:func:`summarise_templates`, :func:`pick_examples`, :func:`mapping_rows`, the ``plot_*``
functions, :func:`report_blocks` (the document as a list of blocks), and the two renderers
:func:`render_markdown` and :func:`render_html`.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.errors import InputError
from aesi_lib.evaluate import (
    ASSIGNMENT_COLUMNS,
    EVENT_TYPES,
    GOLD_SLOTS,
    MATCHERS,
    TYPE_GOLD_SLOTS,
    EvaluationResult,
    SplitIndex,
    evaluate,
    read_assignments,
    recall_ceiling,
    result_bounds,
)
from aesi_lib.evaluate.mapping import type_mappings

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Text columns of the export; absent ones are read as empty strings.
TEXT_COLUMNS: tuple[str, ...] = ("doc_id", "head", "mention", "predicate", "dep")
# A list, not a tuple: pandas reads a tuple passed to groupby as one key.
ROLE = ["template", "slot"]
#: Columns of :func:`summarise_roles`.
_ROLE_SUMMARY_COLUMNS = [
    "template",
    "slot",
    "size",
    "share_of_template",
    "share_of_all",
    "n_docs",
    "n_heads",
    "top_predicates",
    "top_heads",
    "top_deps",
]

#: The matcher whose mapping the schema sections show (evaluation.md's default).
MAPPING_MATCHER = "lenient"

#: Columns of the score tables built by :func:`scores_from_results` / :func:`compute_scores`.
SCORE_COLUMNS = (
    "mode", "matcher", "precision", "recall", "f1", "tp", "fp", "fn",
    "fp_share", "template_recall_ceiling", "relevance_oracle_f1",
)
PER_SLOT_COLUMNS = ("mode", "matcher", "gold_slot", "precision", "recall", "f1", "tp", "fp", "fn")
MAPPING_COLUMNS = ("mode", "type", "template", "slot", "gold_slot", "kept")

# History entries carry bookkeeping next to the objective terms; these are not plotted.
_NOT_OBJECTIVE = frozenset({"iteration", "seconds"})
# Objective terms first, in this order, then the other numeric diagnostics alphabetically.
_OBJECTIVE_FIRST = ("objective", "eps1", "eps2", "eps3", "eps3_ratio")

# Length at which long mention texts are cut in tables.
_MAX_MENTION = 60


# --------------------------------------------------------------------------------------------
# Reading a run


def load_run(out_dir: str | Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Read a run folder: ``assignments.parquet`` (else ``assignments.csv``) and
    ``results.json``.

    Parameters
    ----------
    out_dir : str or Path
        The folder a run wrote (``OUT``).

    Returns
    -------
    (pandas.DataFrame, dict)
        The assignments (export columns) and the parsed results.

    Raises
    ------
    InputError
        Naming the folder or file that is missing, unreadable, malformed or lacks a column.
    """
    out = Path(out_dir)
    if not out.is_dir():
        raise InputError(out, "run folder not found")
    # Parquet keeps the dtypes; a folder may hold either export or both.
    candidates = [out / "assignments.parquet", out / "assignments.csv"]
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        raise InputError(candidates[1], "assignments file not found (nor assignments.parquet)")
    assignments = read_assignments(path)
    missing = [c for c in ASSIGNMENT_COLUMNS if c not in assignments.columns]
    if missing:
        raise InputError(path, f"missing column(s) {missing}; expected {ASSIGNMENT_COLUMNS}")
    prepare_assignments(assignments, where=path)  # raises on bad template/slot values
    return assignments, _read_results(out / "results.json")


def _read_results(path: Path) -> dict[str, Any]:
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(path, "results file not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read results: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc}") from exc
    if not isinstance(results, dict):
        raise InputError(path, "expected a JSON object at the top level")
    return results


def prepare_assignments(
    assignments: pd.DataFrame, where: str | Path = "assignments"
) -> pd.DataFrame:
    """A clean copy of the export columns the report reads.

    Parameters
    ----------
    assignments : pandas.DataFrame
        Needs ``template`` and ``slot``; the text columns and ``sent_id`` / ``entity_id`` are
        optional (empty string / -1 when absent).
    where : str or Path
        Named in errors.

    Returns
    -------
    pandas.DataFrame
        ``template`` and ``slot`` as int64; text columns as strings with missing values empty
        and surrounding blanks removed; ``head_lc``, the lowercased head (the scorer's guess).

    Raises
    ------
    InputError
        When ``template`` or ``slot`` is missing or not a non-negative integer.
    """
    missing = [c for c in ROLE if c not in assignments.columns]
    if missing:
        raise InputError(where, f"missing column(s) {missing}; expected {ASSIGNMENT_COLUMNS}")
    n = len(assignments)
    out = pd.DataFrame(index=pd.RangeIndex(n))
    for col in ROLE:
        vals = pd.to_numeric(assignments[col], errors="coerce").to_numpy(dtype=float)
        if n and (np.isnan(vals).any() or (vals < 0).any() or (vals != np.floor(vals)).any()):
            raise InputError(where, f"column {col!r} must hold non-negative integers")
        out[col] = vals.astype(np.int64)
    for col in ("sent_id", "entity_id"):
        vals = pd.to_numeric(assignments[col], errors="coerce") if col in assignments else None
        out[col] = -1 if vals is None else vals.fillna(-1).to_numpy(dtype=np.int64)
    for col in TEXT_COLUMNS:
        if col in assignments.columns:
            out[col] = assignments[col].astype("string").fillna("").str.strip().to_numpy()
        else:
            out[col] = ""
        out[col] = out[col].astype("string")
    out["head_lc"] = out["head"].str.lower()
    return out


def role_grid(prepared: pd.DataFrame, results: Mapping[str, Any] | None = None) -> tuple[int, int]:
    """``(n_templates, n_slots)``: one more than the largest index, or the configured numbers
    when ``results["config"]["model"]`` names more (so empty clusters are reported too).

    Parameters
    ----------
    prepared : pandas.DataFrame
        Output of :func:`prepare_assignments`.
    results : mapping, optional

    Returns
    -------
    (int, int)
    """
    n_t = int(prepared["template"].max()) + 1 if len(prepared) else 0
    n_s = int(prepared["slot"].max()) + 1 if len(prepared) else 0
    model = _get(results, "config", "model")
    if isinstance(model, Mapping):
        n_t = max(n_t, _as_int(model.get("n_templates"), 0))
        n_s = max(n_s, _as_int(model.get("n_slots"), 0))
    return n_t, n_s


# --------------------------------------------------------------------------------------------
# Summaries and examples


def _top_values(
    df: pd.DataFrame, by: list[str], col: str, top_n: int
) -> dict[tuple[int, ...], list[tuple[str, int]]]:
    """Per group of ``by``, the ``top_n`` most frequent non-empty values of ``col`` with their
    counts (ties: alphabetical, so the output does not depend on row order)."""
    sub = df.loc[df[col] != "", [*by, col]]
    counts = sub.groupby([*by, col], sort=False, observed=True).size().rename("n").reset_index()
    counts = counts.sort_values(
        [*by, "n", col], ascending=[True] * len(by) + [False, True], kind="mergesort"
    )
    top = counts.groupby(by, sort=False).head(top_n)
    out: dict[tuple[int, ...], list[tuple[str, int]]] = {}
    for key, vals, ns in zip(
        zip(*(top[c].to_numpy() for c in by), strict=True),
        top[col].tolist(),
        top["n"].tolist(),
        strict=True,
    ):
        out.setdefault(tuple(int(k) for k in key), []).append((str(vals), int(ns)))
    return out


def summarise_roles(
    prepared: pd.DataFrame, top_n: int = 8, shape: tuple[int, int] | None = None
) -> pd.DataFrame:
    """One row per role (template, slot) of the grid, empty roles included.

    Parameters
    ----------
    prepared : pandas.DataFrame
        Output of :func:`prepare_assignments`.
    top_n : int
        How many predicates, heads and dependencies to list.
    shape : (int, int), optional
        ``(n_templates, n_slots)``; default from the data.

    Returns
    -------
    pandas.DataFrame
        Columns ``template``, ``slot``, ``size`` (mentions), ``share_of_template``,
        ``share_of_all``, ``n_docs``, ``n_heads`` (distinct lowercased heads),
        ``top_predicates``, ``top_heads``, ``top_deps`` (lists of (value, count)).
    """
    n_t, n_s = role_grid(prepared) if shape is None else shape
    grouped = prepared.groupby(ROLE, sort=False)
    size = grouped.size()
    n_docs = grouped["doc_id"].nunique()
    n_heads = prepared.loc[prepared["head_lc"] != ""].groupby(ROLE)["head_lc"].nunique()
    tops = {c: _top_values(prepared, ROLE, c, top_n) for c in ("predicate", "head_lc", "dep")}
    per_template = prepared.groupby("template").size()
    total = len(prepared)
    rows = []
    for t in range(n_t):
        for s in range(n_s):
            k = (t, s)
            n = int(size.get(k, 0))
            in_t = int(per_template.get(t, 0))
            rows.append(
                {
                    "template": t,
                    "slot": s,
                    "size": n,
                    "share_of_template": n / in_t if in_t else 0.0,
                    "share_of_all": n / total if total else 0.0,
                    "n_docs": int(n_docs.get(k, 0)),
                    "n_heads": int(n_heads.get(k, 0)),
                    "top_predicates": tops["predicate"].get(k, []),
                    "top_heads": tops["head_lc"].get(k, []),
                    "top_deps": tops["dep"].get(k, []),
                }
            )
    return pd.DataFrame(rows, columns=_ROLE_SUMMARY_COLUMNS)


def summarise_templates(
    prepared: pd.DataFrame, roles: pd.DataFrame, top_n: int = 8
) -> pd.DataFrame:
    """Per-template totals.

    Parameters
    ----------
    prepared : pandas.DataFrame
        Output of :func:`prepare_assignments`.
    roles : pandas.DataFrame
        Output of :func:`summarise_roles` (gives the grid, so empty templates appear).
    top_n : int

    Returns
    -------
    pandas.DataFrame
        Columns ``template``, ``size``, ``share_of_all``, ``n_docs``, ``n_slots_used``
        (slots with at least one mention), ``top_predicates``, ``top_heads``.
    """
    n_docs = prepared.groupby("template")["doc_id"].nunique()
    tops = {c: _top_values(prepared, ["template"], c, top_n) for c in ("predicate", "head_lc")}
    agg = roles.groupby("template", sort=True).agg(
        size=("size", "sum"), n_slots_used=("size", lambda x: int((x > 0).sum()))
    )
    total = int(agg["size"].sum())
    rows = [
        {
            "template": int(t),
            "size": int(r["size"]),
            "share_of_all": int(r["size"]) / total if total else 0.0,
            "n_docs": int(n_docs.get(t, 0)),
            "n_slots_used": int(r["n_slots_used"]),
            "top_predicates": tops["predicate"].get((int(t),), []),
            "top_heads": tops["head_lc"].get((int(t),), []),
        }
        for t, r in agg.iterrows()
    ]
    cols = ["template", "size", "share_of_all", "n_docs", "n_slots_used"]
    return pd.DataFrame(rows, columns=[*cols, "top_predicates", "top_heads"])


def pick_examples(prepared: pd.DataFrame, n_examples: int = 5, seed: int = 0) -> pd.DataFrame:
    """``n_examples`` member mentions of every role, drawn at random without replacement.

    Each role gets its own generator seeded with ``(seed, template, slot)`` and draws from its
    members sorted by (doc_id, sent_id, entity_id), so a role's examples depend neither on the
    row order nor on the other roles.

    Parameters
    ----------
    prepared : pandas.DataFrame
        Output of :func:`prepare_assignments`.
    n_examples : int
        Per role; a role with fewer members gives all of them.
    seed : int
        Non-negative.

    Returns
    -------
    pandas.DataFrame
        Columns ``template``, ``slot``, ``rank`` (0-based draw order), ``doc_id``, ``sent_id``,
        ``entity_id``, ``head``, ``mention``, ``predicate``, ``dep``; sorted by role and rank.
    """
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    if n_examples < 0:
        raise ValueError(f"n_examples must be non-negative, got {n_examples}")
    order = prepared.sort_values(
        [*ROLE, "doc_id", "sent_id", "entity_id"], kind="mergesort"
    ).reset_index(drop=True)
    picked: list[np.ndarray] = []
    ranks: list[np.ndarray] = []
    for (t, s), idx in order.groupby(ROLE, sort=True).indices.items():
        rng = np.random.default_rng([seed, int(t), int(s)])
        k = min(n_examples, len(idx))
        picked.append(idx[rng.choice(len(idx), size=k, replace=False)])
        ranks.append(np.arange(k))
    cols = [*ROLE, "doc_id", "sent_id", "entity_id", "head", "mention", "predicate", "dep"]
    if not picked:
        return pd.DataFrame(columns=[*ROLE, "rank", *cols[2:]])
    out = order.loc[np.concatenate(picked), cols].reset_index(drop=True)
    out.insert(2, "rank", np.concatenate(ranks))
    return out


# --------------------------------------------------------------------------------------------
# Mapping and scores


def mapping_rows(
    assignments: pd.DataFrame,
    keys: Sequence[KeyTemplate],
    final_mapping: Sequence[tuple[int, int, str]],
    mode: str,
) -> pd.DataFrame:
    """The mapping of learned templates to incident types behind a mapping M.

    :func:`aesi_lib.evaluate.evaluate` returns M as (template, slot, gold_slot) triples, with
    the types that chose them lost in the union (evaluation.md, step 3). This recomputes steps
    1-2 on the same keys and marks which chosen pairs survived the pruning (step 4).

    Parameters
    ----------
    assignments : pandas.DataFrame
        Export columns.
    keys : sequence of KeyTemplate
        The keys M was learned on (evaluated split for ``test-mapped``, DEV for ``dev-mapped``).
    final_mapping : sequence of (template, slot, gold_slot)
        M as returned in ``EvaluationResult.mapping``.
    mode : str
        Label stored in the ``mode`` column.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`MAPPING_COLUMNS`; one row per (type, gold slot) the type's chosen
        template maps, ``kept`` False when the pair was pruned.
    """
    split = SplitIndex(assignments, keys, MAPPING_MATCHER)
    choices = type_mappings({typ: split.type_f1(typ) for typ in EVENT_TYPES})
    kept = {(int(t), int(s), str(g)) for t, s, g in final_mapping}
    rows = [
        (mode, typ, t, s, g, (t, s, g) in kept)
        for typ, (t, phi) in choices.items()
        for g, s in phi.items()
    ]
    return pd.DataFrame(rows, columns=list(MAPPING_COLUMNS))


@dataclass
class ScoreTables:
    """Diagnostics of a run: overall and per-slot scores, recall ceilings, mapping."""

    scores: pd.DataFrame  # SCORE_COLUMNS
    per_slot: pd.DataFrame  # PER_SLOT_COLUMNS
    ceilings: dict[str, float]  # matcher -> recall ceiling
    mapping: pd.DataFrame  # MAPPING_COLUMNS
    source: str  # where the scores come from, for the report


def _empty(columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(columns=list(columns))


def _score_row(mode: str, matcher: str, d: Mapping[str, Any]) -> dict[str, Any]:
    """One row of SCORE_COLUMNS from a stored score entry (scores plus ``result_bounds``)."""
    row = {"mode": mode, "matcher": matcher}
    row.update({k: d.get(k) for k in ("precision", "recall", "f1", "tp", "fp", "fn")})
    row["fp_share"] = d.get("fp_share_irrelevant")
    row["template_recall_ceiling"] = d.get("template_recall_ceiling")
    oracle = d.get("relevance_oracle")
    row["relevance_oracle_f1"] = oracle.get("f1") if isinstance(oracle, Mapping) else None
    return row


def _slot_rows(mode: str, matcher: str, per_slot: Any) -> list[dict[str, Any]]:
    if not isinstance(per_slot, Mapping):
        return []
    return [
        {
            "mode": mode,
            "matcher": matcher,
            "gold_slot": g,
            **{k: d.get(k) for k in PER_SLOT_COLUMNS[3:]},
        }
        for g, d in per_slot.items()
        if isinstance(d, Mapping)
    ]


def _sort_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows ordered test-mapped before dev-mapped, lenient before strict (stable otherwise)."""
    mode_rank = {"test-mapped": 0, "dev-mapped": 1}
    matcher_rank = {m: i for i, m in enumerate(MATCHERS)}
    key = frame["mode"].map(lambda m: mode_rank.get(m, 2)) * 10 + frame["matcher"].map(
        lambda m: matcher_rank.get(m, 9)
    )
    return frame.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)


def scores_from_results(results: Mapping[str, Any] | None) -> ScoreTables | None:
    """Read the scores a run stored in ``results["scores"]``.

    Parameters
    ----------
    results : mapping, optional
        ``{"scores": {"<mode>/<matcher>": {precision, recall, f1, tp, fp, fn, per_slot,
        mapping, fp_share_irrelevant}, "recall_ceiling/<matcher>": float}}``.

    Returns
    -------
    ScoreTables or None
        None when there are no scores. The mapping rows carry no type (``type`` is None) and
        come from the lenient entries.
    """
    stored = _get(results, "scores")
    if not isinstance(stored, Mapping):
        return None
    scores, per_slot, mapping, ceilings = [], [], [], {}
    for name, entry in stored.items():
        head, _, matcher = str(name).partition("/")
        if head == "recall_ceiling" and _is_number(entry):
            ceilings[matcher or MAPPING_MATCHER] = float(entry)
        elif isinstance(entry, Mapping) and "f1" in entry:
            matcher = matcher or str(entry.get("matcher", ""))
            scores.append(_score_row(head, matcher, entry))
            per_slot += _slot_rows(head, matcher, entry.get("per_slot"))
            if matcher == MAPPING_MATCHER:
                mapping += [
                    (head, None, int(m["template"]), int(m["slot"]), str(m["gold_slot"]), True)
                    for m in entry.get("mapping") or []
                    if isinstance(m, Mapping) and {"template", "slot", "gold_slot"} <= m.keys()
                ]
    if not scores and not ceilings:
        return None
    return ScoreTables(
        _sort_runs(pd.DataFrame(scores, columns=list(SCORE_COLUMNS))),
        _sort_runs(pd.DataFrame(per_slot, columns=list(PER_SLOT_COLUMNS))),
        ceilings,
        pd.DataFrame(mapping, columns=list(MAPPING_COLUMNS)),
        "stored in results.json",
    )


def compute_mappings(
    assignments: pd.DataFrame,
    eval_keys: Sequence[KeyTemplate],
    map_keys: Sequence[KeyTemplate] | None = None,
) -> tuple[dict[str, EvaluationResult], pd.DataFrame]:
    """Lenient ``test-mapped`` (and, with ``map_keys``, ``dev-mapped``) evaluations and the
    type-level mapping rows behind them.

    Parameters
    ----------
    assignments : pandas.DataFrame
    eval_keys : sequence of KeyTemplate
        Keys of the evaluated split.
    map_keys : sequence of KeyTemplate, optional
        Keys M is learned on for ``dev-mapped``.

    Returns
    -------
    (dict, pandas.DataFrame)
        ``{mode: EvaluationResult}`` and the rows of :func:`mapping_rows` for every mode.
    """
    results = {"test-mapped": evaluate(assignments, eval_keys, mapping="test-mapped")}
    frames = [mapping_rows(assignments, eval_keys, results["test-mapped"].mapping, "test-mapped")]
    if map_keys is not None:
        results["dev-mapped"] = evaluate(
            assignments, eval_keys, map_keys=map_keys, mapping="dev-mapped"
        )
        frames.append(
            mapping_rows(assignments, map_keys, results["dev-mapped"].mapping, "dev-mapped")
        )
    return results, pd.concat(frames, ignore_index=True)


def compute_scores(
    assignments: pd.DataFrame,
    eval_keys: Sequence[KeyTemplate],
    map_keys: Sequence[KeyTemplate] | None = None,
    lenient: Mapping[str, EvaluationResult] | None = None,
    mapping: pd.DataFrame | None = None,
) -> ScoreTables:
    """Scores for {test-mapped, dev-mapped (with ``map_keys``)} × {lenient, strict}.

    Parameters
    ----------
    assignments : pandas.DataFrame
    eval_keys : sequence of KeyTemplate
    map_keys : sequence of KeyTemplate, optional
    lenient : mapping, optional
        Lenient results already computed (``{mode: EvaluationResult}``), reused.
    mapping : pandas.DataFrame, optional
        Mapping rows to carry in the result (default: none).

    Returns
    -------
    ScoreTables
    """
    modes = ["test-mapped"] + (["dev-mapped"] if map_keys is not None else [])
    scores, per_slot = [], []
    for mode in modes:
        for matcher in MATCHERS:
            res = (lenient or {}).get(mode) if matcher == MAPPING_MATCHER else None
            if res is None:
                res = evaluate(
                    assignments, eval_keys, map_keys=map_keys, matcher=matcher, mapping=mode
                )
            entry = {**res.to_dict(), **result_bounds(assignments, eval_keys, res)}
            scores.append(_score_row(mode, matcher, entry))
            per_slot += _slot_rows(mode, matcher, res.per_slot)
    ceilings = {m: recall_ceiling(assignments, eval_keys, matcher=m) for m in MATCHERS}
    return ScoreTables(
        pd.DataFrame(scores, columns=list(SCORE_COLUMNS)),
        pd.DataFrame(per_slot, columns=list(PER_SLOT_COLUMNS)),
        ceilings,
        _empty(MAPPING_COLUMNS) if mapping is None else mapping,
        "computed from the given keys",
    )


# --------------------------------------------------------------------------------------------
# Solver history


def objective_series(history: Any) -> pd.DataFrame:
    """The numeric scalar terms of each solver iteration.

    Parameters
    ----------
    history : list of dict
        ``results["solve"]["history"]``; anything else gives an empty frame.

    Returns
    -------
    pandas.DataFrame
        Index: iteration (``entry["iteration"]`` when present, else the position); one float
        column per numeric top-level key except bookkeeping (``iteration``, ``seconds``),
        objective terms first; NaN where an iteration lacks a term.
    """
    if not isinstance(history, Sequence) or isinstance(history, str):
        return pd.DataFrame()
    rows, index = [], []
    for i, entry in enumerate(history):
        if not isinstance(entry, Mapping):
            continue
        rows.append(
            {
                str(k): float(v)
                for k, v in entry.items()
                if k not in _NOT_OBJECTIVE and _is_number(v) and math.isfinite(float(v))
            }
        )
        index.append(_as_int(entry.get("iteration"), i))
    frame = pd.DataFrame(rows, index=pd.Index(index, name="iteration"))
    first = [c for c in _OBJECTIVE_FIRST if c in frame.columns]
    rest = sorted(c for c in frame.columns if c not in first)
    return frame[first + rest].dropna(axis=1, how="all")


# --------------------------------------------------------------------------------------------
# Plots (each returns PNG bytes, or None when there is nothing to draw)


def _figure(width: float, height: float, layout: str | None = "constrained") -> Figure:
    # Figure + Agg canvas, not pyplot: no global state, no GUI backend, safe in workers.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def plot_cluster_sizes(roles: pd.DataFrame) -> bytes | None:
    """Stacked bars: mentions per template (bar height), split into its slots.

    Parameters
    ----------
    roles : pandas.DataFrame
        Output of :func:`summarise_roles`.

    Returns
    -------
    bytes or None
    """
    if roles.empty:
        return None
    sizes = roles.pivot(index="template", columns="slot", values="size").fillna(0)
    fig = _figure(max(5.0, 0.9 * len(sizes) + 2), 3.6)
    ax = fig.add_subplot()
    x = np.arange(len(sizes))
    bottom = np.zeros(len(sizes))
    for s in sizes.columns:
        vals = sizes[s].to_numpy(dtype=float)
        ax.bar(x, vals, bottom=bottom, label=f"slot {s}", color=f"C{int(s) % 10}")
        bottom += vals
    for xi, total in zip(x, bottom, strict=True):
        ax.annotate(f"{int(total)}", (xi, total), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, [f"T{t}" for t in sizes.index])
    ax.set_xlabel("learned template")
    ax.set_ylabel("mentions")
    ax.set_title("Cluster sizes: templates and their slots")
    ax.legend(fontsize=8, ncols=min(len(sizes.columns), 6))
    return _png(fig)


def plot_slot_f1(per_slot: pd.DataFrame) -> bytes | None:
    """Grouped bars: F1 per gold slot, one bar per mapping × matcher.

    Parameters
    ----------
    per_slot : pandas.DataFrame
        Columns :data:`PER_SLOT_COLUMNS`.

    Returns
    -------
    bytes or None
    """
    if per_slot.empty:
        return None
    table = per_slot.assign(run=per_slot["mode"] + " / " + per_slot["matcher"]).pivot_table(
        index="gold_slot", columns="run", values="f1", aggfunc="first", sort=False
    )
    order = [g for g in GOLD_SLOTS if g in table.index] + [
        g for g in table.index if g not in GOLD_SLOTS
    ]
    table = table.loc[order].astype(float).fillna(0.0)
    fig = _figure(max(5.0, 1.4 * len(table) + 2), 3.6)
    ax = fig.add_subplot()
    width = 0.8 / max(len(table.columns), 1)
    x = np.arange(len(table))
    for i, run in enumerate(table.columns):
        bars = ax.bar(x + (i - (len(table.columns) - 1) / 2) * width, table[run], width, label=run)
        # Labels keep a zero F1 (an unmapped gold slot) visible.
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks(x, list(table.index))
    ax.set_ylabel("F1")
    ax.set_ylim(0, max(0.1, float(table.to_numpy().max()) * 1.15))
    ax.set_title("F1 per gold slot")
    ax.legend(fontsize=8)
    return _png(fig)


def plot_objective(series: pd.DataFrame) -> bytes | None:
    """Small multiples: each numeric objective term against the AMP iteration.

    Terms differ by many orders of magnitude (eps3 ~ 1e14, eps1 ~ 0.2), so each gets its own
    axis. A single iteration shows as a single marker.

    Parameters
    ----------
    series : pandas.DataFrame
        Output of :func:`objective_series`.

    Returns
    -------
    bytes or None
        None when there is no term.
    """
    if series.empty or series.shape[1] == 0:
        return None
    n = series.shape[1]
    ncols = min(4, n)
    nrows = math.ceil(n / ncols)
    # A constrained layout of a dozen axes costs seconds; fixed spacing is enough here.
    height = 2.4 * nrows + 1.0
    fig = _figure(3.0 * ncols, height, layout=None)
    fig.subplots_adjust(
        left=0.07, right=0.98, bottom=0.5 / height, top=1 - 0.8 / height, wspace=0.4, hspace=0.7
    )
    axes = fig.subplots(nrows, ncols, squeeze=False)
    x = series.index.to_numpy()
    for ax, col in zip(axes.flat, series.columns, strict=False):
        ax.plot(x, series[col].to_numpy(), marker="o")
        ax.set_title(col, fontsize=9)
        ax.set_xticks(x)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle("Solver terms per AMP iteration")
    fig.supxlabel("AMP iteration", fontsize=9)
    return _png(fig)


# --------------------------------------------------------------------------------------------
# The document as blocks


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Para:
    text: str
    label: str = ""  # shown in bold before the text


@dataclass(frozen=True)
class Card:
    """A titled list, like one box of the paper's figure of learned schemas."""

    title: str
    items: tuple[tuple[str, str], ...]  # (bold label, text)


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    marked: tuple[bool, ...] = ()  # rows to highlight (mapped roles)


@dataclass(frozen=True)
class Plot:
    name: str  # key into the images mapping
    caption: str


Block = Heading | Para | Card | Table | Plot


@dataclass
class SchemaReport:
    """Everything the renderers show, computed once."""

    roles: pd.DataFrame
    templates: pd.DataFrame
    examples: pd.DataFrame
    scores: ScoreTables | None
    objective: pd.DataFrame
    meta: dict[str, str] = field(default_factory=dict)
    n_mentions: int = 0
    n_docs: int = 0
    seed: int = 0


def _fmt_counts(pairs: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{v} ({n})" for v, n in pairs) or "—"


def _fmt_float(v: Any, digits: int = 3) -> str:
    return f"{float(v):.{digits}f}" if _is_number(v) and math.isfinite(float(v)) else "—"


def _fmt_int(v: Any) -> str:
    return str(int(v)) if _is_number(v) and math.isfinite(float(v)) else "—"


def _fmt_pct(v: Any) -> str:
    return f"{100 * float(v):.1f}%" if _is_number(v) and math.isfinite(float(v)) else "—"


def _mentions(n: int) -> str:
    return f"{n} mention" if n == 1 else f"{n} mentions"


def _short(text: str, limit: int = _MAX_MENTION) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _type_name(typ: str | None) -> str:
    return typ.title() if typ else "?"


def _mode_short(mode: str) -> str:
    return mode.removesuffix("-mapped")


def role_labels(mapping: pd.DataFrame) -> dict[tuple[int, int], str]:
    """Per role, the gold slots it feeds in the kept mapping, e.g. ``"Perpetrator (test)"``."""
    out: dict[tuple[int, int], list[str]] = {}
    kept = mapping[mapping["kept"].astype(bool)] if len(mapping) else mapping
    seen = set()
    for r in kept.itertuples(index=False):
        label = f"{r.gold_slot} ({_mode_short(r.mode)})"
        if (r.template, r.slot, label) not in seen:
            seen.add((r.template, r.slot, label))
            out.setdefault((int(r.template), int(r.slot)), []).append(label)
    return {k: ", ".join(v) for k, v in out.items()}


def template_labels(mapping: pd.DataFrame) -> dict[int, str]:
    """Per template, the incident types it was chosen for (with a kept pair), per mode."""
    out: dict[int, list[str]] = {}
    if mapping.empty or mapping["type"].isna().all():
        return {}
    kept = mapping[mapping["kept"].astype(bool) & mapping["type"].notna()]
    for (mode, t), grp in kept.groupby(["mode", "template"], sort=False):
        types = [_type_name(x) for x in dict.fromkeys(grp["type"])]
        out.setdefault(int(t), []).append(f"{', '.join(types)} ({_mode_short(str(mode))})")
    return {k: "; ".join(v) for k, v in out.items()}


def _overview_blocks(report: SchemaReport) -> list[Block]:
    n_t = report.roles["template"].nunique() if len(report.roles) else 0
    n_s = report.roles["slot"].nunique() if len(report.roles) else 0
    items = [
        ("Mentions", f"{report.n_mentions} in {report.n_docs} messages"),
        ("Roles", f"{n_t} templates × {n_s} slots"),
        ("Examples", f"drawn at random with seed {report.seed}"),
    ] + list(report.meta.items())
    return [Heading(1, "Schema report"), Card("Run", tuple(items))]


def _score_blocks(report: SchemaReport) -> list[Block]:
    st = report.scores
    if st is None:
        return [
            Heading(2, "Scores"),
            Para("No answer keys given and no scores in results.json: nothing to score."),
        ]
    blocks: list[Block] = [Heading(2, "Scores"), Para(f"Scores {st.source}.")]
    if len(st.scores):
        header = (
            "mapping", "matcher", "P", "R", "F1", "TP", "FP", "FN",
            "FP from irrelevant", "R bound, templates", "F1, relevance oracle",
        )
        rows = tuple(
            (
                str(r.mode),
                str(r.matcher),
                _fmt_float(r.precision),
                _fmt_float(r.recall),
                _fmt_float(r.f1),
                _fmt_int(r.tp),
                _fmt_int(r.fp),
                _fmt_int(r.fn),
                _fmt_pct(r.fp_share),
                _fmt_float(r.template_recall_ceiling),
                _fmt_float(r.relevance_oracle_f1),
            )
            for r in st.scores.itertuples(index=False)
        )
        blocks.append(Table(header, rows))
        blocks.append(
            Para(
                "share of the false positives that come from messages without a relevant "
                "incident (every guess there is a false positive).",
                label="FP from irrelevant:",
            )
        )
        blocks.append(
            Para(
                "the recall if every mention of the templates the mapping uses fed every gold "
                "slot: what better slots could reach with these templates.",
                label="R bound, templates:",
            )
        )
        blocks.append(
            Para(
                "the F1 had the messages without a relevant incident produced nothing: what a "
                "perfect document filter could reach with this mapping. Both use the keys; "
                "they are bounds, not scores.",
                label="F1, relevance oracle:",
            )
        )
    if st.ceilings:
        text = ", ".join(f"{_fmt_float(v)} ({m})" for m, v in st.ceilings.items())
        blocks.append(
            Para(
                f"{text}: the recall if every mention fed every gold slot of its message; "
                "no mapping can recall more, so this bounds what the entity extraction allows.",
                label="Recall ceiling:",
            )
        )
    if len(st.per_slot):
        header = ("mapping", "matcher", "gold slot", "P", "R", "F1", "TP", "FP", "FN")
        rows = tuple(
            (
                str(r.mode),
                str(r.matcher),
                str(r.gold_slot),
                _fmt_float(r.precision),
                _fmt_float(r.recall),
                _fmt_float(r.f1),
                _fmt_int(r.tp),
                _fmt_int(r.fp),
                _fmt_int(r.fn),
            )
            for r in st.per_slot.itertuples(index=False)
        )
        blocks += [Heading(3, "Per gold slot"), Table(header, rows)]
        blocks.append(Plot("slot_f1", "F1 per gold slot"))
    return blocks


def _example_heads(examples: pd.DataFrame, t: int, s: int) -> str:
    sel = examples[(examples["template"] == t) & (examples["slot"] == s)]
    words = [(h or m).lower() for h, m in zip(sel["head"], sel["mention"], strict=True)]
    return ", ".join(words) or "(no member)"


def _mapping_cards(report: SchemaReport, mode: str, rows: pd.DataFrame) -> list[Block]:
    """The paper-figure view of one mode: per type, its learned template and the examples of
    the roles mapped to its gold slots."""
    size = {(int(r.template), int(r.slot)): int(r.size) for r in report.roles.itertuples()}
    blocks: list[Block] = []
    if rows["type"].isna().all():
        # Stored mapping only: types unknown, list the roles per gold slot.
        items = tuple(
            (
                f"{g} ← role ({t}, {s})",
                f"{_mentions(size.get((t, s), 0))}: {_example_heads(report.examples, t, s)}",
            )
            for t, s, g in rows[["template", "slot", "gold_slot"]].itertuples(index=False)
        )
        return [Card(f"{mode}: gold slot ← learned role", items)] if items else blocks
    for typ in EVENT_TYPES:
        sub = rows[rows["type"] == typ]
        if sub.empty:
            continue
        t = int(sub["template"].iloc[0])
        items = []
        for g in TYPE_GOLD_SLOTS[typ]:
            hit = sub[sub["gold_slot"] == g]
            if hit.empty:
                items.append((g, "not mapped"))
                continue
            s, kept = int(hit["slot"].iloc[0]), bool(hit["kept"].iloc[0])
            note = "" if kept else " [pruned from M]"
            words = _example_heads(report.examples, t, s)
            items.append((f"{g} ← slot {s}", f"{_mentions(size.get((t, s), 0))}{note}: {words}"))
        blocks.append(Card(f"{_type_name(typ)} template ← learned template {t}", tuple(items)))
    return blocks


def _mapping_blocks(report: SchemaReport) -> list[Block]:
    st = report.scores
    if st is None or st.mapping.empty:
        return []
    blocks: list[Block] = [
        Heading(2, "Learned schemas mapped to MUC-4"),
        Para(
            f"Mapping with the {MAPPING_MATCHER} matcher (evaluation.md, 'Mapping learned roles "
            "to gold slots'). The words of each slot are the heads of randomly picked members "
            "of the mapped role, as in the paper's figure of learned schemas."
        ),
    ]
    for mode, rows in st.mapping.groupby("mode", sort=False):
        kept = rows[rows["kept"].astype(bool)]
        m = ", ".join(
            f"({t}, {s}) → {g}"
            for t, s, g in kept[["template", "slot", "gold_slot"]]
            .drop_duplicates()
            .itertuples(index=False)
        )
        blocks += [Heading(3, str(mode)), Para(m or "empty", label="M:")]
        blocks += _mapping_cards(report, str(mode), rows)
    return blocks


def _template_blocks(report: SchemaReport) -> list[Block]:
    mapping = report.scores.mapping if report.scores is not None else _empty(MAPPING_COLUMNS)
    roles_mapped = role_labels(mapping)
    types_mapped = template_labels(mapping)
    blocks: list[Block] = [Heading(2, "Learned templates")]
    header = (
        "template",
        "mentions",
        "share",
        "messages",
        "slots used",
        "top predicates",
        "mapped as",
    )
    rows = tuple(
        (
            str(r.template),
            str(r.size),
            _fmt_pct(r.share_of_all),
            str(r.n_docs),
            str(r.n_slots_used),
            _fmt_counts(r.top_predicates),
            types_mapped.get(int(r.template), ""),
        )
        for r in report.templates.itertuples(index=False)
    )
    marked = tuple(int(r.template) in types_mapped for r in report.templates.itertuples())
    blocks += [Table(header, rows, marked), Plot("cluster_sizes", "Cluster sizes")]
    for t in report.templates["template"]:
        blocks += _one_template_blocks(report, int(t), roles_mapped, types_mapped)
    return blocks


def _one_template_blocks(
    report: SchemaReport,
    t: int,
    roles_mapped: dict[tuple[int, int], str],
    types_mapped: dict[int, str],
) -> list[Block]:
    roles = report.roles[report.roles["template"] == t]
    total = int(roles["size"].sum())
    title = f"Template {t} — {_mentions(total)}"
    if t in types_mapped:
        title += f" — mapped as {types_mapped[t]}"
    header = (
        "slot",
        "mentions",
        "share",
        "messages",
        "top predicates",
        "top heads",
        "top deps",
        "mapped to",
    )
    rows = tuple(
        (
            str(r.slot),
            str(r.size),
            _fmt_pct(r.share_of_template),
            str(r.n_docs),
            _fmt_counts(r.top_predicates),
            _fmt_counts(r.top_heads),
            _fmt_counts(r.top_deps),
            roles_mapped.get((t, int(r.slot)), ""),
        )
        for r in roles.itertuples(index=False)
    )
    marked = tuple((t, int(r.slot)) in roles_mapped for r in roles.itertuples())
    ex = report.examples[report.examples["template"] == t]
    ex_rows = tuple(
        (
            str(r.slot),
            _short(str(r.mention) or str(r.head)),
            str(r.head),
            str(r.predicate),
            str(r.dep),
            f"{r.doc_id} s{r.sent_id}" if r.sent_id >= 0 else str(r.doc_id),
        )
        for r in ex.itertuples(index=False)
    )
    ex_header = ("slot", "mention", "head", "predicate", "dep", "message / sentence")
    return [
        Heading(3, title),
        Table(header, rows, marked),
        Para("random members per slot:", label="Examples"),
        Table(ex_header, ex_rows) if ex_rows else Para("no members."),
    ]


def _solver_blocks(report: SchemaReport) -> list[Block]:
    series = report.objective
    blocks: list[Block] = [Heading(2, "Solver")]
    if series.empty or series.shape[1] == 0:
        return blocks + [Para("No per-iteration history in results.json.")]
    header = ("iteration", *series.columns)
    rows = tuple(
        (str(i), *(f"{v:.4g}" if math.isfinite(v) else "—" for v in row))
        for i, row in zip(series.index, series.to_numpy(dtype=float), strict=True)
    )
    return blocks + [Plot("objective", "Objective terms per AMP iteration"), Table(header, rows)]


def report_blocks(report: SchemaReport) -> list[Block]:
    """The document, in order: overview, scores, mapped schemas, templates, solver.

    Parameters
    ----------
    report : SchemaReport

    Returns
    -------
    list of Block
    """
    return (
        _overview_blocks(report)
        + _score_blocks(report)
        + _mapping_blocks(report)
        + _template_blocks(report)
        + _solver_blocks(report)
    )


# --------------------------------------------------------------------------------------------
# Renderers


def _md_escape(text: str) -> str:
    """Text safe in a Markdown paragraph or table cell: no line breaks, no markup, no raw HTML
    (renderers pass ``<tag>`` through), no cell-splitting ``|``."""
    text = " ".join(str(text).split())
    text = text.replace("\\", "\\\\").replace("&", "&amp;")
    text = text.replace("<", "&lt;").replace(">", "&gt;")
    # Intraword ``_`` does not emphasise in CommonMark, so names like eps3_ratio stay readable.
    for ch in "|*`":
        text = text.replace(ch, "\\" + ch)
    return text


def render_markdown(blocks: Sequence[Block]) -> str:
    """Markdown text of the blocks; plots become a pointer to ``report.html``.

    Parameters
    ----------
    blocks : sequence of Block

    Returns
    -------
    str
    """
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"{'#' * b.level} {_md_escape(b.text)}")
        elif isinstance(b, Para):
            label = f"**{_md_escape(b.label)}** " if b.label else ""
            out.append(label + _md_escape(b.text))
        elif isinstance(b, Card):
            lines = [f"**{_md_escape(b.title)}**", ""]
            lines += [f"- **{_md_escape(k)}**: {_md_escape(v)}" for k, v in b.items]
            out.append("\n".join(lines))
        elif isinstance(b, Table):
            out.append(_md_table(b))
        elif isinstance(b, Plot):
            out.append(f"*Plot: {_md_escape(b.caption)} (see report.html).*")
    return "\n\n".join(out) + "\n"


def _md_table(table: Table) -> str:
    lines = [
        "| " + " | ".join(_md_escape(h) for h in table.header) + " |",
        "|" + "---|" * len(table.header),
    ]
    for i, row in enumerate(table.rows):
        cells = [_md_escape(c) for c in row]
        if i < len(table.marked) and table.marked[i] and cells:
            cells[0] = f"**{cells[0]}** ★"  # mapped role / template
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


_CSS = """
body { font-family: sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #eee; }
tr.mapped td { background: #fff3c4; }
.card { display: inline-block; vertical-align: top; border: 1px solid #888; border-radius: 4px;
        padding: 0.4em 0.9em; margin: 0.3em 0.6em 0.6em 0; min-width: 22em; max-width: 40em; }
.card h4 { margin: 0.2em 0 0.4em; }
.card ul { margin: 0; padding-left: 1.2em; }
figure { margin: 0.5em 0 1em; }
figcaption { font-size: 0.85em; color: #555; }
"""


def _html_block(b: Block, images: Mapping[str, bytes | None]) -> str:
    esc = html.escape
    if isinstance(b, Heading):
        level = min(max(b.level, 1), 6)
        return f"<h{level}>{esc(b.text)}</h{level}>"
    if isinstance(b, Para):
        label = f"<strong>{esc(b.label)}</strong> " if b.label else ""
        return f"<p>{label}{esc(b.text)}</p>"
    if isinstance(b, Card):
        items = "".join(f"<li><strong>{esc(k)}</strong>: {esc(v)}</li>" for k, v in b.items)
        return f'<div class="card"><h4>{esc(b.title)}</h4><ul>{items}</ul></div>'
    if isinstance(b, Table):
        head = "".join(f"<th>{esc(h)}</th>" for h in b.header)
        body = []
        for i, row in enumerate(b.rows):
            cls = ' class="mapped"' if i < len(b.marked) and b.marked[i] else ""
            body.append(f"<tr{cls}>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
        return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    if isinstance(b, Plot):
        png = images.get(b.name)
        if not png:
            return f"<p><em>{esc(b.caption)}: nothing to plot.</em></p>"
        data = base64.b64encode(png).decode("ascii")
        return (
            f'<figure><img src="data:image/png;base64,{data}" alt="{esc(b.caption)}">'
            f"<figcaption>{esc(b.caption)}</figcaption></figure>"
        )
    raise TypeError(f"unknown block {b!r}")


def render_html(
    blocks: Sequence[Block], images: Mapping[str, bytes | None], title: str = "Schema report"
) -> str:
    """A self-contained HTML page: inline CSS, plots as base64 PNG, no external resource.

    Parameters
    ----------
    blocks : sequence of Block
    images : mapping
        Plot name to PNG bytes (None: nothing to plot).
    title : str

    Returns
    -------
    str
    """
    body = "\n".join(_html_block(b, images) for b in blocks)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


# --------------------------------------------------------------------------------------------
# Entry point


def run_meta(results: Mapping[str, Any] | None) -> dict[str, str]:
    """A few facts about the run from ``results.json``, as display strings."""
    if not isinstance(results, Mapping):
        return {}
    meta: dict[str, str] = {}
    for key in ("corpus", "evaluated_on", "documents", "seed"):
        if results.get(key) is not None:
            meta[key.replace("_", " ").capitalize()] = str(results[key])
    model = _get(results, "config", "model")
    if isinstance(model, Mapping):
        keys = ("n_templates", "n_slots", "mode", "constraint_weight", "init", "solver")
        meta["Model"] = ", ".join(f"{k}={model[k]}" for k in keys if k in model)
    solve = _get(results, "solve")
    if isinstance(solve, Mapping):
        facts = [f"{k}={solve[k]}" for k in ("converged", "n_iter") if solve.get(k) is not None]
        if facts:
            meta["Solver"] = ", ".join(facts)
    total = _get(results, "timings", "total")
    if _is_number(total):
        meta["Run time"] = f"{float(total):.1f} s"
    return meta


def build_report(
    assignments: pd.DataFrame,
    *,
    results: Mapping[str, Any] | None = None,
    eval_keys: Sequence[KeyTemplate] | None = None,
    map_keys: Sequence[KeyTemplate] | None = None,
    seed: int = 0,
    n_examples: int = 5,
    top_n: int = 8,
) -> SchemaReport:
    """Compute everything the report shows (see :func:`write_schema_report`)."""
    prepared = prepare_assignments(assignments)
    roles = summarise_roles(prepared, top_n, role_grid(prepared, results))
    stored = scores_from_results(results)
    scores = stored
    if eval_keys is not None:
        lenient, mapping = compute_mappings(prepared, eval_keys, map_keys)
        if stored is None:
            scores = compute_scores(prepared, eval_keys, map_keys, lenient, mapping)
        else:
            stored.mapping = mapping
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
    )
    blocks = report_blocks(report)
    images = {
        "cluster_sizes": plot_cluster_sizes(report.roles),
        "slot_f1": plot_slot_f1(report.scores.per_slot) if report.scores is not None else None,
        "objective": plot_objective(report.objective),
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md_path, html_path = out / "report.md", out / "report.html"
    md_path.write_text(render_markdown(blocks), encoding="utf-8")
    html_path.write_text(render_html(blocks, images), encoding="utf-8")
    return {"markdown": str(md_path), "html": str(html_path)}


# --------------------------------------------------------------------------------------------
# Small helpers


def _get(obj: Any, *path: str) -> Any:
    """``obj[p0][p1]...`` or None when any step is missing or not a mapping."""
    for p in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(p)
    return obj


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def _as_int(v: Any, default: int) -> int:
    return int(v) if _is_number(v) and math.isfinite(float(v)) else default
