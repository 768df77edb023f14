"""Markdown tables of scores beside the published systems (evaluation.md, "What to report")."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from aesi_lib.evaluate.scoring import EvaluationResult
from aesi_lib.markdown import markdown_table

#: Published rows of evaluation.md ("What to report"): (system, P, R, F1).
PUBLISHED_RESULTS: tuple[tuple[str, float, float, float], ...] = (
    ("Chambers & Jurafsky 2011", 0.48, 0.25, 0.33),
    ("Cheung et al. 2013", 0.32, 0.37, 0.34),
    ("Chambers 2013", 0.41, 0.41, 0.41),
    ("Nguyen et al. 2015", 0.36, 0.54, 0.43),
    ("Sha et al. 2016 -SC", 0.38, 0.68, 0.49),
    ("Sha et al. 2016", 0.39, 0.70, 0.50),
)


def _cell(values: Sequence[float], digits: int) -> str:
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def format_table(
    results: Mapping[str, EvaluationResult | Sequence[EvaluationResult]],
    published: bool = True,
    digits: int = 3,
) -> str:
    """Markdown table of our results beside the published rows (evaluation.md, "What to
    report").

    Parameters
    ----------
    results : mapping
        Row label to one result, or to the results of several seeds (shown as mean ± sample
        standard deviation; counts as means).
    published : bool
        Put the published rows first.
    digits : int
        Decimals of our P, R, F1.

    Returns
    -------
    str
    """
    rows = []
    if published:
        for name, p, r, f in PUBLISHED_RESULTS:
            rows.append([name, f"{p:.2f}", f"{r:.2f}", f"{f:.2f}", "", "", ""])
    for name, res in results.items():
        runs = [res] if isinstance(res, EvaluationResult) else list(res)
        if not runs:
            continue
        cells = [
            _cell([getattr(x, k) for x in runs], digits) for k in ("precision", "recall", "f1")
        ]
        counts = []
        for k in ("tp", "fp", "fn"):
            vals = [getattr(x, k) for x in runs]
            mean = sum(vals) / len(vals)
            counts.append(str(vals[0]) if len(vals) == 1 else f"{mean:.1f}")
        rows.append([name, *cells, *counts])
    return markdown_table(["system", "P", "R", "F1", "TP", "FP", "FN"], rows)
