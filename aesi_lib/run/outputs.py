"""What a run writes for a person beside its export: the schema file and per-document summaries.

* :func:`schema_summary` names each template by its most frequent predicates and each slot by
  its most frequent head words, so that "template 9" in an export has a readable name
  (``schema.json`` in the output folder).
* :func:`document_summary` picks, for each document, the template that best describes it and a
  few fillers per slot. The most frequent template of a document is usually the one of
  reporting verbs (say, report, ...), present in every document; the template chosen here is a
  mapped one when a scored mapping says which templates are event types, else the template most
  over-represented in the document compared with the whole export (tf-idf over documents).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd


def _top(values: pd.Series, n: int) -> list[list[Any]]:
    counts = values.value_counts()
    return [[str(v), int(c)] for v, c in counts.head(n).items()]


def schema_summary(assignments: pd.DataFrame, top: int = 8) -> dict[str, Any]:
    """Each template with its top predicates and each (template, slot) role with its top heads.

    Parameters
    ----------
    assignments : DataFrame with the export columns (``template``, ``slot``, ``predicate``,
        ``head``).
    top : int
        Words listed per template and per slot.

    Returns
    -------
    dict
        ``{"templates": [{"template", "name", "mentions", "documents", "predicates",
        "slots": [{"slot", "name", "mentions", "heads"}]}]}``, templates by decreasing size;
        a name is the top words joined with ``/``.
    """
    heads = assignments["head"].astype(str).str.lower()
    frame = assignments.assign(_head=heads)
    templates = []
    for t, rows in frame.groupby("template", sort=False):
        predicates = _top(rows["predicate"], top)
        slots = []
        for s, cell in rows.groupby("slot", sort=True):
            words = _top(cell["_head"], top)
            slots.append({"slot": int(s), "name": "/".join(w for w, _ in words[:3]),
                          "mentions": len(cell), "heads": words})
        templates.append({"template": int(t), "name": "/".join(p for p, _ in predicates[:3]),
                          "mentions": len(rows), "documents": int(rows["doc_id"].nunique()),
                          "predicates": predicates, "slots": slots})
    templates.sort(key=lambda entry: (-entry["mentions"], entry["template"]))
    return {"templates": templates}


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


def mapped_templates(scores: dict[str, Any]) -> list[int]:
    """The templates of the lenient dev-mapped mapping of a run's scores (learned on DEV, not
    on the split the run is scored on), else of the test-mapped one (a corpus without DEV
    keys, such as the demo)."""
    for name in ("dev-mapped/lenient", "test-mapped/lenient"):
        entry = scores.get(name) if isinstance(scores, dict) else None
        if isinstance(entry, dict) and entry.get("mapping"):
            return sorted({int(m["template"]) for m in entry["mapping"]})
    return []
