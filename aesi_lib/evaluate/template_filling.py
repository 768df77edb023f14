"""The document-level template-filling metric of recent MUC-4 work (GTT, IterX).

Supervised template fillers output, per document, a list of templates, each an incident type
with the entities that fill five roles: PerpInd, PerpOrg, Target, Victim and Weapon. Their
metric, as GTT's evaluation (Du et al., 2021) defines it and IterX (Chen et al., 2023) reuses:

* **Gold** (:func:`gold_templates`): every key template with an incident type (all six MUC-4
  types, slash types kept whole, e.g. ``attack / bombing``); PerpInd = ``PERP: INDIVIDUAL ID``
  (slot 9), PerpOrg = ``PERP: ORGANIZATION ID`` (10), Target = ``PHYS TGT: ID`` (12), Victim =
  ``HUM TGT: NAME`` (18) and Weapon = ``INCIDENT: INSTRUMENT ID`` (6); each filler line is one
  entity, its alternatives its mention strings; optional fillers and templates count as
  others do; alternatives that do not occur in the document's text are dropped, and an entity
  left with none; identical templates of a document count once.
* **Strings** are compared after :func:`normalize_mention`: lowercased, punctuation and the
  articles *a*, *an*, *the* removed, whitespace collapsed. A predicted entity matches a gold
  entity when every one of its strings is one of the gold entity's.
* **Alignment** (:func:`align_document`): per document, the one-to-one partial mapping of
  predicted to gold templates with the highest micro-F1. Only templates whose types agree can
  be aligned (the predicted type is one of the gold template's types). An aligned pair counts
  its incident type as correct, each predicted entity matching a gold entity of its role in
  the aligned template as a correct prediction, and each gold entity some predicted entity
  matches as found; unaligned predicted templates count all their entities (and their type)
  as wrong, unaligned gold templates all theirs as missed.
* **Score** (:func:`score_templates`): the counts summed over documents, per role and
  micro-averaged over the roles *and the incident type*, as GTT's micro average is.

aesi induces templates without supervision, so its incidents (``aesi_lib.events``) are turned
into such templates by a map learned on DEV's keys (:func:`learn_template_map`,
:func:`predicted_templates`): which templates stand for a type and which sub-types for
another, and which slots fill each role.

References
----------
.. [1] X. Du, A. Rush and C. Cardie, "Template Filling with Generative Transformers",
   NAACL 2021, pp. 909-914 (GTT; its evaluation script, ``eval.py``).
.. [2] Y. Chen, W. Gantt, W. Gu, T. Chen, A. S. White and B. Van Durme, "Iterative
   Document-level Information Extraction via Imitation Learning", EACL 2023 (IterX, which
   scores MUC-4 with GTT's script).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.evaluate.gold import EVENT_TYPES, key_message_ids

#: The five roles, and the key slot whose fillers are each role's gold entities.
ROLE_KEY_SLOTS: dict[str, int] = {"PerpInd": 9, "PerpOrg": 10, "Target": 12, "Victim": 18,
                                  "Weapon": 6}
ROLES: tuple[str, ...] = tuple(ROLE_KEY_SLOTS)
#: The incident type, counted as a sixth role in the micro average.
TYPE_ROLE = "incident_type"
#: Above this many one-to-one partial mappings of one document, the alignment is the linear
#: assignment of each pair's contribution instead of an exhaustive search (see
#: :func:`align_document`).
EXHAUSTIVE_MAPPINGS = 50_000

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)

Entity = tuple[str, ...]


def normalize_mention(text: str) -> str:
    """A mention string as the metric compares it: lowercased, punctuation and the articles
    removed, whitespace collapsed (``"The  F.M.L.N.'s"`` -> ``"fmlns"``)."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


@dataclass(frozen=True)
class FilledTemplate:
    """One template of a document: its incident types (one for a prediction; the gold
    template's types, ``("attack", "bombing")`` for ``ATTACK / BOMBING``) and, per role, its
    entities, each a tuple of normalised mention strings."""

    types: tuple[str, ...]
    roles: dict[str, tuple[Entity, ...]] = field(default_factory=dict)

    def entities(self, role: str) -> tuple[Entity, ...]:
        return self.roles.get(role, ())


def _matches(gold: Entity, predicted: Entity) -> bool:
    return all(m in gold for m in predicted)


def gold_templates(keys: Sequence[KeyTemplate], texts: Mapping[str, str] | None = None
                   ) -> dict[str, list[FilledTemplate]]:
    """The gold templates of every message of ``keys`` (see the module docstring).

    Parameters
    ----------
    keys : sequence of KeyTemplate
    texts : mapping of str to str, optional
        Each message's text: alternatives that do not occur in it (both normalised) are
        dropped, as GTT's preprocessing drops them. None keeps every alternative.

    Returns
    -------
    dict
        ``{message id: [FilledTemplate, ...]}`` for every message of the keys, an empty list
        for a message with no relevant incident.
    """
    out: dict[str, list[FilledTemplate]] = {m: [] for m in key_message_ids(keys)}
    normalised_texts = {d: f" {normalize_mention(t)} " for d, t in (texts or {}).items()}
    for template in keys:
        if template.is_irrelevant or not template.incident_types:
            continue
        text = normalised_texts.get(template.message_id)
        roles = {}
        for role, slot in ROLE_KEY_SLOTS.items():
            entities = []
            for filler in template.slots.get(slot, ()):
                strings = tuple(dict.fromkeys(
                    s for s in (normalize_mention(a) for a in filler.alternatives)
                    if s and (text is None or f" {s} " in text)))
                if strings:
                    entities.append(strings)
            roles[role] = tuple(entities)
        filled = FilledTemplate(tuple(t.lower() for t in template.incident_types), roles)
        if filled not in out[template.message_id]:
            out[template.message_id].append(filled)
    return out


@dataclass
class RoleCounts:
    """Counts of one role: correct and all predictions, found and all gold entities."""

    p_num: int = 0
    p_den: int = 0
    r_num: int = 0
    r_den: int = 0

    def add(self, other: RoleCounts) -> None:
        self.p_num += other.p_num
        self.p_den += other.p_den
        self.r_num += other.r_num
        self.r_den += other.r_den

    @property
    def precision(self) -> float:
        return self.p_num / self.p_den if self.p_den else 0.0

    @property
    def recall(self) -> float:
        return self.r_num / self.r_den if self.r_den else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, float]:
        return {"p": self.precision, "r": self.recall, "f1": self.f1, "p_num": self.p_num,
                "p_den": self.p_den, "r_num": self.r_num, "r_den": self.r_den}


def _totals(counts: Mapping[str, RoleCounts]) -> RoleCounts:
    total = RoleCounts()
    for role in (TYPE_ROLE, *ROLES):
        total.add(counts[role])
    return total


def _pair_counts(pred: FilledTemplate, gold: FilledTemplate) -> dict[str, tuple[int, int]]:
    """Correct predictions and found gold entities of each role when ``pred`` is aligned
    with ``gold``."""
    out = {TYPE_ROLE: (1, 1)}
    for role in ROLES:
        golds, preds = gold.entities(role), pred.entities(role)
        correct = sum(any(_matches(g, p) for g in golds) for p in preds)
        found = sum(any(_matches(g, p) for p in preds) for g in golds)
        out[role] = (correct, found)
    return out


def _compatible(pred: FilledTemplate, gold: FilledTemplate) -> bool:
    return pred.types[0] in gold.types


def _injective_maps(allowed: list[list[int]]) -> Iterable[tuple[int, ...]]:
    """Every one-to-one partial mapping: for prediction ``i`` a gold index of ``allowed[i]``
    or -1 (unaligned), no gold index used twice; for each prediction in turn, -1 first, then
    the gold indices in order."""
    def extend(i: int, used: frozenset[int]) -> Iterable[tuple[int, ...]]:
        if i == len(allowed):
            yield ()
            return
        for rest in extend(i + 1, used):
            yield (-1, *rest)
        for j in allowed[i]:
            if j not in used:
                for rest in extend(i + 1, used | {j}):
                    yield (j, *rest)
    return extend(0, frozenset())


def _mapping_bound(allowed: list[list[int]]) -> float:
    """An upper bound of how many mappings :func:`_injective_maps` enumerates."""
    return float(np.prod([len(a) + 1 for a in allowed], dtype=float))


def align_document(pred: Sequence[FilledTemplate], gold: Sequence[FilledTemplate]
                   ) -> tuple[dict[str, RoleCounts], tuple[int, ...]]:
    """The counts of one document under its best alignment (see the module docstring).

    Parameters
    ----------
    pred, gold : sequences of FilledTemplate
        The document's predicted and gold templates.

    Returns
    -------
    counts : dict of str to RoleCounts
        Per role and for the incident type.
    mapping : tuple of int
        For each predicted template its gold template, -1 when unaligned.

    Notes
    -----
    The denominators do not depend on the alignment, and an aligned pair adds to the numerators
    only; so the micro-F1 rises with both numerator sums. Up to :data:`EXHAUSTIVE_MAPPINGS`
    candidate mappings are searched exhaustively, ties going to the first in the order that
    tries, for each prediction in turn, no gold template before the gold templates in order;
    beyond that (never on MUC-4's documents with aesi's predictions) the linear assignment of
    each pair's contribution to the micro numerators, relative to their denominators, is
    used.
    """
    counts = {role: RoleCounts() for role in (TYPE_ROLE, *ROLES)}
    for templates, side in ((pred, "p_den"), (gold, "r_den")):
        for template in templates:
            setattr(counts[TYPE_ROLE], side, getattr(counts[TYPE_ROLE], side) + 1)
            for role in ROLES:
                setattr(counts[role], side, getattr(counts[role], side)
                        + len(template.entities(role)))
    allowed = [[j for j, g in enumerate(gold) if _compatible(p, g)] for p in pred]
    pairs = {(i, j): _pair_counts(pred[i], gold[j]) for i, js in enumerate(allowed) for j in js}
    if not pairs:
        return counts, tuple(-1 for _ in pred)
    p_den = sum(c.p_den for c in counts.values())
    r_den = sum(c.r_den for c in counts.values())

    def micro_f1(mapping: tuple[int, ...]) -> float:
        p = sum(sum(pairs[(i, j)][r][0] for r in pairs[(i, j)])
                for i, j in enumerate(mapping) if j >= 0)
        r = sum(sum(pairs[(i, j)][role][1] for role in pairs[(i, j)])
                for i, j in enumerate(mapping) if j >= 0)
        prec, rec = p / p_den, r / r_den
        return 2 * prec * rec / (prec + rec) if prec + rec else 0.0

    if _mapping_bound(allowed) <= EXHAUSTIVE_MAPPINGS:
        best, best_f1 = None, -1.0
        for mapping in _injective_maps(allowed):
            value = micro_f1(mapping)
            if value > best_f1:
                best, best_f1 = mapping, value
        mapping = best if best is not None else tuple(-1 for _ in pred)
    else:
        weight = np.zeros((len(pred), len(gold)))
        for (i, j), c in pairs.items():
            weight[i, j] = (sum(v[0] for v in c.values()) / p_den
                            + sum(v[1] for v in c.values()) / r_den)
        rows, cols = linear_sum_assignment(-weight)
        chosen = dict(zip(rows.tolist(), cols.tolist(), strict=True))
        mapping = tuple(chosen[i] if i in chosen and (i, chosen[i]) in pairs else -1
                        for i in range(len(pred)))
    for i, j in enumerate(mapping):
        if j >= 0:
            for role, (correct, found) in pairs[(i, j)].items():
                counts[role].p_num += correct
                counts[role].r_num += found
    return counts, mapping


@dataclass
class TemplateFillingResult:
    """The metric over a split: counts per role and for the incident type, and their micro
    average (:attr:`micro`)."""

    roles: dict[str, RoleCounts]
    documents: int

    @property
    def micro(self) -> RoleCounts:
        return _totals(self.roles)

    def to_dict(self) -> dict[str, Any]:
        return {"micro": self.micro.to_dict(), "documents": self.documents,
                **{role: c.to_dict() for role, c in self.roles.items()}}


def score_templates(pred: Mapping[str, Sequence[FilledTemplate]],
                    gold: Mapping[str, Sequence[FilledTemplate]]) -> TemplateFillingResult:
    """The metric of the documents of ``gold``: each aligned on its own
    (:func:`align_document`), the counts summed; a document without predictions has none."""
    total = {role: RoleCounts() for role in (TYPE_ROLE, *ROLES)}
    for doc_id, templates in gold.items():
        counts, _ = align_document(list(pred.get(doc_id, ())), list(templates))
        for role, c in counts.items():
            total[role].add(c)
    return TemplateFillingResult(total, len(gold))


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
        type: (19, "kidnap") -> "kidnapping".
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


#: The least DEV incidents of a (template, trigger) sub-type for the map to give it a type of
#: its own.
MIN_TRIGGER_INCIDENTS = 5
#: The least DEV incidents in which a (template, slot, kind) cell holds an entity for the map
#: to consider it for a role.
MIN_CELL_INCIDENTS = 5


def learn_template_map(events: pd.DataFrame, assignments: pd.DataFrame,
                       dev_keys: Sequence[KeyTemplate],
                       texts: Mapping[str, str] | None = None, sub_types: bool = True,
                       cells_per_role: int | None = None) -> TemplateMap:
    """The map of :class:`TemplateMap`, from DEV's keys, in three steps:

    1. **Templates**: the template each incident type chooses by steps 1 and 2 of
       evaluation.md (lenient, on the mentions of ``assignments``) stands for a type.
    2. **Types**: each such template's type is the type most DEV documents with one of its
       incidents report (ties: the first of :data:`EVENT_TYPES`' order, then the rest
       alphabetically); a (template, trigger) sub-type with at least
       :data:`MIN_TRIGGER_INCIDENTS` incidents in DEV documents that report one takes the
       type most of those report, where it differs.
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
    sub_types : bool
        Step 2 gives sub-types types of their own (False: every incident of a template takes
        the template's type; for experiments).
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
    for incident in incidents:
        doc_types = {typ for t in reported[incident.doc_id] for typ in t.types}
        key = (incident.template, incident.trigger)
        trigger_count[key] = trigger_count.get(key, 0) + 1
        for typ in doc_types:
            votes = template_votes.setdefault(incident.template, {})
            votes[typ] = votes.get(typ, 0) + 1
            votes = trigger_votes.setdefault(key, {})
            votes[typ] = votes.get(typ, 0) + 1
    types = {t: majority(v) for t, v in template_votes.items()}
    trigger_types = {}
    for key, votes in trigger_votes.items() if sub_types else ():
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
        sent_ids = rows["sent_id"] if "sent_id" in rows else [0] * len(rows)
        verbs = rows["predicate"] if "predicate" in rows else [""] * len(rows)
        for entity, text, kind, slot, sent, verb in zip(
                rows["entity"], rows["entity_text"], rows["entity_kind"], rows["slot"],
                sent_ids, verbs, strict=True):
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
                    and any(_matches(g, (text,)) for text in new)}
            dpd += len(new)
            dpn += sum(any(_matches(g, (text,)) for g in gold) for text in new)
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
                        split: bool = True) -> dict[str, list[FilledTemplate]]:
    """aesi's templates of each document, from its incidents (``aesi_lib.events.incidents``)
    whose template stands for a type.

    An incident is read sentence by sentence: a sentence's own trigger (its most frequent
    predicate among the incident's mentions) stands for the type the map gives that
    sub-type, else for the incident's type (its trigger's). The incident becomes one
    predicted template per type its sentences stand for, in order of their first sentence
    (one, mostly), each role filled with the texts (normalised) of the entities whose
    evidence in those sentences lies in a cell the map gives that role, one text per entity:
    a message that reports a murder and a kidnapping in one incident of
    *attack/kill/murder* gives an attack and a kidnapping. ``split=False`` (for
    experiments) reads every incident as one template of its type."""
    out: dict[str, list[FilledTemplate]] = {}
    rows = events[events["template"].isin(list(template_map.types))]
    for incident in _incidents(rows):
        main = template_map.incident_type(incident.template, incident.trigger)
        typed = {sent: (template_map.trigger_types.get((incident.template, verb), main)
                        if split else main)
                 for sent, verb in incident.sentence_triggers.items()}
        for typ in dict.fromkeys(typed.values()):
            roles: dict[str, list[Entity]] = {}
            for sent, text, cell in incident.evidence:
                role = template_map.roles.get(cell)
                if role is not None and typed[sent] == typ and (text,) not in roles.setdefault(
                        role, []):
                    roles[role].append((text,))
            out.setdefault(incident.doc_id, []).append(
                FilledTemplate((typ,), {r: tuple(e) for r, e in roles.items() if e}))
    return out


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
