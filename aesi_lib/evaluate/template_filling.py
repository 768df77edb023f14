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
into such templates by a map learned on DEV's keys (:mod:`aesi_lib.evaluate.incident_map`).

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
from scipy.optimize import linear_sum_assignment

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.evaluate.gold import key_message_ids

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


def entity_matches(gold: Entity, predicted: Entity) -> bool:
    """Whether a predicted entity matches a gold one: every one of its strings is one of the
    gold entity's (both normalised)."""
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
        correct = sum(any(entity_matches(g, p) for g in golds) for p in preds)
        found = sum(any(entity_matches(g, p) for p in preds) for g in golds)
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
