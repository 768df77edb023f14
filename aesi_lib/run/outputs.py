"""What a run writes for a person beside its export: the schema file and per-document summaries.

* :func:`schema_summary` names each template by its most frequent predicates and each slot by
  its most frequent head words and its role (``aesi_lib.run.roles``), so that "template 9"
  in an export has a readable name (``schema.json`` in the output folder);
  :func:`schema_markdown` writes the same as ``schema.md``, roles first.
* :func:`document_summary` picks, for each document, the template that best describes it and a
  few fillers per slot. The most frequent template of a document is usually the one of
  reporting verbs (say, report, ...), present in every document; the template chosen here is a
  mapped one when a scored mapping says which templates are event types, else the template most
  over-represented in the document compared with the whole export (tf-idf over documents).
* :func:`documents_without_mentions` and :func:`without_mentions_warning` name the documents
  that gave no entity mention at all, and so have no row in the export.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from aesi_lib.markdown import markdown_table
from aesi_lib.run.roles import ROLE_SHARE, Role, template_name, template_roles


def _top(values: pd.Series, n: int) -> list[list[Any]]:
    counts = values.value_counts()
    return [[str(v), int(c)] for v, c in counts.head(n).items()]


def schema_summary(assignments: pd.DataFrame, top: int = 8,
                   roles: list[Role] | None = None) -> dict[str, Any]:
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

    Returns
    -------
    dict
        ``{"role_share", "templates": [{"template", "name", "mentions", "documents",
        "predicates", "roles", "slots": [{"slot", "name", "mentions", "heads", "position",
        "share", "role", "minor"}]}]}``, templates by decreasing size; a template's name is
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
        templates.append({"template": int(t), "name": template_name(rows["predicate"]),
                          "mentions": len(rows), "documents": int(rows["doc_id"].nunique()),
                          "predicates": _top(rows["predicate"], top),
                          "roles": [{"slot": r["slot"], "role": r["role"], "share": r["share"]}
                                    for r in major],
                          "slots": slots})
    templates.sort(key=lambda entry: (-entry["mentions"], entry["template"]))
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
    for t in templates:
        predicates = ", ".join(f"{word} ({count:,})" for word, count in t["predicates"][:5])
        lines += [f"## Template {t['template']}: {t['name']}", "",
                  f"{t['mentions']:,} mentions in {t['documents']:,} documents; predicates: "
                  f"{predicates}.", ""]
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


def document_template(doc_rows: pd.DataFrame, document_frequency: pd.Series, n_docs: int,
                      mapped: Iterable[int] = ()) -> int:
    """The template that best describes one document (see the module docstring).

    Parameters
    ----------
    doc_rows : the document's rows of the export.
    document_frequency : Series template -> number of documents of the export it occurs in.
    n_docs : documents in the export.
    mapped : templates a scored mapping uses; among those present, the most frequent wins.
    """
    counts = doc_rows["template"].value_counts()
    present = [t for t in mapped if t in counts.index]
    if present:
        return int(max(present, key=lambda t: (counts[t], -t)))
    scores = {int(t): c * math.log((1 + n_docs) / (1 + document_frequency[t]))
              for t, c in counts.items()}
    return max(scores, key=lambda t: (scores[t], counts[t], -t))


def document_summary(assignments: pd.DataFrame, doc_ids: Sequence[str], limit: int = 3,
                     mapped: Iterable[int] = (), background: pd.DataFrame | None = None
                     ) -> dict[str, Any]:
    """Per document of ``doc_ids``: its mentions, its template (:func:`document_template`) and
    up to ``limit`` fillers per slot of that template.

    ``background`` (default: ``assignments`` itself) is the export whose documents give the
    templates' document frequencies, e.g. the run's full export when ``assignments`` holds a
    few new documents only."""
    mapped = list(mapped)
    reference = assignments if background is None else background
    n_docs = int(reference["doc_id"].nunique())
    document_frequency = reference.groupby("template")["doc_id"].nunique().reindex(
        sorted(set(reference["template"]) | set(assignments["template"])), fill_value=0)
    wanted = assignments[assignments["doc_id"].isin(set(doc_ids))]
    summary: dict[str, Any] = {}
    for doc_id, rows in wanted.groupby("doc_id", sort=True):
        template = document_template(rows, document_frequency, n_docs, mapped)
        main = rows[rows["template"] == template]
        summary[str(doc_id)] = {
            "mentions": len(rows),
            "template": template,
            "slots": {int(slot): list(dict.fromkeys(group["mention"]))[:limit]
                      for slot, group in main.groupby("slot", sort=True)},
        }
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


def mapped_templates(scores: dict[str, Any]) -> list[int]:
    """The templates of the lenient dev-mapped mapping of a run's scores (learned on DEV, not
    on the split the run is scored on), else of the test-mapped one (a corpus without DEV
    keys, such as the demo)."""
    for name in ("dev-mapped/lenient", "test-mapped/lenient"):
        entry = scores.get(name) if isinstance(scores, dict) else None
        if isinstance(entry, dict) and entry.get("mapping"):
            return sorted({int(m["template"]) for m in entry["mapping"]})
    return []
