"""Building the report document from a :class:`~aesi_lib.report.document.SchemaReport`.

Owns :func:`report_blocks` (the schema at a glance, scores, mapped schemas, templates in
detail, solver, run facts, in that order), the section builders behind it (``_schema_blocks``,
``_score_blocks``, ``_mapping_blocks`` with the paper-figure cards of ``_mapping_cards``,
``_template_blocks``, ``_solver_blocks``, ``_run_blocks``), :func:`role_labels` and
:func:`template_labels` (what each role or template is mapped to), and the display formatters
of numbers and texts (``_fmt_*``, ``_short`` ...).

The first screen of the page is the schema: its templates, largest first, named by their
commonest predicates, with their roles (the slots holding at least
:data:`aesi_lib.run.roles.ROLE_SHARE` of the template's mentions) and one chart of their
sizes, from the same roles as ``schema.md`` and ``schema.json``. Scores and diagnostics follow,
their long tables folded; the run's facts close the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from aesi_lib.evaluate import EVENT_TYPES, TYPE_GOLD_SLOTS
from aesi_lib.evaluate.mapping import CLOSE_CHOICE
from aesi_lib.report._util import _is_number
from aesi_lib.report.document import (
    Block,
    Card,
    Fold,
    Heading,
    Para,
    Plot,
    SchemaReport,
    Table,
)
from aesi_lib.report.plots import schema_bars
from aesi_lib.report.scores import MAPPING_COLUMNS, MAPPING_MATCHER, _empty
from aesi_lib.run.roles import ROLE_SHARE, Role

# Length at which long mention texts are cut in tables.
_MAX_MENTION = 60
# Roles of a template listed in the schema table (all of them are in its detail section).
_GLANCE_ROLES = 3


def _fmt_counts(pairs: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{v} ({n})" for v, n in pairs) or "—"


def _fmt_float(v: Any, digits: int = 3) -> str:
    return f"{float(v):.{digits}f}" if _is_number(v) and math.isfinite(float(v)) else "—"


def _fmt_int(v: Any) -> str:
    return str(int(v)) if _is_number(v) and math.isfinite(float(v)) else "—"


def _fmt_pct(v: Any) -> str:
    return f"{100 * float(v):.1f}%" if _is_number(v) and math.isfinite(float(v)) else "—"


def _mentions(n: int) -> str:
    return _count(n, "mention")


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


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


def _run_line(report: SchemaReport) -> list[Block]:
    """The run in one line for the top of the page (its full facts close the page); nothing
    when the report was given no run facts and has scores."""
    meta = report.meta
    facts = [f"corpus {meta['Corpus']}" if "Corpus" in meta else "",
             f"seed {meta['Seed']}" if "Seed" in meta else ""]
    if report.scores is None:
        facts.append("no answer keys, so no scores")
    elif "Evaluated on" in meta:
        facts.append(f"scored on {meta['Evaluated on']}")
    facts = [f for f in facts if f]
    if not facts:
        return []
    text = ", ".join(facts) + "; configuration and timings under Run at the end."
    return [Para(text, label="Run:")]


def _role_line(role: Role) -> str:
    return f"{_fmt_pct(role.share)} {role.description}"


def _schema_blocks(report: SchemaReport) -> list[Block]:
    """The schema at a glance: a sentence, the chart, one table row per template."""
    bars = schema_bars(report.schema)
    mapping = report.scores.mapping if report.scores is not None else _empty(MAPPING_COLUMNS)
    types_mapped = template_labels(mapping)
    n_mentions = sum(r.mentions for r in report.schema)
    blocks: list[Block] = [
        Heading(1, "Schema report"),
        *_run_line(report),
        Heading(2, f"Schema: {_count(len(bars), 'template')} over "
                   f"{n_mentions:,} mentions in {report.n_docs:,} documents"),
    ]
    if not bars:
        return blocks + [Para("No mention in the export: no schema.")]
    blocks += [
        Para(f"Largest first, each named by its commonest predicates. A role is a slot holding "
             f"at least {ROLE_SHARE:.0%} of its template's mentions, described by its argument "
             "position, commonest predicates and commonest heads; smaller slots are minor "
             "(as in the run's schema.md and schema.json)."),
        Plot("schema", "Each bar a template: its length the mentions, its coloured segments "
                       "its roles (largest first, labelled with their commonest head where "
                       "it fits), the grey end its minor slots."),
    ]
    header = ("template", *(("kind",) if report.kinds else ()), "mentions", "roles",
              "largest roles: share of the template, position of predicates: heads")
    header += ("mapped as",) if types_mapped else ()
    rows, marked = [], []
    for t, major, minor in bars:
        total = sum(r.mentions for r in major) + minor
        # "1 more" would take the line its role needs.
        shown = major if len(major) <= _GLANCE_ROLES + 1 else major[:_GLANCE_ROLES]
        lines = [_role_line(r) for r in shown]
        if len(major) > len(shown):
            lines.append(f"… {len(major) - len(shown)} more, under Template {t} below")
        n_minor = sum(1 for r in report.schema if r.template == t and r.minor)
        roles = str(len(major)) + (f" + {n_minor} minor ({_fmt_pct(minor / total)})"
                                   if n_minor else "")
        kind = (report.kinds.get(t, ""),) if report.kinds else ()
        row = (f"{t}: {report.names.get(t, '')}", *kind,
               f"{total:,} ({_fmt_pct(total / n_mentions)})", roles,
               "\n".join(lines) or "no role")
        rows.append(row + ((types_mapped.get(t, ""),) if types_mapped else ()))
        marked.append(t in types_mapped)
    blocks.append(Table(header, tuple(rows), tuple(marked)))
    empty = sorted(set(report.roles["template"]) - {t for t, _, _ in bars})
    if empty:
        blocks.append(Para(", ".join(str(t) for t in empty) + ".",
                           label="Templates without a mention:"))
    return blocks


#: Documents whose incidents the report's first screen shows.
EVENT_EXAMPLES = 3
#: Entities listed a role in those incidents.
EVENT_ENTITIES = 4


def _event_blocks(report: SchemaReport) -> list[Block]:
    """The incidents of a few documents (``events.jsonl``): those whose most confident
    incident is the most confident (ties: the smaller id), each incident one card of its
    roles' entities."""
    events = report.events
    if events is None:
        return []
    incidents = events.drop_duplicates(["doc_id", "incident"])
    n_docs = incidents["doc_id"].nunique()
    blocks: list[Block] = [
        Heading(2, "Events"),
        Para(f"{len(incidents):,} incidents in {n_docs:,} of {report.n_docs:,} documents. An "
             "incident is an event template within a document; its trigger is the predicate "
             "that carries most of its salience, its confidence its share of the document's "
             "salience, its roles filled with entities (events.jsonl; docs/outputs.md).")]
    if incidents.empty:
        return blocks
    best = incidents.groupby("doc_id")["confidence"].max().reset_index()
    best = best.sort_values(["confidence", "doc_id"], ascending=[False, True])
    for doc_id in best["doc_id"].head(EVENT_EXAMPLES):
        for _, incident in events[events["doc_id"] == doc_id].groupby("incident", sort=True):
            first = incident.iloc[0]
            items = []
            for slot, cell in incident.groupby("slot", sort=False):
                texts = list(dict.fromkeys(cell["entity_text"]))
                more = f" … {len(texts) - EVENT_ENTITIES} more" if len(
                    texts) > EVENT_ENTITIES else ""
                role = str(cell["role"].iloc[0])
                items.append((f"slot {slot}", f"{', '.join(texts[:EVENT_ENTITIES])}{more}"
                                              + (f" ({role})" if role else "")))
            blocks.append(Card(
                f"{doc_id}: {first['template_name']} ({first['trigger']}), confidence "
                f"{float(first['confidence']):.2f}", tuple(items)))
    return blocks


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
        blocks.append(Fold("What the last three columns say", (
            Para(
                "share of the false positives that come from messages without a relevant "
                "incident (every guess there is a false positive).",
                label="FP from irrelevant:",
            ),
            Para(
                "the recall if every mention of the templates the mapping uses fed every gold "
                "slot: what better slots could reach with these templates.",
                label="R bound, templates:",
            ),
            Para(
                "the F1 had the messages without a relevant incident produced nothing: what a "
                "perfect document filter could reach with this mapping. Both use the keys; "
                "they are bounds, not scores.",
                label="F1, relevance oracle:",
            ),
        )))
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
        header = ("mapping", "matcher", "gold slot", "P", "R", "F1", "TP", "FP", "FN",
                  "FN: other slot", "most in", "FN: other template", "FN: no mention")
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
                _fmt_int(r.missed_other_slot),
                r.most_in_other_slots if isinstance(r.most_in_other_slots, str) else "",
                _fmt_int(r.missed_other_template),
                _fmt_int(r.missed_no_mention),
            )
            for r in st.per_slot.itertuples(index=False)
        )
        fn_note = Para(
            "where the missed gold entities are: matched by a mention of a template the "
            "mapping uses for the gold slot, but in a slot that does not feed it (*other "
            "slot*, with the slots that hold most of them); matched only in other templates "
            "(*other template*); matched by no mention of the message (*no mention*: the "
            "entity extraction lost it). They use the keys.",
            label="FN:",
        )
        blocks += [Heading(3, "Per gold slot"), Plot("slot_f1", "F1 per gold slot"),
                   Fold(f"Per gold slot: scores and where the missed entities are "
                        f"({len(rows)} rows)", (Table(header, rows), fn_note))]
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
        name = report.names.get(t)
        title = f"{_type_name(typ)} template ← learned template {t}" + (f": {name}" if name else "")
        blocks.append(Card(title, tuple(items)))
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
        blocks += _choice_blocks(st.choices[st.choices["mode"] == mode])
    return blocks


def _choice_blocks(choices: pd.DataFrame) -> list[Block]:
    """How close each type's choice of template was (step 2 of the mapping), and a warning
    when a type's runner-up lies within :data:`CLOSE_CHOICE`."""
    if choices.empty:
        return []
    rows = tuple(
        (_type_name(str(c.type)), str(int(c.template)), _fmt_float(c.best_sum),
         str(int(c.runner_up)) if int(c.runner_up) >= 0 else "—", _fmt_float(c.runner_up_sum),
         _fmt_float(c.margin))
        for c in choices.itertuples(index=False)
    )
    close = [_type_name(str(c.type)) for c in choices.itertuples(index=False)
             if int(c.runner_up) >= 0 and float(c.margin) < CLOSE_CHOICE]
    blocks: list[Block] = [
        Para("each type keeps the template whose best map has the largest sum of F1 over its "
             "gold slots (evaluation.md, step 2); the runner-up is the best other template.",
             label="Choice of template:"),
        Table(("type", "template", "Σ F1", "runner-up", "Σ F1", "margin"), rows),
    ]
    if close:
        blocks.append(Para(
            f"{', '.join(close)}: the runner-up template lies within {CLOSE_CHOICE} of the "
            "chosen one, so another seed or a neighbouring weight can hand the type to it and "
            "move this mapping's score by a few hundredths.", label="Close choice:"))
    return blocks


def _template_blocks(report: SchemaReport) -> list[Block]:
    mapping = report.scores.mapping if report.scores is not None else _empty(MAPPING_COLUMNS)
    roles_mapped = role_labels(mapping)
    types_mapped = template_labels(mapping)
    blocks: list[Block] = [
        Heading(2, "Templates in detail"),
        Para("Per template, largest first (folded): its commonest predicates, its roles with "
             "their commonest predicates, heads and dependencies, then its minor slots and "
             "random members of every slot." + (" The rows of mapped roles are marked."
                                                if types_mapped else "")),
    ]
    for t, major, minor in schema_bars(report.schema):
        blocks += _one_template_blocks(report, t, major, minor, roles_mapped, types_mapped)
    return blocks


_SLOT_HEADER = ("slot", "mentions", "share", "documents", "role: position of predicates: heads",
                "top predicates", "top heads", "top deps")


def _one_template_blocks(
    report: SchemaReport,
    t: int,
    major: list[Role],
    minor_mentions: int,
    roles_mapped: dict[tuple[int, int], str],
    types_mapped: dict[int, str],
) -> list[Block]:
    grid = report.roles[report.roles["template"] == t].set_index("slot")
    minor = [r for r in report.schema if r.template == t and r.minor]
    total = sum(r.mentions for r in major) + minor_mentions
    title = (f"Template {t}: {report.names.get(t, '')} — {_mentions(total)} in "
             f"{_count(_template_docs(report, t), 'document')}, {_count(len(major), 'role')}")
    if t in types_mapped:
        title += f" — mapped as {types_mapped[t]}"
    header = _SLOT_HEADER + (("mapped to",) if roles_mapped else ())

    def row(role: Role) -> tuple[str, ...]:
        r = grid.loc[role.slot]
        cells = (str(role.slot), str(role.mentions), _fmt_pct(role.share), str(r.n_docs),
                 role.description, _fmt_counts(r.top_predicates), _fmt_counts(r.top_heads),
                 _fmt_counts(r.top_deps))
        return cells + ((roles_mapped.get((t, role.slot), ""),) if roles_mapped else ())

    predicates = report.templates.set_index("template").loc[t, "top_predicates"]
    inner: list[Block] = [
        Para(_fmt_counts(predicates), label="Predicates:"),
        Table(header, tuple(row(r) for r in major),
              tuple((t, r.slot) in roles_mapped for r in major)),
    ]
    empty = [int(s) for s, n in grid["size"].items() if n == 0]
    if minor or empty:
        held = f", {_fmt_pct(minor_mentions / total)} of the mentions" if minor else ""
        parts: list[Block] = []
        if minor:
            parts += [Para(f"{_count(len(minor), 'slot')} below {ROLE_SHARE:.0%} of the "
                           f"template's mentions each{held}:", label="Minor slots:"),
                      Table(header, tuple(row(r) for r in minor),
                            tuple((t, r.slot) in roles_mapped for r in minor))]
        if empty:
            parts.append(Para(", ".join(map(str, empty)) + ".", label="Slots without a mention:"))
        summary = f"Minor slots: {len(minor)}{held}" + (f"; empty slots: {len(empty)}"
                                                        if empty else "")
        inner.append(Fold(summary, tuple(parts)))
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
    inner.append(Fold("Examples", (Para("random members per slot:", label="Examples"),
                                   Table(ex_header, ex_rows) if ex_rows else
                                   Para("no members."))))
    # Folded, mapped or not: three open templates of a dozen roles each are three screens,
    # and the mapped roles are already in the cards of the mapping section.
    return [Fold(title, tuple(inner), level=3)]


def _template_docs(report: SchemaReport, t: int) -> int:
    docs = report.templates.loc[report.templates["template"] == t, "n_docs"]
    return int(docs.iloc[0]) if len(docs) else 0


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
    if len(series) < 2:
        text = "One solve without AMP iterations (independent cuts, -SC): its objective terms."
        return blocks + [Para(text), Table(header, rows)]
    return blocks + [Plot("objective", "Objective terms per AMP iteration"),
                     Fold("Objective terms per iteration", (Table(header, rows),))]


def _run_blocks(report: SchemaReport) -> list[Block]:
    n_t = report.roles["template"].nunique() if len(report.roles) else 0
    n_s = report.roles["slot"].nunique() if len(report.roles) else 0
    items = [
        ("Mentions", f"{report.n_mentions} in {report.n_docs} documents"),
        ("Grid", f"{n_t} templates × {n_s} slots"),
        ("Examples", f"drawn at random with seed {report.seed}"),
    ] + list(report.meta.items())
    return [Heading(2, "Run"), Card("Run facts", tuple(items))]


def report_blocks(report: SchemaReport) -> list[Block]:
    """The document, in order: the schema at a glance, scores, mapped schemas, templates in
    detail, solver, run facts.

    Parameters
    ----------
    report : SchemaReport

    Returns
    -------
    list of Block
    """
    return (
        _schema_blocks(report)
        + _event_blocks(report)
        + _score_blocks(report)
        + _mapping_blocks(report)
        + _template_blocks(report)
        + _solver_blocks(report)
        + _run_blocks(report)
    )
