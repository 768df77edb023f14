"""What the events of a run read of its whole corpus: each template's kind, each predicate's
event weight, and how to tell a title from a name. Computed once from the run's export, then
applied to its documents and to new ones (``aesi update``, ``aesi extract``,
``SchemaInducer.transform``) alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from aesi_lib.events.kinds import TemplateKind, predicate_weights, template_kinds


@dataclass(frozen=True)
class EventSchema:
    """The corpus-level inputs of :func:`aesi_lib.events.incidents.event_rows`.

    Attributes
    ----------
    kinds : dict of int to TemplateKind
        Every template's kind (:func:`aesi_lib.events.kinds.template_kinds`).
    weights : dict of str to float
        Every predicate's event weight (:func:`aesi_lib.events.kinds.predicate_weights`).
    is_title : callable or None
        Whether a word is a title (``WordNetLexicon.is_person_noun``; None without WordNet).
    """

    kinds: dict[int, TemplateKind]
    weights: dict[str, float]
    is_title: Callable[[str], bool] | None = None


def completed_export(assignments: pd.DataFrame) -> pd.DataFrame:
    """``assignments`` with the columns the events read and a bare scoring file may lack
    (``aesi evaluate`` takes any export with ``doc_id``, ``head``, ``template`` and
    ``slot``): ``mention`` is the head, ``predicate`` and ``dep`` empty, ``sent_id`` 0, the
    span -1,
    ``entity_id`` the row's position, ``phrase`` the head and ``proper`` False."""
    defaults = {"mention": lambda f: f["head"], "predicate": lambda f: "", "dep": lambda f: "",
                "sent_id": lambda f: 0, "start_char": lambda f: -1, "end_char": lambda f: -1,
                "entity_id": lambda f: range(len(f)), "phrase": lambda f: f["head"],
                "proper": lambda f: False}
    missing = {c: make(assignments) for c, make in defaults.items()
               if c not in assignments.columns}
    return assignments.assign(**missing) if missing else assignments


def event_schema(assignments: pd.DataFrame, wordnet: Any | None) -> EventSchema:
    """The :class:`EventSchema` of a run's export (``doc_id``, ``predicate``, ``template``).

    Parameters
    ----------
    assignments : DataFrame
        The run's whole export.
    wordnet : WordNetLexicon or None
        Without WordNet every template is an event template, every weight 0 and no title is
        stripped from a name.
    """
    if "predicate" not in assignments.columns:
        assignments = assignments.assign(predicate="")
    if wordnet is None:
        weights = predicate_weights(assignments["predicate"], None)
        return EventSchema(template_kinds(assignments, weights, None), weights, None)
    weights = predicate_weights(assignments["predicate"], wordnet.verb_tagged_count)
    return EventSchema(template_kinds(assignments, weights, wordnet.verb_class), weights,
                       wordnet.is_person_noun)
