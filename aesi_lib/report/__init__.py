"""Human-readable report of a learned schema: templates, slots, examples, mapping, diagnostics.

A run's export (``assignments`` with the columns of evaluation.md, "Export format") labels
every entity mention with a learned template and slot; a *role* is the pair (template, slot).
:func:`write_schema_report` turns it into ``report.md`` and a self-contained ``report.html``,
in this order:

* the schema at a glance (the first screen): the templates, largest first, named by their
  commonest predicates (:func:`aesi_lib.run.roles.template_name`), each with its size and its
  roles, the slots holding at least :data:`aesi_lib.run.roles.ROLE_SHARE` of its mentions
  (:func:`aesi_lib.run.roles.template_roles`, through
  :func:`aesi_lib.run.pipeline.run_schema`, so the report, ``schema.md`` and ``schema.json``
  agree), and one chart of the templates' sizes and role shares;
* when answer keys are given: scores per mapping × matcher (from ``results["scores"]`` when
  the run stored them, else computed from the keys), per-gold-slot scores, the recall
  ceiling, the share of false positives from messages without a relevant incident, and the
  mapping of learned templates to MUC-4 incident types and of roles to gold slots, shown like
  the paper's figure of learned schemas ("Bombing template ← learned template 3: Perpetrator:
  ..., Victim: ..."), computed with :func:`aesi_lib.evaluate.evaluate`;
* per template (folded in HTML): its roles and minor slots with their size, most frequent
  predicates, heads and dependencies, and ``n_examples`` members of each slot drawn at random
  with a seed;
* the solver's objective terms and the run's facts.

Plots are drawn with matplotlib (Agg) and embedded as base64 PNG in the HTML: the schema, F1
per gold slot, solver terms per AMP iteration. Long tables are folded (``<details>``) so that
the page of the default MUC-4 run stays under ten screens of 800 px
(``benchmarks/report_height.py``).

The work is split into small pure functions: :func:`summarise_roles`,
:func:`summarise_templates`, :func:`pick_examples`, :func:`mapping_rows`, the ``plot_*``
functions, :func:`report_blocks` (the document as a list of blocks), and the two renderers
:func:`render_markdown` and :func:`render_html`.

Modules, each importing only from those listed before it:

* :mod:`~aesi_lib.report._util`: small accessors (``_get``, ``_is_number``, ``_as_int``);
* :mod:`~aesi_lib.report.load`: reading a run (:func:`load_run`), :func:`prepare_assignments`,
  :func:`role_grid`;
* :mod:`~aesi_lib.report.summaries`: :func:`summarise_roles`, :func:`summarise_templates`,
  :func:`pick_examples`;
* :mod:`~aesi_lib.report.scores`: :class:`ScoreTables`, :func:`scores_from_results`,
  :func:`mapping_rows`, :func:`choice_rows`, :func:`compute_mappings`,
  :func:`compute_choices`, :func:`compute_scores` and the score table columns;
* :mod:`~aesi_lib.report.plots`: :func:`objective_series`, :func:`schema_bars`,
  :func:`schema_figure` and the ``plot_*`` figures;
* :mod:`~aesi_lib.report.document`: the block types and :class:`SchemaReport`;
* :mod:`~aesi_lib.report.blocks`: :func:`report_blocks` and the section builders;
* :mod:`~aesi_lib.report.render`: :func:`render_markdown` and :func:`render_html`;
* :mod:`~aesi_lib.report.build`: :func:`run_meta`, :func:`build_report`,
  :func:`write_schema_report`.

Every public name is re-exported here, so ``from aesi_lib.report import X`` works as before.
"""

from aesi_lib.report.blocks import report_blocks, role_labels, template_labels
from aesi_lib.report.build import build_report, run_meta, write_schema_report
from aesi_lib.report.document import Block, Card, Fold, Heading, Para, Plot, SchemaReport, Table
from aesi_lib.report.load import (
    ROLE,
    TEXT_COLUMNS,
    load_run,
    prepare_assignments,
    role_grid,
)
from aesi_lib.report.plots import (
    objective_series,
    plot_objective,
    plot_schema,
    plot_slot_f1,
    schema_bars,
    schema_figure,
)
from aesi_lib.report.render import render_html, render_markdown
from aesi_lib.report.scores import (
    CHOICE_COLUMNS,
    MAPPING_COLUMNS,
    MAPPING_MATCHER,
    PER_SLOT_COLUMNS,
    SCORE_COLUMNS,
    ScoreTables,
    choice_rows,
    compute_choices,
    compute_mappings,
    compute_scores,
    mapping_rows,
    scores_from_results,
)
from aesi_lib.report.summaries import pick_examples, summarise_roles, summarise_templates

__all__ = [
    "CHOICE_COLUMNS",
    "MAPPING_COLUMNS",
    "MAPPING_MATCHER",
    "PER_SLOT_COLUMNS",
    "ROLE",
    "SCORE_COLUMNS",
    "TEXT_COLUMNS",
    "Block",
    "Card",
    "Fold",
    "Heading",
    "Para",
    "Plot",
    "SchemaReport",
    "ScoreTables",
    "Table",
    "build_report",
    "choice_rows",
    "compute_choices",
    "compute_mappings",
    "compute_scores",
    "load_run",
    "mapping_rows",
    "objective_series",
    "pick_examples",
    "plot_schema",
    "plot_objective",
    "plot_slot_f1",
    "prepare_assignments",
    "render_html",
    "render_markdown",
    "report_blocks",
    "role_grid",
    "role_labels",
    "run_meta",
    "schema_bars",
    "schema_figure",
    "scores_from_results",
    "summarise_roles",
    "summarise_templates",
    "template_labels",
    "write_schema_report",
]
