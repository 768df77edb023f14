"""What a run writes for a person beside its export: the schema file and per-document summaries.

* :func:`schema_summary` names each template by its most frequent predicates and each slot by
  its most frequent head words and its role (``aesi_lib.run.roles``), so that "template 9"
  in an export has a readable name (``schema.json`` in the output folder);
  :func:`schema_markdown` writes the same as ``schema.md``, roles first.
* :func:`event_summary` lists, for each document, its incidents in brief (the events of
  ``aesi_lib.events.incidents``).
* :func:`documents_without_mentions` and :func:`without_mentions_warning` name the documents
  that gave no entity mention at all, and so have no row in the export.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from aesi_lib.events.kinds import (
    DISCOURSE_CLASSES,
    DISCOURSE_SHARE,
    EVENT,
    EVENT_SALIENCE,
    TemplateKind,
)
from aesi_lib.markdown import markdown_table
from aesi_lib.run.roles import ROLE_SHARE, Role, template_name, template_roles


def _top(values: pd.Series, n: int) -> list[list[Any]]:
    counts = values.value_counts()
    return [[str(v), int(c)] for v, c in counts.head(n).items()]


def schema_summary(assignments: pd.DataFrame, top: int = 8,
                   roles: list[Role] | None = None,
                   kinds: dict[int, TemplateKind] | None = None) -> dict[str, Any]:
    """Each template with its top predicates, and each of its slots with its top heads and
    its role (:func:`aesi_lib.run.roles.template_roles`).

    Parameters
    ----------
    assignments : DataFrame with the export columns (``template``, ``slot``, ``predicate``,
        ``head``, ``dep``, ``doc_id``).
    top : int
        Words listed per template and per slot.
    roles : list of Role, optional
        The slots' roles (:func:`aesi_lib.run.roles.template_roles` of ``assignments``, what
        it defaults to).
    kinds : dict of int to TemplateKind, optional
        Each template's kind (:func:`aesi_lib.events.kinds.template_kinds`): ``kind`` and
        ``kind_evidence`` of each template; absent without them.

    Returns
    -------
    dict
        ``{"role_share", "templates": [{"template", "name", "kind", "kind_evidence",
        "mentions", "documents", "predicates", "roles", "slots": [{"slot", "name", "mentions",
        "heads", "position", "share", "role", "minor"}]}]}``, templates by decreasing size
        (event templates first when kinds are given); a template's name is
        :func:`aesi_lib.run.roles.template_name`, a slot's its three commonest heads joined
        with ``/``; ``roles`` lists the template's roles (its slots that are not minor) as
        ``{"slot", "role", "share"}``, largest first.
    """
    heads = assignments["head"].astype(str).str.lower()
    # Only the columns read below: each group's rows are copied out of the frame.
    frame = assignments[["template", "slot", "predicate", "doc_id"]].assign(_head=heads)
    roles = template_roles(assignments) if roles is None else roles
    described = {(r.template, r.slot): r for r in roles}
    templates = []
    for t, rows in frame.groupby("template", sort=False):
        slots = []
        for s, cell in rows.groupby("slot", sort=True):
            words = _top(cell["_head"], top)
            role = described[(int(t), int(s))]
            slots.append({"slot": int(s), "name": "/".join(w for w, _ in words[:3]),
                          "mentions": len(cell), "heads": words, "position": role.position,
                          "share": round(role.share, 4), "role": role.description,
                          "minor": role.minor})
        major = sorted((slot for slot in slots if not slot["minor"]),
                       key=lambda slot: (-slot["mentions"], slot["slot"]))
        kind = kinds.get(int(t)) if kinds else None
        described_kind = {} if kind is None else {
            "kind": kind.kind,
            "kind_evidence": {k: v for k, v in kind.to_dict().items()
                              if k not in ("template", "kind")}}
        templates.append({"template": int(t), "name": template_name(rows["predicate"]),
                          **described_kind,
                          "mentions": len(rows), "documents": int(rows["doc_id"].nunique()),
                          "predicates": _top(rows["predicate"], top),
                          "roles": [{"slot": r["slot"], "role": r["role"], "share": r["share"]}
                                    for r in major],
                          "slots": slots})
    templates.sort(key=lambda entry: (entry.get("kind", EVENT) != EVENT, -entry["mentions"],
                                      entry["template"]))
    return {"role_share": ROLE_SHARE, "templates": templates}


def schema_markdown(schema: dict[str, Any]) -> str:
    """The readable schema (``schema.md``) of :func:`schema_summary`: each template, largest
    first, with its commonest predicates, its roles and, on one line, its minor slots."""
    templates = schema["templates"]
    mentions = sum(t["mentions"] for t in templates)
    lines = ["# Schema", "",
             f"{len(templates)} templates over {mentions:,} entity mentions. A template is "
             "named by its commonest predicates. Its roles are the slots that hold at least "
             f"{schema['role_share']:.0%} of its mentions, each described by its argument "
             "position, its commonest predicates and its commonest head words; the smaller "
             "slots are listed as minor. `schema.json` has every slot.", ""]
    if any("kind" in t for t in templates):
        lines += [_KINDS_NOTE, ""]
    for t in templates:
        predicates = ", ".join(f"{word} ({count:,})" for word, count in t["predicates"][:5])
        kind = f" ({t['kind']})" if "kind" in t else ""
        lines += [f"## Template {t['template']}: {t['name']}{kind}", "",
                  f"{t['mentions']:,} mentions in {t['documents']:,} documents; predicates: "
                  f"{predicates}.{_kind_evidence(t)}", ""]
        rows = [[f"slot {r['slot']}", f"{r['share']:.1%}", r["role"]] for r in t["roles"]]
        if rows:
            lines.append(markdown_table(("role", "share", "position of predicates: heads"),
                                        rows))
        minor = [s for s in t["slots"] if s["minor"]]
        if minor:
            held = sum(s["mentions"] for s in minor) / t["mentions"]
            lines.append(f"Minor slots ({len(minor)}, {held:.1%} of the mentions): "
                         + ", ".join(str(s["slot"]) for s in minor) + ".")
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


_KINDS_NOTE = (
    "Event templates come first: only they yield the incidents of `events.jsonl`. A template "
    f"is a discourse template when at least {DISCOURSE_SHARE:.0%} of its mentions are "
    "arguments of verbs of saying or believing (WordNet's "
    f"{' and '.join(c.split('.')[1] for c in sorted(DISCOURSE_CLASSES))} verbs), else an "
    "event template when its predicates' mean salience (the log of how many times more often "
    f"this corpus uses them than general English) is at least {EVENT_SALIENCE}, else a "
    "background template.")


def _kind_evidence(template: dict[str, Any]) -> str:
    evidence = template.get("kind_evidence")
    if not evidence or evidence.get("salience") is None:
        return ""
    return (f" Salience {evidence['salience']:.2f}, discourse verbs "
            f"{evidence['discourse_share']:.0%}.")


def event_summary(rows: pd.DataFrame, doc_ids: Sequence[str], limit: int = 3
                  ) -> dict[str, Any]:
    """Per document of ``doc_ids``, its incidents in brief (what ``aesi update`` and
    ``aesi extract`` print and ``results.json`` keeps): ``{doc_id: [{"template",
    "template_name", "trigger", "confidence", "roles": {slot: [entity text, ...]}}]}``, at
    most ``limit`` entities a role, in order of their first mention; an empty list for a
    document that reports no event.

    Parameters
    ----------
    rows : DataFrame
        Event rows (``aesi_lib.events.incidents.EVENT_COLUMNS``) holding those documents.
    doc_ids : sequence of str
    limit : int
    """
    wanted = rows[rows["doc_id"].isin(set(doc_ids))]
    summary: dict[str, Any] = {str(d): [] for d in doc_ids}
    for (doc_id, _), incident in wanted.groupby(["doc_id", "incident"], sort=True):
        first = incident.iloc[0]
        roles = {int(slot): list(dict.fromkeys(cell["entity_text"]))[:limit]
                 for slot, cell in incident.groupby("slot", sort=False)}
        summary[str(doc_id)].append({
            "template": int(first["template"]), "template_name": str(first["template_name"]),
            "trigger": str(first["trigger"]), "confidence": round(float(first["confidence"]), 3),
            "roles": roles})
    return summary


def documents_without_mentions(doc_ids: Sequence[str], mention_doc_ids: Iterable[str]
                               ) -> list[str]:
    """The documents of ``doc_ids`` (in their order) that none of ``mention_doc_ids`` (the
    ``doc_id`` column of an entity table or export) names: the documents in which the entity
    rules found no noun argument of a verb, so that the export has no row of theirs (text that
    is not English, tables of numbers, a headline alone)."""
    found = set(map(str, mention_doc_ids))
    return [doc_id for doc_id in doc_ids if str(doc_id) not in found]


WITHOUT_MENTIONS_LISTED = 5
"""How many of the documents without mentions :func:`without_mentions_warning` names."""


def without_mentions_warning(missing: Sequence[str], total: int,
                             listed: int = WITHOUT_MENTIONS_LISTED) -> str:
    """One line for the documents of :func:`documents_without_mentions`: ``2 of 7 documents
    gave no entity mention (not English?): es, numbers``, the first ``listed`` ids and how
    many more."""
    more = len(missing) - listed
    names = ", ".join(missing[:listed]) + (f" and {more} more" if more > 0 else "")
    return (f"{len(missing)} of {total} documents gave no entity mention (not English?), so "
            f"the export has no row of theirs: {names}")
