"""Scoring a run against any span-annotated corpus: roles of arguments, given by character
spans, against the induced (template, slot) cells of the run's mentions.

The format, one JSON object a line (``docs/annotations.md``)::

    {"id": "4", "arguments": [{"role": "Attacker", "start": 1259, "end": 1269,
                                "entity": "e1"}]}

``id`` is the document's id as the run knows it; ``start`` and ``end`` are character offsets
into the document's text as it was given to the run; ``entity`` (optional) names the entity an
argument refers to, so that two arguments of one entity count once. Events may group the
arguments instead, as CASIE's file does (``{"id", "events": [{"type", "subtype",
"arguments": [...]}]}``): their arguments are read the same way. Without entity ids, the
arguments of one role with the same text (lowercased, blanks collapsed) in a document are one
entity.

**A match.** A mention matches a gold argument when their spans overlap and the mention's head
lies inside the gold span (:func:`head_spans`).

**Counting**, per role, summed over documents: a role's predictions in a document are the
distinct mention spans of the cells mapped to it; one is correct when it matches an argument
of the role in the document; a gold entity is found when a prediction matches one of its
arguments. P = correct / predictions, R = found / gold entities; the micro average pools the
counts of every role, the macro average is the mean of the roles' F1.

**Mapping** (:func:`learn_cells`), on the documents of a mapping split: *single*, each role
the one cell of the best F1; *multi*, greedily the cell that raises the role's F1 most, until
none raises it by more than 1e-4 (at most :data:`MAX_CELLS`). Without a split given, the
documents are cross-fitted (:func:`cross_fitted`): mapped on one half and scored on the other,
both ways, the counts summed.

**Cells** are the run's (template, slot) pairs; two baselines are scored the same way, with
the argument position alone as the cell, and the (predicate lemma, argument position) pair.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.entities.positions import ARGUMENT_POSITIONS, argument_positions
from aesi_lib.errors import InputError
from aesi_lib.evaluate.reach import missed_kind
from aesi_lib.evaluate.template_filling import RoleCounts

#: The most cells the greedy multi-slot mapping gives a role.
MAX_CELLS = 40
#: The cell columns of the three systems :func:`score_annotations` compares.
SYSTEMS = ("aesi", "position", "predicate+position")


@dataclass(frozen=True)
class GoldArgument:
    """One annotated argument: its document, role, span, entity and event type."""

    doc_id: str
    role: str
    start: int
    end: int
    entity: str
    event_type: str = ""
    text: str = ""


def read_annotations(path: str | Path) -> list[GoldArgument]:
    """The arguments of an annotations file (module docstring).

    Raises
    ------
    InputError
        Naming the file and line of the first line that is not such an object.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read annotations: {exc}") from exc
    out: list[GoldArgument] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"line {number}: not JSON ({exc.msg}, column {exc.colno})"
                             ) from exc
        if not isinstance(record, dict) or "id" not in record:
            raise InputError(path, f"line {number}: expected an object with an 'id'")
        doc_id = str(record["id"])
        groups = [("", record.get("arguments", []))]
        for event in record.get("events", []) or []:
            if not isinstance(event, dict):
                raise InputError(path, f"line {number}: an event is not an object")
            typ = "/".join(str(event[k]) for k in ("type", "subtype") if event.get(k))
            groups.append((typ, event.get("arguments", [])))
        for typ, arguments in groups:
            for argument in arguments or []:
                out.append(_argument(argument, doc_id, typ, path, number))
    return out


def _argument(argument: Any, doc_id: str, typ: str, path: Path, number: int
              ) -> GoldArgument:
    if not isinstance(argument, dict) or not {"role", "start", "end"} <= set(argument):
        raise InputError(path, f"line {number}: an argument needs 'role', 'start' and 'end'")
    try:
        start, end = int(argument["start"]), int(argument["end"])
    except (TypeError, ValueError) as exc:
        raise InputError(path, f"line {number}: 'start' and 'end' must be integers") from exc
    if not 0 <= start < end:
        raise InputError(path, f"line {number}: the span [{start}, {end}) is empty or negative")
    role = str(argument["role"])
    text = str(argument.get("text", ""))
    entity = argument.get("entity")
    if entity is None:
        entity = f"{role}|{' '.join((text or f'{start}:{end}').lower().split())}"
    return GoldArgument(doc_id, role, start, end, str(entity), typ, text)


def head_spans(assignments: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The character span of each mention's head in the document's text: where the mention's
    phrase (``phrase``, its words joined by any blanks) ends inside the mention, the head
    being the phrase's last word; the mention's own span when the export has no phrase or
    the phrase is not found.

    Returns
    -------
    (ndarray, ndarray) of int64, shape (E,)
    """
    starts = assignments["start_char"].to_numpy(dtype=np.int64).copy()
    ends = assignments["end_char"].to_numpy(dtype=np.int64).copy()
    if "phrase" not in assignments.columns:
        return starts, ends
    for i, (mention, phrase, head, start) in enumerate(zip(
            assignments["mention"].astype(str), assignments["phrase"].astype(str),
            assignments["head"].astype(str), starts, strict=True)):
        words = phrase.split()
        if start < 0 or not words:
            continue
        found = re.search(r"\s*".join(map(re.escape, words)), mention)
        if found is None:
            found = re.search(re.escape(head), mention)
        if found is not None:
            starts[i], ends[i] = start + found.end() - len(head), start + found.end()
    return starts, ends


Span = tuple[str, int, int]


@dataclass
class MatchIndex:
    """Which gold entities each mention span matches, and which spans each cell holds under
    every system; built once (:func:`match_index`) and scored under any map."""

    #: Per document: role -> its gold entities.
    gold: dict[str, dict[str, set[str]]]
    #: Per (document, start, end) of a mention: role -> the gold entities it matches.
    matches: dict[Span, dict[str, frozenset[str]]]
    #: Per system: cell -> the spans of its mentions.
    cells: dict[str, dict[Hashable, list[Span]]]
    roles: tuple[str, ...] = field(default_factory=tuple)

    def counts(self, system: str, cells: Mapping[str, Iterable[Hashable]],
               doc_ids: Iterable[str]) -> dict[str, RoleCounts]:
        """Each role's counts over ``doc_ids`` when role ``r`` takes the mentions whose
        ``system`` cell is in ``cells[r]``: correct and all predictions (``p_num``,
        ``p_den``), found and all gold entities (``r_num``, ``r_den``)."""
        docs = set(doc_ids)
        out = {role: RoleCounts() for role in self.roles}
        for doc_id in docs:
            for role, entities in self.gold.get(doc_id, {}).items():
                out[role].r_den += len(entities)
        for role, chosen in cells.items():
            tally = _Tally(role, self.matches)
            for cell in chosen:
                tally.take([s for s in self.cells[system].get(cell, ()) if s[0] in docs])
            tally.into(out[role])
        return out

    def ceiling(self, doc_ids: Iterable[str]) -> dict[str, float]:
        """Per role, the share of gold entities that some mention of the document matches."""
        docs = set(doc_ids)
        reached: dict[str, set[tuple[str, str]]] = {}
        for span, matched in self.matches.items():
            if span[0] in docs:
                for role, entities in matched.items():
                    reached.setdefault(role, set()).update((span[0], e) for e in entities)
        out = {}
        for role in self.roles:
            total = sum(len(self.gold.get(d, {}).get(role, ())) for d in docs)
            out[role] = len(reached.get(role, ())) / total if total else 0.0
        return out


class _Tally:
    """One role's predictions as cells are added: the spans taken, how many match, and the
    (document, entity) pairs found."""

    def __init__(self, role: str, matches: Mapping[Span, Mapping[str, frozenset[str]]]):
        self.role, self.matches = role, matches
        self.spans: set[Span] = set()
        self.correct = 0
        self.found: set[tuple[str, str]] = set()

    def gain(self, spans: Iterable[Span]) -> tuple[int, int, int]:
        """(new predictions, new correct ones, new found entities) of taking ``spans``."""
        new = set(spans) - self.spans
        hits = [(s, self.matches.get(s, {}).get(self.role, frozenset())) for s in new]
        found = {(s[0], e) for s, entities in hits for e in entities} - self.found
        return len(new), sum(1 for _, entities in hits if entities), len(found)

    def take(self, spans: Iterable[Span]) -> None:
        for span in set(spans) - self.spans:
            self.spans.add(span)
            entities = self.matches.get(span, {}).get(self.role, frozenset())
            if entities:
                self.correct += 1
                self.found.update((span[0], e) for e in entities)

    def into(self, counts: RoleCounts) -> None:
        counts.p_den += len(self.spans)
        counts.p_num += self.correct
        counts.r_num += len(self.found)


def match_index(assignments: pd.DataFrame, gold: Sequence[GoldArgument]) -> MatchIndex:
    """The :class:`MatchIndex` of an export (``doc_id``, ``template``, ``slot``,
    ``predicate``, ``dep``, ``start_char``, ``end_char``, ``head``, ``mention`` and, for the
    head's span, ``phrase``) against the gold arguments; documents of the export without
    annotations are left out, annotated documents without mentions count their gold."""
    by_doc: dict[str, list[GoldArgument]] = {}
    for argument in gold:
        by_doc.setdefault(argument.doc_id, []).append(argument)
    index_gold = {d: _entities_by_role(args) for d, args in by_doc.items()}
    rows = assignments[assignments["doc_id"].astype(str).isin(set(by_doc))]
    head_start, head_end = head_spans(rows)
    positions = argument_positions(rows["dep"].astype(str).tolist())
    matches: dict[Span, dict[str, frozenset[str]]] = {}
    cells: dict[str, dict[Hashable, list[Span]]] = {system: {} for system in SYSTEMS}
    for i, (doc_id, template, slot, predicate, start, end) in enumerate(zip(
            rows["doc_id"].astype(str), rows["template"], rows["slot"],
            rows["predicate"].astype(str), rows["start_char"], rows["end_char"],
            strict=True)):
        span = (doc_id, int(start), int(end))
        if span not in matches:
            matched: dict[str, set[str]] = {}
            for argument in by_doc[doc_id]:
                if (start < argument.end and argument.start < end
                        and argument.start <= head_start[i] and head_end[i] <= argument.end):
                    matched.setdefault(argument.role, set()).add(argument.entity)
            matches[span] = {r: frozenset(e) for r, e in matched.items()}
        position = ARGUMENT_POSITIONS[int(positions[i])]
        for system, cell in (("aesi", (int(template), int(slot))), ("position", position),
                             ("predicate+position", (predicate, position))):
            cells[system].setdefault(cell, []).append(span)
    roles = tuple(sorted({a.role for a in gold}))
    return MatchIndex(index_gold, matches, cells, roles)


def _entities_by_role(arguments: Iterable[GoldArgument]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for argument in arguments:
        out.setdefault(argument.role, set()).add(argument.entity)
    return out


def learn_cells(index: MatchIndex, system: str, doc_ids: Sequence[str], multi: bool
                ) -> dict[str, list[Hashable]]:
    """Each role's cells on the documents ``doc_ids`` (module docstring, "Mapping"): the one
    of the best F1 (ties: the first in the order of ``repr``), or greedily several with
    ``multi``."""
    docs = set(doc_ids)
    spans = {cell: [s for s in held if s[0] in docs]
             for cell, held in index.cells[system].items()}
    candidates = sorted((c for c, held in spans.items() if held), key=repr)
    out: dict[str, list[Hashable]] = {}
    for role in index.roles:
        gold = sum(len(index.gold.get(d, {}).get(role, ())) for d in docs)
        tally = _Tally(role, index.matches)
        chosen: list[Hashable] = []
        current = 0.0
        while gold and len(chosen) < (MAX_CELLS if multi else 1):
            best, best_f1 = None, current
            for cell in candidates:
                if cell in chosen:
                    continue
                new, correct, found = tally.gain(spans[cell])
                f1 = _f1(tally.correct + correct, len(tally.spans) + new,
                         len(tally.found) + found, gold)
                if f1 > best_f1 + 1e-4:
                    best, best_f1 = cell, f1
            if best is None:
                break
            chosen.append(best)
            tally.take(spans[best])
            current = best_f1
        out[role] = chosen
    return out


def _f1(correct: int, predicted: int, found: int, gold: int) -> float:
    p = correct / predicted if predicted else 0.0
    r = found / gold if gold else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def cross_fitted(index: MatchIndex, system: str, multi: bool,
                 halves: tuple[Sequence[str], Sequence[str]] | None = None
                 ) -> dict[str, RoleCounts]:
    """The counts of each role mapped on one half of the annotated documents and scored on
    the other, both ways, summed; the halves are the documents in id order, alternately,
    unless given."""
    if halves is None:
        ids = sorted(index.gold, key=_natural)
        halves = (ids[0::2], ids[1::2])
    total = {role: RoleCounts() for role in index.roles}
    for learn_on, score_on in (halves, halves[::-1]):
        cells = learn_cells(index, system, learn_on, multi)
        for role, counts in index.counts(system, cells, score_on).items():
            total[role].add(counts)
    return total


def _natural(doc_id: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", doc_id))


def summary(counts: Mapping[str, RoleCounts], least_gold: int = 0) -> dict[str, Any]:
    """Per-role figures, and the micro and macro averages over the roles with at least
    ``least_gold`` gold entities."""
    kept = {r: c for r, c in counts.items() if c.r_den >= least_gold}
    micro = RoleCounts()
    for c in kept.values():
        micro.add(c)
    macro = float(np.mean([c.f1 for c in kept.values()])) if kept else 0.0
    return {"roles": {r: c.to_dict() for r, c in counts.items()},
            "micro": micro.to_dict(), "macro_f1": macro, "roles_averaged": sorted(kept)}


def missed_kinds(assignments: pd.DataFrame, gold: Sequence[GoldArgument]) -> pd.DataFrame:
    """The gold entities no mention of the run matches, by role and by what they are
    (:func:`aesi_lib.evaluate.reach.missed_kind` of the text of the entity's first argument):
    a pronoun; a number, a quantifier or an amount (a digit or a currency sign); inside a
    mention whose head lies outside it (*Windows* in *Windows users*, a possessor); or where
    no mention is at all (not an argument of a verb the entity rules read).

    Returns
    -------
    DataFrame
        ``role``, ``kind``, ``entities``, one row per pair with at least one.
    """
    index = match_index(assignments, gold)
    reached = {(span[0], role, e) for span, matched in index.matches.items()
               for role, entities in matched.items() for e in entities}
    rows = assignments[assignments["doc_id"].astype(str).isin(index.gold)]
    spans: dict[str, list[tuple[int, int]]] = {}
    for doc_id, start, end in zip(rows["doc_id"].astype(str), rows["start_char"],
                                  rows["end_char"], strict=True):
        spans.setdefault(doc_id, []).append((int(start), int(end)))
    seen: set[tuple[str, str, str]] = set()
    counts: dict[tuple[str, str], int] = {}
    for argument in gold:
        key = (argument.doc_id, argument.role, argument.entity)
        if key in reached or key in seen:
            continue
        seen.add(key)
        kind = missed_kind(argument.text, any(
            start < argument.end and argument.start < end
            for start, end in spans.get(argument.doc_id, [])))
        counts[(argument.role, kind)] = counts.get((argument.role, kind), 0) + 1
    return pd.DataFrame([(r, k, n) for (r, k), n in sorted(counts.items())],
                        columns=["role", "kind", "entities"])


def score_annotations(assignments: pd.DataFrame, gold: Sequence[GoldArgument],
                      least_gold: int = 0) -> dict[str, Any]:
    """Every figure of the module docstring: for aesi's cells and the two baselines, single-
    and multi-slot mappings, cross-fitted; and the recall ceiling per role.

    Returns
    -------
    dict
        ``{"documents", "gold_arguments", "ceiling": {role: share}, "missed": [{"role",
        "kind", "entities"}], "<system>/<single|multi>": summary}`` (:func:`summary`,
        :func:`missed_kinds`).
    """
    index = match_index(assignments, gold)
    out: dict[str, Any] = {"documents": len(index.gold), "gold_arguments": len(gold),
                           "ceiling": index.ceiling(index.gold),
                           "missed": missed_kinds(assignments, gold).to_dict("records")}
    for system in SYSTEMS:
        for multi in (False, True):
            counts = cross_fitted(index, system, multi)
            out[f"{system}/{'multi' if multi else 'single'}"] = summary(counts, least_gold)
    return out
