"""Solver history and the report's figures.

Owns :func:`objective_series` (the numeric terms of each solver iteration from
``results["solve"]["history"]``) and the matplotlib figures, each returned as PNG bytes or
None when there is nothing to draw: :func:`plot_schema` (:func:`schema_figure` of
:func:`schema_bars`), :func:`plot_slot_f1` and :func:`plot_objective`. Figures use a bare Agg
canvas, never pyplot, so no global state or GUI backend is touched; matplotlib is imported
only when a figure is drawn.
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
from aesi_lib.run.roles import Role

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


def schema_bars(schema: Sequence[Role]) -> list[tuple[int, list[Role], int]]:
    """Per template of the schema, largest first: its id, its roles (largest first) and the
    mentions of its minor slots together.

    Parameters
    ----------
    schema : sequence of Role
        :func:`aesi_lib.run.roles.template_roles` of a run, in its order.

    Returns
    -------
    list of (int, list of Role, int)
    """
    bars: dict[int, tuple[list[Role], list[int]]] = {}
    for role in schema:
        major, minor = bars.setdefault(role.template, ([], []))
        if role.minor:
            minor.append(role.mentions)
        else:
            major.append(role)
    return [(t, major, sum(minor)) for t, (major, minor) in bars.items()]


def plot_schema(schema: Sequence[Role], names: Mapping[int, str]) -> bytes | None:
    """:func:`schema_figure` as PNG bytes, or None when the schema is empty."""
    fig = schema_figure(schema, names)
    return None if fig is None else _png(fig)


def schema_figure(schema: Sequence[Role], names: Mapping[int, str]) -> Figure | None:
    """The schema at a glance: one horizontal bar per template, largest on top.

    A bar's length is the template's mentions; its coloured segments are its roles, largest
    first, each labelled with its commonest head word where the label fits inside it; the
    grey end is its minor slots together. The templates are named on the axis by their
    commonest predicates and the bar ends say mentions and roles, so the figure needs no
    legend (a legend of dozens of slots covered bars of the stacked chart this replaces).

    Parameters
    ----------
    schema : sequence of Role
        :func:`aesi_lib.run.roles.template_roles` of a run (templates largest first).
    names : mapping
        Template id to its name (:func:`aesi_lib.run.roles.template_name`).

    Returns
    -------
    matplotlib.figure.Figure or None
        None when the schema is empty.
    """
    bars = schema_bars(schema)
    if not bars:
        return None
    height = 0.17 * len(bars) + 0.7
    fig = _figure(13.0, height, layout=None)
    # Fixed margins: room on the left for the template names, on the right for the totals.
    fig.subplots_adjust(left=0.17, right=0.93, top=1 - 0.15 / height, bottom=0.5 / height)
    ax = fig.add_subplot()
    labels: list[tuple[Any, float]] = []
    for y, (_, major, minor) in enumerate(bars):
        left = 0
        for k, role in enumerate(major):
            # Role colours by rank within the template; grey is left for the minor slots.
            color = _ROLE_COLORS[k % len(_ROLE_COLORS)]
            ax.barh(y, role.mentions, left=left, height=0.78, color=color, edgecolor="white",
                    linewidth=0.5)
            if role.heads:
                text = ax.text(left + role.mentions / 2, y, role.heads[0], ha="center",
                               va="center", fontsize=7, color="white")
                labels.append((text, role.mentions))
            left += role.mentions
        if minor:
            ax.barh(y, minor, left=left, height=0.78, color=_MINOR_COLOR, edgecolor="white",
                    linewidth=0.5)
        total = left + minor
        ax.annotate(f" {total:,} · {_count(len(major), 'role')}", (total, y), ha="left",
                    va="center", fontsize=7.5)
    ax.set_yticks(range(len(bars)),
                  [f"T{t} {_short_name(names.get(t, ''))}" for t, _, _ in bars], fontsize=8)
    ax.set_ylim(len(bars) - 0.5, -0.5)  # largest on top
    # Room past the longest bar for its total.
    longest = max(sum(r.mentions for r in major) + minor for _, major, minor in bars)
    ax.set_xlim(0, longest * 1.12)
    ax.set_xlabel("mentions (coloured: the template's roles, largest first; grey: its minor "
                  "slots)", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    _drop_overflowing(fig, ax, labels)
    return fig


# Role segments: a colour-blind-safe palette (Okabe-Ito) without its grey; white text is
# legible on each.
_ROLE_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#7F5FA8",
                "#8C6D31")
_MINOR_COLOR = "#BBBBBB"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _short_name(name: str, limit: int = 28) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _drop_overflowing(fig: Figure, ax: Any, labels: Sequence[tuple[Any, float]]) -> None:
    """Remove the segment labels wider than their segment (measured once laid out)."""
    if not labels:
        return
    renderer = fig.canvas.get_renderer()
    px_per_mention = ax.get_window_extent(renderer).width / ax.get_xlim()[1]
    for text, mentions in labels:
        if text.get_window_extent(renderer).width + 4 > mentions * px_per_mention:
            text.remove()


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
    # The legend stands to the right of the axes: 1.8 in more for it.
    fig = _figure(max(5.0, 1.4 * len(table) + 2) + 1.8, 3.6)
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
    # Beside the axes, never over a bar or its label.
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
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
