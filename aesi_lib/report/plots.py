"""Solver history and the report's figures.

Owns :func:`objective_series` (the numeric terms of each solver iteration from
``results["solve"]["history"]``) and the matplotlib figures, each returned as PNG bytes or
None when there is nothing to draw: :func:`plot_cluster_sizes`, :func:`plot_slot_f1` and
:func:`plot_objective`. Figures use a bare Agg canvas, never pyplot, so no global state or GUI
backend is touched; matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from aesi_lib.evaluate import GOLD_SLOTS
from aesi_lib.report._util import _as_int, _is_number

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# History entries carry bookkeeping next to the objective terms; these are not plotted.
_NOT_OBJECTIVE = frozenset({"iteration", "seconds"})
# Objective terms first, in this order, then the other numeric diagnostics alphabetically.
_OBJECTIVE_FIRST = ("objective", "eps1", "eps2", "eps3", "eps3_ratio")


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
    # Wider with more templates, but never past a page: the HTML also caps it at 100 %.
    fig = _figure(min(12.0, max(5.0, 0.45 * len(sizes) + 2)), 3.6)
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
    # A fixed corner: matplotlib's search for the "best" one over dozens of stacked bars is
    # slow enough to warn about it.
    ax.legend(fontsize=8, ncols=min(len(sizes.columns), 6), loc="upper right")
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
    axis. None for fewer than two iterations (the -SC solve): the report shows a table then.

    Parameters
    ----------
    series : pandas.DataFrame
        Output of :func:`objective_series`.

    Returns
    -------
    bytes or None
        None when there is no term.
    """
    if series.empty or series.shape[1] == 0 or len(series) < 2:
        # One entry (the -SC solve has no iterations) is a table, not a plot of dots.
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
