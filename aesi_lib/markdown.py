"""The one Markdown table writer: every table aesi prints or writes goes through it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]],
                   cell: Callable[[Any], str] = str) -> str:
    """A GitHub-flavoured Markdown table, one line per row, ending with a newline.

    Parameters
    ----------
    header : sequence of str
    rows : iterable of sequences, each as long as ``header``
    cell : callable
        Turns a value into its cell text (e.g. an escaping function); applied to the header
        too.

    Returns
    -------
    str
    """
    header = [cell(h) for h in header]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        values = [cell(v) for v in row]
        if len(values) != len(header):
            raise ValueError(f"a row has {len(values)} cells, the header {len(header)}")
        lines.append("| " + " | ".join(values) + " |")
    return "\n".join(lines) + "\n"
