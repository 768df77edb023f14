"""The report as a document: block types and the computed report.

Owns the renderer-neutral block types (:class:`Heading`, :class:`Para`, :class:`Card`,
:class:`Table`, :class:`Plot`, :class:`Fold` and their union :data:`Block`) and
:class:`SchemaReport`, the data everything else is drawn from. :mod:`aesi_lib.report.blocks`
builds lists of blocks, :mod:`aesi_lib.report.render` turns them into Markdown or HTML.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from aesi_lib.report.scores import ScoreTables
from aesi_lib.run.roles import Role


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


@dataclass(frozen=True)
class Fold:
    """Blocks behind a one-line summary: collapsed in HTML unless ``open`` (a report with
    twenty templates of 24 slots and their examples is otherwise dozens of screens tall).
    ``level`` > 0 makes the summary a heading of that level (in Markdown, which does not
    fold, the heading is all that shows of it); 0 a plain line (nothing in Markdown)."""

    summary: str
    blocks: tuple[Block, ...]
    level: int = 0
    open: bool = False


Block = Heading | Para | Card | Table | Plot | Fold


@dataclass
class SchemaReport:
    """Everything the renderers show, computed once.

    ``schema`` and ``names`` are the run's readable schema as ``schema.md`` and
    ``schema.json`` give it (:func:`aesi_lib.run.pipeline.run_schema`): every (template, slot)
    with mentions as a :class:`~aesi_lib.run.roles.Role`, templates largest first, and each
    template's name. ``roles`` is the full grid of slots, empty ones included. ``kinds`` and
    ``events`` are the run's template kinds and incidents (``aesi_lib.events``), shown beside
    the schema."""

    roles: pd.DataFrame
    templates: pd.DataFrame
    examples: pd.DataFrame
    scores: ScoreTables | None
    objective: pd.DataFrame
    meta: dict[str, str] = field(default_factory=dict)
    n_mentions: int = 0
    n_docs: int = 0
    seed: int = 0
    schema: list[Role] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    #: Each template's kind (``event``, ``background``, ``discourse``) from ``schema.json``.
    kinds: dict[int, str] = field(default_factory=dict)
    #: The run's event rows (``events.parquet``), None when the run folder has none.
    events: pd.DataFrame | None = None
