"""How aesi's incidents become templates of the template-filling metric
(:mod:`aesi_lib.evaluate.template_filling`): the map learned on DEV's keys
(:func:`learn_template_map`) from templates, sub-types and (template, slot, entity kind) cells
to the metric's incident types and five roles, the predicted templates it gives a run's
events (:func:`predicted_templates`), and the metric of a run (:func:`template_filling`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.evaluate.gold import EVENT_TYPES
from aesi_lib.evaluate.template_filling import (
    ROLES,
    Entity,
    FilledTemplate,
    entity_matches,
    gold_templates,
    normalize_mention,
    score_templates,
)


@dataclass(frozen=True)
class TemplateMap:
    """How aesi's incidents become templates of the five roles, learned on DEV
    (:func:`learn_template_map`).

    Attributes
    ----------
    types : dict of int to str
        For each template that stands for an incident type, its type (lowercase).
    trigger_types : dict of (int, str) to str
        For a (template, trigger) sub-type whose DEV incidents mostly report another type, that
        type: (19, "kidnap") -> "kidnapping". A trigger here is a sentence's, as
        :func:`predicted_templates` reads an incident sentence by sentence.
    roles : dict of (int, int, str) to str
        The role of an entity of kind ``kind`` (``"name"``, ``"description"``) in slot
        ``slot`` of template ``template``; a role can take several such cells.
    """

    types: dict[int, str]
    trigger_types: dict[tuple[int, str], str]
    roles: dict[tuple[int, int, str], str]

    def incident_type(self, template: int, trigger: str) -> str | None:
        """The type an incident of ``template`` with ``trigger`` stands for; None for a
        template the map does not use."""
        if template not in self.types:
            return None
        return self.trigger_types.get((template, trigger), self.types[template])

    def to_dict(self) -> dict[str, Any]:
        return {"types": {str(t): typ for t, typ in sorted(self.types.items())},
                "trigger_types": {f"{t}/{p}": typ
                                  for (t, p), typ in sorted(self.trigger_types.items())},
                "roles": {f"{t}/{s}/{k}": role
                          for (t, s, k), role in sorted(self.roles.items())}}


#: The least DEV incidents with a sentence whose trigger is that of a (template, trigger)
#: sub-type for the map to give it a type of its own.
MIN_TRIGGER_INCIDENTS = 5
#: The triggers the map learns sub-types from (``learn_template_map(sub_types=)``): each
#: sentence's own, as :func:`predicted_templates` reads them, or (for experiments) each
#: incident's.
SENTENCE_TRIGGERS = "sentences"
INCIDENT_TRIGGERS = "incidents"
#: The least DEV incidents in which a (template, slot, kind) cell holds an entity for the map
#: to consider it for a role.
MIN_CELL_INCIDENTS = 5
#: The roles whose entities tell two templates of one type in one incident apart
#: (:func:`predicted_templates`, step 2), chosen on DEV: with the perpetrators too, or every
#: role, an incident splits into more templates than the keys have, and scores lower
#: (docs/experiments/template-splits.md).
SPLIT_ROLES: tuple[str, ...] = ("Target", "Victim")


def learn_template_map(events: pd.DataFrame, assignments: pd.DataFrame,
                       dev_keys: Sequence[KeyTemplate],
                       texts: Mapping[str, str] | None = None,
                       sub_types: str | None = SENTENCE_TRIGGERS,
                       cells_per_role: int | None = None) -> TemplateMap:
    """The map of :class:`TemplateMap`, from DEV's keys, in three steps:

    1. **Templates**: the template each incident type chooses by steps 1 and 2 of
       evaluation.md (lenient, on the mentions of ``assignments``) stands for a type.
    2. **Types**: each such template's type is the type most DEV documents with one of its
       incidents report (ties: the first of :data:`EVENT_TYPES`' order, then the rest
       alphabetically); a (template, trigger) sub-type that is a sentence's trigger in at
       least :data:`MIN_TRIGGER_INCIDENTS` incidents of DEV documents that report one takes
       the type most of those report, where it differs. The sub-types are learned from the
       sentences' triggers, not the incidents' own, since :func:`predicted_templates` types
       an incident sentence by sentence: a *burn* sentence in an incident of
       *destroy/explode/place* whose trigger is *explode* votes for *burn*
       (docs/experiments/sentence-subtypes.md).
    3. **Roles**: greedily, the (template, slot, entity kind) cell and role whose pairing
       raises the micro-F1 of the five roles most, over the incidents of DEV documents that
       report one, each against the gold entities of its document's templates of its type;
       until no pairing raises it by more than 1e-4. A cell takes one role; a role any
       number of cells. Only cells with an entity in at least :data:`MIN_CELL_INCIDENTS`
       incidents are candidates.

    Parameters
    ----------
    events : DataFrame
        The event rows (:data:`aesi_lib.events.incidents.EVENT_COLUMNS`) of the DEV
        documents (others are ignored).
    assignments : DataFrame
        An export that holds the DEV messages (for step 1).
    dev_keys : sequence of KeyTemplate
    texts : mapping of str to str, optional
        The messages' texts, as :func:`gold_templates` takes them.
    sub_types : {"sentences", "incidents"} or None
        The triggers step 2 learns sub-types from: the sentences' (the rule), the incidents'
        own (for experiments), or none (every incident of a template takes the template's
        type; for experiments).
    cells_per_role : int, optional
        At most this many cells a role in step 3 (None: any number; for experiments).
    """
    from aesi_lib.evaluate.mapping import type_mappings
    from aesi_lib.evaluate.split import SplitIndex

    index = SplitIndex(assignments, dev_keys, "lenient")
    choices = type_mappings({typ: index.type_f1(typ) for typ in EVENT_TYPES})
    mapped = sorted({template for template, _ in choices.values() if template >= 0})
    gold = gold_templates(dev_keys, texts)
    reported = {d: [t for t in ts] for d, ts in gold.items() if ts}
    incidents = _incidents(events[events["doc_id"].isin(list(reported))
                                  & events["template"].isin(mapped)])
    order = {typ.lower(): i for i, typ in enumerate(EVENT_TYPES)}

    def majority(votes: Mapping[str, int]) -> str:
        return min(votes, key=lambda typ: (-votes[typ], order.get(typ, len(order)), typ))

    template_votes: dict[int, dict[str, int]] = {}
    trigger_votes: dict[tuple[int, str], dict[str, int]] = {}
    trigger_count: dict[tuple[int, str], int] = {}
    if sub_types not in (SENTENCE_TRIGGERS, INCIDENT_TRIGGERS, None):
        raise ValueError(f"sub_types must be {SENTENCE_TRIGGERS!r}, {INCIDENT_TRIGGERS!r} or "
                         f"None, not {sub_types!r}")
    for incident in incidents:
        doc_types = {typ for t in reported[incident.doc_id] for typ in t.types}
        for typ in doc_types:
            votes = template_votes.setdefault(incident.template, {})
            votes[typ] = votes.get(typ, 0) + 1
        triggers = (set(incident.sentence_triggers.values()) if sub_types == SENTENCE_TRIGGERS
                    else {incident.trigger})
        for trigger in sorted(triggers):
            key = (incident.template, trigger)
            trigger_count[key] = trigger_count.get(key, 0) + 1
            for typ in doc_types:
                votes = trigger_votes.setdefault(key, {})
                votes[typ] = votes.get(typ, 0) + 1
    types = {t: majority(v) for t, v in template_votes.items()}
    trigger_types = {}
    for key, votes in trigger_votes.items() if sub_types is not None else ():
        if trigger_count[key] >= MIN_TRIGGER_INCIDENTS and majority(votes) != types[key[0]]:
            trigger_types[key] = majority(votes)
    provisional = TemplateMap(types, trigger_types, {})
    cases = []
    for incident in incidents:
        typ = provisional.incident_type(incident.template, incident.trigger)
        golds = {role: _gold_entities(reported[incident.doc_id], typ, role) for role in ROLES}
        cases.append((incident, golds))
    return TemplateMap(types, trigger_types, _greedy_roles(cases, cells_per_role))


@dataclass(frozen=True)
class _Incident:
    """One incident of the event rows, as the map reads it: each entity's normalised text and
    the (template, slot, kind) cells of its evidence; each piece of evidence as (sentence,
    text, cell); and each sentence's own trigger, its most frequent predicate among the
    incident's mentions there (ties: the alphabetically first)."""

    doc_id: str
    template: int
    trigger: str
    entities: tuple[tuple[str, frozenset[tuple[int, int, str]]], ...]
    evidence: tuple[tuple[int, str, tuple[int, int, str]], ...]
    sentence_triggers: dict[int, str]


def _incidents(events: pd.DataFrame) -> list[_Incident]:
    out = []
    for (doc_id, _), rows in events.groupby(["doc_id", "incident"], sort=True):
        template = int(rows["template"].iloc[0])
        entities: dict[int, tuple[str, set[tuple[int, int, str]]]] = {}
        evidence = []
        predicates: dict[int, dict[str, int]] = {}
        for entity, text, kind, slot, sent, verb in zip(
                rows["entity"], rows["entity_text"], rows["entity_kind"], rows["slot"],
                rows["sent_id"], rows["predicate"], strict=True):
            entry = entities.setdefault(int(entity), (normalize_mention(str(text)), set()))
            cell = (template, int(slot), str(kind))
            entry[1].add(cell)
            if entry[0]:
                evidence.append((int(sent), entry[0], cell))
            counts = predicates.setdefault(int(sent), {})
            counts[str(verb)] = counts.get(str(verb), 0) + 1
        out.append(_Incident(
            str(doc_id), template, str(rows["trigger"].iloc[0]),
            tuple((text, frozenset(cells)) for text, cells in entities.values() if text),
            tuple(evidence),
            {sent: min(counts, key=lambda p: (-counts[p], p))
             for sent, counts in sorted(predicates.items())}))
    return out


def _gold_entities(templates: Sequence[FilledTemplate], typ: str | None, role: str
                   ) -> list[Entity]:
    out: list[Entity] = []
    for template in templates:
        if typ in template.types:
            out.extend(e for e in template.entities(role) if e not in out)
    return out


def _greedy_roles(cases: list[tuple[_Incident, dict[str, list[Entity]]]],
                  cells_per_role: int | None = None) -> dict[tuple[int, int, str], str]:
    """Step 3 of :func:`learn_template_map`."""
    seen: dict[tuple[int, int, str], list[int]] = {}
    for i, (incident, _) in enumerate(cases):
        for cell in {c for _, cells in incident.entities for c in cells}:
            seen.setdefault(cell, []).append(i)
    cells = sorted(c for c, where in seen.items() if len(where) >= MIN_CELL_INCIDENTS)
    predicted: list[dict[str, set[str]]] = [{r: set() for r in ROLES} for _ in cases]
    found: list[dict[str, set[int]]] = [{r: set() for r in ROLES} for _ in cases]
    p_num = p_den = r_num = 0
    r_den = sum(len(g) for _, golds in cases for g in golds.values())

    def f1(pn: int, pd_: int, rn: int) -> float:
        p = pn / pd_ if pd_ else 0.0
        r = rn / r_den if r_den else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0

    def gain(cell: tuple[int, int, str], role: str
             ) -> tuple[int, int, int, list[tuple[int, set[str], set[int]]]]:
        dpn = dpd = drn = 0
        changes = []
        for i in seen[cell]:
            incident, golds = cases[i]
            new = {text for text, c in incident.entities if cell in c} - predicted[i][role]
            if not new:
                continue
            gold = golds[role]
            hits = {j for j, g in enumerate(gold) if j not in found[i][role]
                    and any(entity_matches(g, (text,)) for text in new)}
            dpd += len(new)
            dpn += sum(any(entity_matches(g, (text,)) for g in gold) for text in new)
            drn += len(hits)
            changes.append((i, new, hits))
        return dpn, dpd, drn, changes

    roles: dict[tuple[int, int, str], str] = {}
    current = 0.0
    while True:
        best = None
        full = {r for r in ROLES if cells_per_role is not None
                and sum(v == r for v in roles.values()) >= cells_per_role}
        for cell in cells:
            if cell in roles:
                continue
            for role in ROLES:
                if role in full:
                    continue
                dpn, dpd, drn, changes = gain(cell, role)
                value = f1(p_num + dpn, p_den + dpd, r_num + drn)
                if best is None or value > best[0]:
                    best = (value, cell, role, dpn, dpd, drn, changes)
        if best is None or best[0] <= current + 1e-4:
            return roles
        current, cell, role, dpn, dpd, drn, changes = best
        roles[cell] = role
        p_num, p_den, r_num = p_num + dpn, p_den + dpd, r_num + drn
        for i, new, hits in changes:
            predicted[i][role] |= new
            found[i][role] |= hits


def predicted_templates(events: pd.DataFrame, template_map: TemplateMap,
                        split: bool = True,
                        split_roles: Sequence[str] = SPLIT_ROLES
                        ) -> dict[str, list[FilledTemplate]]:
    """aesi's templates of each document, from its incidents (``aesi_lib.events.incidents``)
    whose template stands for a type.

    An incident is read sentence by sentence, in two steps:

    1. **Types**: a sentence's own trigger (its most frequent predicate among the
       incident's mentions) stands for the type the map gives that sub-type, else for the
       incident's type (its trigger's): a message that reports a murder and a kidnapping in
       one incident of *attack/kill/murder* gives an attack and a kidnapping.
    2. **Victims and targets**: within one type, the sentences in text order, a sentence
       whose entities in the cells of ``split_roles`` are all new to the template read so
       far (which holds some) starts another template of that type: two attacks told one
       after the other, each with its own victims (docs/experiments/template-splits.md).

    Each template's roles are filled with the texts (normalised) of the entities whose
    evidence in its sentences lies in a cell the map gives that role, one text per entity;
    the templates of an incident come in order of their types' first sentence, then of their
    own first sentence. ``split=False`` (for experiments) reads every incident as one
    template of its type; ``split_roles=()`` (for experiments) takes step 1 only.
    """
    out: dict[str, list[FilledTemplate]] = {}
    rows = events[events["template"].isin(list(template_map.types))]
    for incident in _incidents(rows):
        main = template_map.incident_type(incident.template, incident.trigger)
        typed = {sent: (template_map.trigger_types.get((incident.template, verb), main)
                        if split else main)
                 for sent, verb in incident.sentence_triggers.items()}
        filled: dict[int, list[tuple[str, str]]] = {}
        for sent, text, cell in incident.evidence:
            role = template_map.roles.get(cell)
            if role is not None:
                filled.setdefault(sent, []).append((role, text))
        for typ in dict.fromkeys(typed.values()):
            sentences = [sent for sent in sorted(typed) if typed[sent] == typ]
            for part in _template_parts(sentences, filled, split_roles if split else ()):
                roles: dict[str, list[Entity]] = {}
                for sent in part:
                    for role, text in filled.get(sent, ()):
                        if (text,) not in roles.setdefault(role, []):
                            roles[role].append((text,))
                out.setdefault(incident.doc_id, []).append(
                    FilledTemplate((typ,), {r: tuple(e) for r, e in roles.items() if e}))
    return out


def _template_parts(sentences: Sequence[int], filled: Mapping[int, list[tuple[str, str]]],
                    split_roles: Sequence[str]) -> list[list[int]]:
    """Step 2 of :func:`predicted_templates`: ``sentences`` (in text order) in parts. A
    sentence starts a new part when it names texts in ``split_roles`` (``filled`` gives each
    sentence's (role, text) pairs), the current part names some too, and they share none."""
    parts: list[list[int]] = []
    held: set[str] = set()
    for sent in sentences:
        named = {text for role, text in filled.get(sent, ()) if role in split_roles}
        if not parts or (named and held and not named & held):
            parts.append([sent])
            held = set(named)
        else:
            parts[-1].append(sent)
            held |= named
    return parts


def template_filling(events: pd.DataFrame, assignments: pd.DataFrame,
                     eval_keys: Sequence[KeyTemplate], dev_keys: Sequence[KeyTemplate],
                     texts: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The metric of a run's events on the split of ``eval_keys``, its map learned on
    ``dev_keys``: ``{"micro", "documents", <role>..., "map"}`` (``results.json``'s
    ``template_filling``).

    Parameters
    ----------
    events : DataFrame
        The run's event rows (``aesi_lib.events.incidents.event_rows``), DEV's and the
        evaluated split's documents among them.
    assignments : DataFrame
        The run's export (for step 1 of :func:`learn_template_map`).
    """
    template_map = learn_template_map(events, assignments, dev_keys, texts)
    gold = gold_templates(eval_keys, texts)
    result = score_templates(predicted_templates(events, template_map), gold)
    return {**result.to_dict(), "map": template_map.to_dict(),
            "texts_checked": texts is not None}
