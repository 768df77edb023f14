"""Renderers of a list of report blocks.

Owns :func:`render_markdown` (``report.md``: escaped text, tables with mapped rows starred,
plots as a pointer to the HTML, folds as their heading and contents) and :func:`render_html` (a
self-contained page: inline CSS, plots embedded as base64 PNG, folds as ``<details>``, no
external resource), with their per-block helpers.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence

from aesi_lib.markdown import markdown_table
from aesi_lib.report.document import Block, Card, Fold, Heading, Para, Plot, Table


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
        if isinstance(b, Fold):
            if b.level > 0:
                out.append(f"{'#' * b.level} {_md_escape(b.summary)}")
            out.append(render_markdown(b.blocks).rstrip("\n"))
        elif isinstance(b, Heading):
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
    rows = []
    for i, row in enumerate(table.rows):
        # A cell's lines stay lines in the rendered table.
        cells = ["<br>".join(_md_escape(line) for line in c.split("\n")) for c in row]
        if i < len(table.marked) and table.marked[i] and cells:
            cells[0] = f"**{cells[0]}** ★"  # mapped role / template
        rows.append(cells)
    return markdown_table([_md_escape(h) for h in table.header], rows).rstrip("\n")


_CSS = """
body { font-family: sans-serif; margin: 1.2em 2em 2em; max-width: 80em; color: #222; }
h1 { font-size: 1.7em; margin: 0.2em 0 0.3em; }
h2 { margin: 1.2em 0 0.4em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #eee; }
tr.mapped td { background: #fff3c4; }
.card { display: inline-block; vertical-align: top; border: 1px solid #888; border-radius: 4px;
        padding: 0.4em 0.9em; margin: 0.3em 0.6em 0.6em 0; min-width: 22em; max-width: 40em; }
.card h4 { margin: 0.2em 0 0.4em; }
.card ul { margin: 0; padding-left: 1.2em; }
figure { margin: 0.5em 0 1em; }
img { max-width: 100%; height: auto; }
details { margin: 0.2em 0; }
summary { cursor: pointer; }
summary h1, summary h2, summary h3, summary h4 { display: inline; }
figcaption { font-size: 0.85em; color: #555; }
"""


def _html_cell(text: str) -> str:
    """A table cell's text, escaped, its lines kept as lines."""
    return "<br>".join(html.escape(line) for line in text.split("\n"))


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
            cells = "".join(f"<td>{_html_cell(c)}</td>" for c in row)
            body.append(f"<tr{cls}>{cells}</tr>")
        return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    if isinstance(b, Fold):
        level = min(max(b.level, 1), 6)
        summary = (f'<h{level}>{esc(b.summary)}</h{level}>' if b.level > 0
                   else esc(b.summary))
        inner = "\n".join(_html_block(c, images) for c in b.blocks)
        return (f"<details{' open' if b.open else ''}><summary>{summary}</summary>\n"
                f"{inner}\n</details>")
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
