"""Per-role and per-template summaries of a run, and the example draw.

Owns :func:`summarise_roles` (size, shares, documents, most frequent predicates, heads and
dependencies of every role of the grid), :func:`summarise_templates` (per-template totals),
:func:`pick_examples` (seeded random members of each role, independent of row order) and
their shared counter :func:`_top_values`. All take the output of
:func:`aesi_lib.report.load.prepare_assignments`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from aesi_lib.report.load import ROLE, role_grid

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
    """``n_examples`` member mentions of every role with distinct head words, drawn at random.

    Each role gets its own generator seeded with ``(seed, template, slot)`` and draws from its
    members sorted by (doc_id, sent_id, entity_id), so a role's examples depend neither on the
    row order nor on the other roles. A head word already drawn for the role is skipped (a role
    of 40 mentions of "people" shows "people" once), so a role with fewer distinct heads gives
    fewer examples.

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
        heads = order["head"].to_numpy()[idx]
        chosen: list[int] = []
        seen: set[str] = set()
        for i in rng.permutation(len(idx)):
            word = str(heads[i]).lower()
            if word not in seen:
                seen.add(word)
                chosen.append(int(idx[i]))
                if len(chosen) == n_examples:
                    break
        picked.append(np.asarray(chosen, dtype=np.int64))
        ranks.append(np.arange(len(chosen)))
    cols = [*ROLE, "doc_id", "sent_id", "entity_id", "head", "mention", "predicate", "dep"]
    if not picked:
        return pd.DataFrame(columns=[*ROLE, "rank", *cols[2:]])
    out = order.loc[np.concatenate(picked), cols].reset_index(drop=True)
    out.insert(2, "rank", np.concatenate(ranks))
    return out
