"""Generated regions of a documentation page, and the check that they are current.

A region is the text between a start marker and an end marker, each an HTML comment alone on
its line (MkDocs renders neither)::

    <!-- aesi:generated KIND [NAME=VALUE ...] -->
    ... written by ``aesi docs`` ...
    <!-- aesi:end -->

``KIND`` names a renderer; the ``NAME=VALUE`` arguments go to it, with paths read against
the page's folder. Everything outside the regions is the page's own text and is kept as it is.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from aesi_lib.errors import InputError

START = re.compile(r"^<!-- aesi:generated (?P<spec>.*?) -->$")
END = "<!-- aesi:end -->"

#: A renderer: the arguments of a region and the page's folder -> the region's Markdown.
Renderer = Callable[[Mapping[str, str], Path], str]


@dataclass(frozen=True)
class RegionSpec:
    """What a start marker asks for: the renderer's name and its arguments."""

    kind: str
    arguments: dict[str, str]


def parse_spec(spec: str, where: str) -> RegionSpec:
    """The kind and ``NAME=VALUE`` arguments of a start marker's text.

    Raises
    ------
    InputError
        Naming ``where`` (``page:line``) when an argument is not ``NAME=VALUE``.
    """
    words = shlex.split(spec)
    if not words:
        raise InputError(where, "a generated region needs a kind: <!-- aesi:generated KIND -->")
    arguments = {}
    for word in words[1:]:
        name, sep, value = word.partition("=")
        if not sep or not name:
            raise InputError(where, f"region argument {word!r} is not NAME=VALUE")
        arguments[name] = value
    return RegionSpec(words[0], arguments)


def render_page(text: str, page: Path, renderers: Mapping[str, Renderer]) -> str:
    """``text`` (the page at ``page``) with every generated region written anew.

    Parameters
    ----------
    text : str
        The page's Markdown.
    page : Path
        Where the page lives; region arguments that are paths are read against its folder,
        and errors name it.
    renderers : mapping of str to callable
        The renderer of each region kind.

    Returns
    -------
    str
        The page with each region's content replaced by its renderer's output; the text
        outside the regions unchanged.

    Raises
    ------
    InputError
        For a start marker without its end, an end without a start, a nested start, or an
        unknown kind, naming the page and the line.
    """
    out: list[str] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.rstrip("\n")
        if stripped == END:
            raise InputError(f"{page}:{i + 1}", f"{END} without a start marker before it")
        match = START.match(stripped)
        out.append(line)
        if not match:
            i += 1
            continue
        where = f"{page}:{i + 1}"
        spec = parse_spec(match["spec"], where)
        if spec.kind not in renderers:
            raise InputError(where, f"unknown generated region {spec.kind!r}; known: "
                             f"{', '.join(sorted(renderers))}")
        end = _find_end(lines, i + 1, where)
        body = renderers[spec.kind](spec.arguments, page.parent)
        out.append(body if body.endswith("\n") else body + "\n")
        out.append(lines[end])
        i = end + 1
    return "".join(out)


def _find_end(lines: list[str], start: int, where: str) -> int:
    for j in range(start, len(lines)):
        stripped = lines[j].rstrip("\n")
        if stripped == END:
            return j
        if START.match(stripped):
            raise InputError(where, f"generated region not closed before the next one "
                             f"(line {j + 1}); add {END}")
    raise InputError(where, f"generated region has no {END}")


def generate(docs_dir: Path, renderers: Mapping[str, Renderer], *, write: bool
             ) -> list[Path]:
    """Regenerate every region of every Markdown page under ``docs_dir``.

    Parameters
    ----------
    docs_dir : Path
        The documentation folder.
    renderers : mapping of str to callable
        The renderer of each region kind.
    write : bool
        Write the pages whose regions changed (False: only report them).

    Returns
    -------
    list of Path
        The pages whose generated regions were not current, in path order.
    """
    stale = []
    for page in sorted(docs_dir.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        fresh = render_page(text, page, renderers)
        if fresh != text:
            stale.append(page)
            if write:
                page.write_text(fresh, encoding="utf-8")
    return stale
