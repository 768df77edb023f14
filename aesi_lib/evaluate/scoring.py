"""Counting, scores and the ``evaluate`` entry point (evaluation.md, "Counting", "Mapping",
"What to report").

Speed matters because sweeps call :func:`evaluate` many times. The system output is reduced
once to compact integer arrays:

* a *guess* is a distinct (message, lowercased head) pair; a *pair* is a distinct
  (guess, role) with role = ``template * n_slots + slot``;
* per gold slot (and per type view, for the mapping search) the (role, gold entity) pairs where
  a guess of the role matches the entity, and the (role, guess) pairs whose guess matches no
  gold entity of its message and slot.

Any mapping is then scored by selecting rows of these arrays: TP = distinct matched entities,
FN = non-optional entities not among them, FP = distinct unmatched guesses.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.errors import InputError
from aesi_lib.evaluate.gold import (
    EVENT_TYPES,
    GOLD_SLOTS,
    TYPE_GOLD_SLOTS,
    Gold,
    GoldEntity,
    extract_gold,
    key_message_ids,
    relevant_message_ids,
)
from aesi_lib.evaluate.mapping import (
    MappingTriple,
    prune_mapping,
    sort_mapping,
    type_mappings,
    union_mapping,
)
from aesi_lib.evaluate.matching import MATCHERS, MatcherName, guess_token, match_keys

#: Columns of the export format (evaluation.md, "Export format").
ASSIGNMENT_COLUMNS: tuple[str, ...] = (
    "doc_id",
    "sent_id",
    "entity_id",
    "head",
    "mention",
    "predicate",
    "dep",
    "template",
    "slot",
)
#: The columns the scorer reads.
SCORED_COLUMNS: tuple[str, ...] = ("doc_id", "head", "template", "slot")

MAPPING_MODES: tuple[str, ...] = ("test-mapped", "dev-mapped")
ALL_VIEW = "all"

#: Published rows of evaluation.md ("What to report"): (system, P, R, F1).
PUBLISHED_RESULTS: tuple[tuple[str, float, float, float], ...] = (
    ("Chambers & Jurafsky 2011", 0.48, 0.25, 0.33),
    ("Cheung et al. 2013", 0.32, 0.37, 0.34),
    ("Chambers 2013", 0.41, 0.41, 0.41),
    ("Nguyen et al. 2015", 0.36, 0.54, 0.43),
    ("Sha et al. 2016 -SC", 0.38, 0.68, 0.49),
    ("Sha et al. 2016", 0.39, 0.70, 0.50),
)


# --------------------------------------------------------------------------------------------
# Scores


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from pooled counts (evaluation.md, "Counting").

    Parameters
    ----------
    tp, fp, fn : int

    Returns
    -------
    (float, float, float)
        P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2PR/(P+R); each is 0 when its denominator is.
    """
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, f1_score(tp, fp, fn)


def f1_score(tp: int | np.ndarray, fp: int | np.ndarray, fn: int | np.ndarray) -> Any:
    """F1 = 2PR/(P+R) written as 2TP/(2TP+FP+FN) (equal, and defined as 0 when TP = 0).

    Parameters
    ----------
    tp, fp, fn : int or numpy.ndarray

    Returns
    -------
    float or numpy.ndarray
    """
    tp_a, fp_a, fn_a = np.asarray(tp), np.asarray(fp), np.asarray(fn)
    den = 2 * tp_a + fp_a + fn_a
    out = np.where(tp_a > 0, 2 * tp_a / np.maximum(den, 1), 0.0)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class Counts:
    """TP / FP / FN of one message and slot, or pooled."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float:
        return prf(self.tp, self.fp, self.fn)[0]

    @property
    def recall(self) -> float:
        return prf(self.tp, self.fp, self.fn)[1]

    @property
    def f1(self) -> float:
        return prf(self.tp, self.fp, self.fn)[2]

    def as_dict(self) -> dict[str, float | int]:
        p, r, f = prf(self.tp, self.fp, self.fn)
        return {"precision": p, "recall": r, "f1": f, "tp": self.tp, "fp": self.fp, "fn": self.fn}


@lru_cache(maxsize=100_000)
def _entity_keys(alternatives: tuple[str, ...], matcher: MatcherName) -> frozenset[str]:
    return match_keys(alternatives, matcher)


def count_message_slot(
    guesses: Iterable[str], entities: Sequence[GoldEntity], matcher: MatcherName = "lenient"
) -> Counts:
    """TP / FP / FN of one message and gold slot (evaluation.md, "Counting").

    This is the direct reading of the protocol; :func:`evaluate` computes the same numbers on
    compact arrays, and the tests check one against the other.

    Parameters
    ----------
    guesses : iterable of str
        Head words of the mentions whose role is mapped to the slot; duplicates (after
        lowercasing) count once.
    entities : sequence of GoldEntity
        The message's merged gold entities of the slot.
    matcher : {"lenient", "strict"}

    Returns
    -------
    Counts
        TP = entities matched by at least one guess; FN = non-optional entities matched by no
        guess; FP = guesses that match no entity.
    """
    distinct = {h.strip().lower() for h in guesses if h and h.strip()}
    keys = [_entity_keys(e.alternatives, matcher) for e in entities]
    matched = [False] * len(entities)
    fp = 0
    for h in distinct:
        tok = guess_token(h)
        hit = False
        for i, k in enumerate(keys):
            if tok and tok in k:
                matched[i] = hit = True
        fp += not hit
    tp = sum(matched)
    fn = sum(1 for e, m in zip(entities, matched, strict=True) if not m and not e.optional)
    return Counts(tp, fp, fn)


# --------------------------------------------------------------------------------------------
# System output


def read_assignments(path: str | Path) -> pd.DataFrame:
    """Read an exported ``assignments.csv`` / ``.parquet`` (evaluation.md, "Export format").

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InputError
        When the file cannot be read or lacks a scored column.
    """
    path = Path(path)
    try:
        if path.suffix == ".parquet":
            df = pd.read_parquet(path)
        else:
            df = pd.read_csv(path, dtype={"doc_id": str, "head": str}, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise InputError(path, f"cannot read assignments: {exc}") from exc
    _check_columns(df, path)
    return df


def _check_columns(df: pd.DataFrame, where: str | Path = "assignments") -> None:
    missing = [c for c in SCORED_COLUMNS if c not in df.columns]
    if missing:
        raise InputError(where, f"missing column(s) {missing}; expected {ASSIGNMENT_COLUMNS}")


def role_shape(assignments: pd.DataFrame) -> tuple[int, int]:
    """``(n_templates, n_slots)`` of a system output: one more than the largest index.

    Parameters
    ----------
    assignments : pandas.DataFrame

    Returns
    -------
    (int, int)
    """
    _check_columns(assignments)
    if len(assignments) == 0:
        return 0, 0
    t = pd.to_numeric(assignments["template"]).to_numpy()
    s = pd.to_numeric(assignments["slot"]).to_numpy()
    if (t < 0).any() or (s < 0).any():
        raise InputError("assignments", "template and slot must be non-negative integers")
    return int(t.max()) + 1, int(s.max()) + 1


@dataclass(frozen=True)
class GuessIndex:
    """The system output of the scored messages as integer arrays (see module docstring)."""

    doc_ids: tuple[str, ...]
    n_templates: int
    n_slots: int
    guess_doc: np.ndarray  # per guess: index into doc_ids
    guess_code: np.ndarray  # per guess: index into tokens, -1 for an empty token
    tokens: tuple[str, ...]
    pair_guess: np.ndarray  # per distinct (guess, role)
    pair_role: np.ndarray

    @property
    def n_roles(self) -> int:
        return self.n_templates * self.n_slots


def index_guesses(
    assignments: pd.DataFrame, doc_ids: Sequence[str], shape: tuple[int, int]
) -> GuessIndex:
    """Reduce the system output of ``doc_ids`` to guesses and (guess, role) pairs.

    Implements evaluation.md, "System output": a guess is the lowercased head word; rows of
    other messages are ignored.

    Parameters
    ----------
    assignments : pandas.DataFrame
        Export columns; ``doc_id``, ``head``, ``template``, ``slot`` are read.
    doc_ids : sequence of str
        The scored messages.
    shape : (int, int)
        ``(n_templates, n_slots)`` of the whole output, so role numbers agree across splits.

    Returns
    -------
    GuessIndex
    """
    _check_columns(assignments)
    n_t, n_s = shape
    docs = tuple(doc_ids)
    position = {d: i for i, d in enumerate(docs)}
    # Factorising first keeps the string work to the few distinct message IDs.
    codes, uniq = pd.factorize(assignments["doc_id"])
    uniq_idx = np.array([position.get(str(d), -1) for d in uniq] + [-1], dtype=np.int64)
    doc_idx = uniq_idx[codes]  # NaN doc_id has code -1, which reads the trailing -1
    in_split = doc_idx >= 0
    heads = assignments["head"][in_split].astype("string").str.strip().str.lower()
    # Rows without a head word carry no guess.
    keep = in_split.copy()
    keep[in_split] = (heads.str.len() > 0).fillna(False).to_numpy(dtype=bool)
    doc_idx = doc_idx[keep]
    heads = heads[keep[in_split]].to_numpy(dtype=object)
    templates = assignments["template"].to_numpy()[keep].astype(np.int64)
    slots = assignments["slot"].to_numpy()[keep].astype(np.int64)
    if len(templates) and (templates.max() >= n_t or slots.max() >= n_s):
        raise ValueError(f"assignments hold roles outside the shape {shape}")
    roles = templates * n_s + slots
    head_code, head_uniq = pd.factorize(heads)
    n_heads = max(len(head_uniq), 1)
    guess_of_row, guess_key = pd.factorize(doc_idx.astype(np.int64) * n_heads + head_code)
    guess_key = np.asarray(guess_key, dtype=np.int64)
    guess_doc = guess_key // n_heads
    guess_head = guess_key % n_heads
    head_tokens = [guess_token(h) for h in head_uniq]
    tok_code, tok_uniq = pd.factorize(np.array(head_tokens, dtype=object))
    tok_code = np.where(np.array([bool(t) for t in head_tokens], dtype=bool), tok_code, -1)
    guess_code = tok_code[guess_head] if len(guess_head) else np.zeros(0, dtype=np.int64)
    n_roles = max(n_t * n_s, 1)
    pair_key = np.unique(guess_of_row.astype(np.int64) * n_roles + roles)
    return GuessIndex(
        doc_ids=docs,
        n_templates=n_t,
        n_slots=n_s,
        guess_doc=guess_doc,
        guess_code=np.asarray(guess_code, dtype=np.int64),
        tokens=tuple(str(t) for t in tok_uniq),
        pair_guess=pair_key // n_roles,
        pair_role=pair_key % n_roles,
    )


# --------------------------------------------------------------------------------------------
# Gold side


@dataclass(frozen=True)
class SlotIndex:
    """Match structure of one gold slot (in one type view) against a :class:`GuessIndex`."""

    n_docs: int
    gold_doc: np.ndarray  # per gold entity: its message
    gold_required: np.ndarray  # per gold entity: not optional
    # Distinct (role, gold entity) pairs where a guess of the role matches the entity, sorted by
    # role; the rows of role r are match_ptr[r]:match_ptr[r + 1].
    match_role: np.ndarray
    match_gold: np.ndarray
    match_ptr: np.ndarray
    # (role, guess) pairs whose guess matches no entity of its (message, slot), sorted by role.
    fp_role: np.ndarray
    fp_guess: np.ndarray
    fp_ptr: np.ndarray
    guess_doc: np.ndarray

    @property
    def n_required(self) -> int:
        return int(self.gold_required.sum())


def index_slot(
    guesses: GuessIndex,
    entities_by_doc: Sequence[Sequence[GoldEntity]],
    matcher: MatcherName,
) -> SlotIndex:
    """Which guesses match which gold entities of one gold slot (evaluation.md, "Matching",
    "Counting").

    Parameters
    ----------
    guesses : GuessIndex
    entities_by_doc : sequence
        Gold entities of the slot, aligned with ``guesses.doc_ids``.
    matcher : {"lenient", "strict"}

    Returns
    -------
    SlotIndex
    """
    vocab = {t: i for i, t in enumerate(guesses.tokens)}
    n_vocab = max(len(vocab), 1)
    gold_doc, gold_req, row_key, row_gold = [], [], [], []
    for d, ents in enumerate(entities_by_doc):
        for e in ents:
            gid = len(gold_doc)
            gold_doc.append(d)
            gold_req.append(not e.optional)
            for tok in _entity_keys(e.alternatives, matcher):
                code = vocab.get(tok)
                # Tokens no guess uses cannot produce a match.
                if code is not None:
                    row_key.append(d * n_vocab + code)
                    row_gold.append(gid)
    keys = np.asarray(row_key, dtype=np.int64)
    golds = np.asarray(row_gold, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    keys, golds = keys[order], golds[order]

    g_key = np.where(guesses.guess_code >= 0, guesses.guess_doc * n_vocab + guesses.guess_code, -1)
    lo = np.searchsorted(keys, g_key, side="left")
    hi = np.searchsorted(keys, g_key, side="right")
    n_match = np.where(g_key >= 0, hi - lo, 0)

    # Expand every (guess, role) pair into one row per gold entity its guess matches.
    per_pair = n_match[guesses.pair_guess]
    rep = np.repeat(np.arange(len(per_pair)), per_pair)
    within = np.arange(len(rep)) - np.repeat(np.cumsum(per_pair) - per_pair, per_pair)
    m_gold = golds[lo[guesses.pair_guess[rep]] + within] if len(rep) else golds[:0]
    m_role = guesses.pair_role[rep]
    n_gold = max(len(gold_doc), 1)
    mk = np.unique(m_role * n_gold + m_gold)
    match_role = mk // n_gold
    unmatched = per_pair == 0
    fp_role, fp_guess = guesses.pair_role[unmatched], guesses.pair_guess[unmatched]
    by_role = np.argsort(fp_role, kind="stable")
    fp_role, fp_guess = fp_role[by_role], fp_guess[by_role]
    bounds = np.arange(guesses.n_roles + 1)
    return SlotIndex(
        n_docs=len(guesses.doc_ids),
        gold_doc=np.asarray(gold_doc, dtype=np.int64),
        gold_required=np.asarray(gold_req, dtype=bool),
        match_role=match_role,
        match_gold=mk % n_gold,
        match_ptr=np.searchsorted(match_role, bounds),
        fp_role=fp_role,
        fp_guess=fp_guess,
        fp_ptr=np.searchsorted(fp_role, bounds),
        guess_doc=guesses.guess_doc,
    )


def role_counts(index: SlotIndex, n_roles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TP, FP, FN of every single role against one gold slot (evaluation.md, step 1).

    Parameters
    ----------
    index : SlotIndex
    n_roles : int

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        Each of shape ``(n_roles,)``.
    """
    tp = np.bincount(index.match_role, minlength=n_roles)
    req = np.bincount(index.match_role[index.gold_required[index.match_gold]], minlength=n_roles)
    fp = np.bincount(index.fp_role, minlength=n_roles)
    return tp, fp, index.n_required - req


def _selected(index: SlotIndex, roles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # Slicing the role-sorted rows costs only what the selected roles hold.
    roles = np.unique(roles)
    mp, fpp = index.match_ptr, index.fp_ptr
    golds = [index.match_gold[mp[r] : mp[r + 1]] for r in roles]
    fps = [index.fp_guess[fpp[r] : fpp[r + 1]] for r in roles]
    empty = np.zeros(0, dtype=np.int64)
    return (
        np.unique(np.concatenate(golds)) if golds else empty,
        np.unique(np.concatenate(fps)) if fps else empty,
    )


def slot_counts(index: SlotIndex, roles: Sequence[int] | np.ndarray) -> Counts:
    """Pooled counts of one gold slot when the guesses of ``roles`` are sent to it
    (evaluation.md, "Counting"; several roles may feed one gold slot).

    Parameters
    ----------
    index : SlotIndex
    roles : sequence of int

    Returns
    -------
    Counts
    """
    golds, fps = _selected(index, np.asarray(roles, dtype=np.int64))
    tp = len(golds)
    fn = index.n_required - int(index.gold_required[golds].sum())
    return Counts(tp, len(fps), fn)


def slot_counts_per_message(
    index: SlotIndex, roles: Sequence[int] | np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like :func:`slot_counts`, one count per message.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        TP, FP, FN, each of shape ``(n_docs,)``.
    """
    golds, fps = _selected(index, np.asarray(roles, dtype=np.int64))
    hit = np.zeros(len(index.gold_doc), dtype=bool)
    hit[golds] = True
    n = index.n_docs
    tp = np.bincount(index.gold_doc[hit], minlength=n)
    fn = np.bincount(index.gold_doc[~hit & index.gold_required], minlength=n)
    fp = np.bincount(index.guess_doc[fps], minlength=n)
    return tp, fp, fn


_GOLD_CACHE: OrderedDict[tuple, tuple[tuple[KeyTemplate, ...], Gold]] = OrderedDict()
_GOLD_CACHE_SIZE = 16


def cached_gold(keys: Sequence[KeyTemplate], doc_ids: Sequence[str], types: Sequence[str]) -> Gold:
    """:func:`extract_gold` memoised on the identity of the key objects.

    Sweeps score many outputs against the same keys; gold extraction would otherwise dominate
    the time of :func:`evaluate`. The cache holds the key objects, so their ids cannot be reused
    by other objects while an entry lives. The returned dict is shared: do not modify it.

    Parameters
    ----------
    keys : sequence of KeyTemplate
    doc_ids : sequence of str
    types : sequence of str

    Returns
    -------
    Gold
    """
    keys = tuple(keys)
    ck = (tuple(map(id, keys)), tuple(doc_ids), tuple(types))
    hit = _GOLD_CACHE.get(ck)
    if hit is not None and all(a is b for a, b in zip(hit[0], keys, strict=True)):
        _GOLD_CACHE.move_to_end(ck)
        return hit[1]
    gold = extract_gold(keys, doc_ids, types=types)
    _GOLD_CACHE[ck] = (keys, gold)
    while len(_GOLD_CACHE) > _GOLD_CACHE_SIZE:
        _GOLD_CACHE.popitem(last=False)
    return gold


class SplitIndex:
    """System output and gold of one split, ready for mapping search and scoring.

    Type views (``"all"`` and each of the four types) are built on first use.

    Parameters
    ----------
    assignments : pandas.DataFrame
    keys : sequence of KeyTemplate
        Every message of ``keys`` is scored (evaluation.md, "Data").
    matcher : {"lenient", "strict"}
    shape : (int, int), optional
        ``(n_templates, n_slots)``; default from ``assignments``.
    """

    def __init__(
        self,
        assignments: pd.DataFrame,
        keys: Sequence[KeyTemplate],
        matcher: MatcherName = "lenient",
        shape: tuple[int, int] | None = None,
    ) -> None:
        if matcher not in MATCHERS:
            raise ValueError(f"unknown matcher {matcher!r}; expected one of {MATCHERS}")
        self.keys = list(keys)
        self.matcher: MatcherName = matcher
        self.doc_ids = key_message_ids(self.keys)
        self.shape = role_shape(assignments) if shape is None else shape
        self.guesses = index_guesses(assignments, self.doc_ids, self.shape)
        self.relevant = relevant_message_ids(self.keys)
        self._views: dict[str, dict[str, SlotIndex]] = {}

    def view(self, name: str = ALL_VIEW) -> dict[str, SlotIndex]:
        """Slot indices of gold from all four types (``"all"``) or from one type."""
        if name not in self._views:
            types = EVENT_TYPES if name == ALL_VIEW else (name,)
            slots = GOLD_SLOTS if name == ALL_VIEW else TYPE_GOLD_SLOTS[name]
            gold = cached_gold(self.keys, self.doc_ids, types)
            self._views[name] = {
                g: index_slot(self.guesses, [gold[d][g] for d in self.doc_ids], self.matcher)
                for g in slots
            }
        return self._views[name]

    def roles_by_slot(self, mapping: Iterable[MappingTriple]) -> dict[str, np.ndarray]:
        n_s = self.shape[1]
        out: dict[str, list[int]] = {g: [] for g in GOLD_SLOTS}
        for t, s, g in mapping:
            if not (0 <= t < self.shape[0] and 0 <= s < n_s):
                continue  # a role this output does not have feeds nothing
            out[g].append(t * n_s + s)
        return {g: np.asarray(r, dtype=np.int64) for g, r in out.items()}

    def counts(self, mapping: Iterable[MappingTriple]) -> dict[str, Counts]:
        """Pooled counts per gold slot under ``mapping`` (type ignored)."""
        view = self.view(ALL_VIEW)
        return {g: slot_counts(view[g], r) for g, r in self.roles_by_slot(mapping).items()}

    def f1(self, mapping: Iterable[MappingTriple]) -> float:
        """Overall F1 under ``mapping``, pooled over slots."""
        total = sum(self.counts(mapping).values(), Counts())
        return total.f1

    def type_f1(self, typ: str) -> np.ndarray:
        """F1 of every single role against each gold slot of ``typ`` (evaluation.md, step 1).

        Returns
        -------
        numpy.ndarray
            Shape ``(len(TYPE_GOLD_SLOTS[typ]), n_templates, n_slots)``.
        """
        n_t, n_s = self.shape
        view = self.view(typ)
        rows = []
        for g in TYPE_GOLD_SLOTS[typ]:
            tp, fp, fn = role_counts(view[g], n_t * n_s)
            rows.append(np.asarray(f1_score(tp, fp, fn), dtype=float).reshape(n_t, n_s))
        return np.stack(rows) if rows else np.zeros((0, n_t, n_s))

    def learn_mapping(self, prune: bool = True) -> list[MappingTriple]:
        """Steps 1-4 of evaluation.md on this split."""
        choices = type_mappings({typ: self.type_f1(typ) for typ in EVENT_TYPES})
        mapping = union_mapping(choices)
        return prune_mapping(mapping, self.f1) if prune else mapping

    def per_message(self, mapping: Iterable[MappingTriple]) -> pd.DataFrame:
        """TP / FP / FN per message and gold slot under ``mapping``."""
        view = self.view(ALL_VIEW)
        frames = []
        for g, roles in self.roles_by_slot(mapping).items():
            tp, fp, fn = slot_counts_per_message(view[g], roles)
            frames.append(
                pd.DataFrame({"doc_id": self.doc_ids, "gold_slot": g, "tp": tp, "fp": fp, "fn": fn})
            )
        out = pd.concat(frames, ignore_index=True)
        out["relevant"] = out["doc_id"].isin(self.relevant)
        return out


# --------------------------------------------------------------------------------------------
# Entry points


@dataclass
class EvaluationResult:
    """Scores of one evaluation (evaluation.md, "What to report").

    ``per_slot`` maps each gold slot to its precision, recall, f1, tp, fp, fn; ``mapping`` lists
    the (template, slot, gold_slot) triples of M; ``per_message`` holds TP/FP/FN per message and
    gold slot with a ``relevant`` flag (not part of :meth:`to_dict`).
    """

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    per_slot: dict[str, dict[str, float | int]]
    mapping: list[MappingTriple]
    matcher: str = "lenient"
    mode: str = "test-mapped"
    n_messages: int = 0
    per_message: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (plain ints, floats, strings)."""
        return {
            "precision": float(self.precision),
            "recall": float(self.recall),
            "f1": float(self.f1),
            "tp": int(self.tp),
            "fp": int(self.fp),
            "fn": int(self.fn),
            "matcher": self.matcher,
            "mode": self.mode,
            "n_messages": int(self.n_messages),
            "per_slot": {
                g: {k: (int(v) if k in ("tp", "fp", "fn") else float(v)) for k, v in d.items()}
                for g, d in self.per_slot.items()
            },
            "mapping": [
                {"template": int(t), "slot": int(s), "gold_slot": g} for t, s, g in self.mapping
            ],
        }


def _result(split: SplitIndex, mapping: list[MappingTriple], mode: str) -> EvaluationResult:
    per_slot = split.counts(mapping)
    total = sum(per_slot.values(), Counts())
    p, r, f = prf(total.tp, total.fp, total.fn)
    return EvaluationResult(
        precision=p,
        recall=r,
        f1=f,
        tp=total.tp,
        fp=total.fp,
        fn=total.fn,
        per_slot={g: c.as_dict() for g, c in per_slot.items()},
        mapping=list(mapping),
        matcher=split.matcher,
        mode=mode,
        n_messages=len(split.doc_ids),
        per_message=split.per_message(mapping),
    )


def learn_mapping(
    assignments: pd.DataFrame,
    keys: Sequence[KeyTemplate],
    *,
    matcher: MatcherName = "lenient",
    shape: tuple[int, int] | None = None,
    prune: bool = True,
) -> list[MappingTriple]:
    """The mapping M computed on the messages of ``keys`` (evaluation.md, steps 1-4).

    Parameters
    ----------
    assignments : pandas.DataFrame
    keys : sequence of KeyTemplate
    matcher : {"lenient", "strict"}
    shape : (int, int), optional
        ``(n_templates, n_slots)``; default from ``assignments``.
    prune : bool
        Apply step 4.

    Returns
    -------
    list of (template, slot, gold_slot)
    """
    return SplitIndex(assignments, keys, matcher, shape).learn_mapping(prune)


def evaluate(
    assignments: pd.DataFrame,
    eval_keys: Sequence[KeyTemplate],
    *,
    map_keys: Sequence[KeyTemplate] | None = None,
    matcher: MatcherName = "lenient",
    mapping: str | Sequence[MappingTriple] = "test-mapped",
) -> EvaluationResult:
    """Score a system output on the messages of ``eval_keys`` (evaluation.md).

    Parameters
    ----------
    assignments : pandas.DataFrame
        Export columns, one row per mention; may hold other messages too (they are ignored).
    eval_keys : sequence of KeyTemplate
        Keys of the evaluated split; every message in them is scored.
    map_keys : sequence of KeyTemplate, optional
        Keys of the split M is learned on for ``dev-mapped`` (DEV); ignored otherwise.
    matcher : {"lenient", "strict"}
    mapping : {"test-mapped", "dev-mapped"} or sequence of (template, slot, gold_slot)
        ``test-mapped`` learns M on the evaluated split, ``dev-mapped`` on ``map_keys`` and
        applies it unchanged; a sequence is used as M as given.

    Returns
    -------
    EvaluationResult
    """
    shape = role_shape(assignments)
    split = SplitIndex(assignments, eval_keys, matcher, shape)
    if isinstance(mapping, str):
        if mapping == "test-mapped":
            m = split.learn_mapping()
        elif mapping == "dev-mapped":
            if map_keys is None:
                raise ValueError("dev-mapped needs map_keys (the DEV keys)")
            m = SplitIndex(assignments, map_keys, matcher, shape).learn_mapping()
        else:
            raise ValueError(f"unknown mapping mode {mapping!r}; expected one of {MAPPING_MODES}")
        mode = mapping
    else:
        m, mode = sort_mapping(mapping), "fixed"
    return _result(split, m, mode)


def _cell(values: Sequence[float], digits: int) -> str:
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def format_table(
    results: Mapping[str, EvaluationResult | Sequence[EvaluationResult]],
    published: bool = True,
    digits: int = 3,
) -> str:
    """Markdown table of our results beside the published rows (evaluation.md, "What to
    report").

    Parameters
    ----------
    results : mapping
        Row label to one result, or to the results of several seeds (shown as mean ± sample
        standard deviation; counts as means).
    published : bool
        Put the published rows first.
    digits : int
        Decimals of our P, R, F1.

    Returns
    -------
    str
    """
    lines = ["| system | P | R | F1 | TP | FP | FN |", "|---|---|---|---|---|---|---|"]
    if published:
        for name, p, r, f in PUBLISHED_RESULTS:
            lines.append(f"| {name} | {p:.2f} | {r:.2f} | {f:.2f} | | | |")
    for name, res in results.items():
        runs = [res] if isinstance(res, EvaluationResult) else list(res)
        if not runs:
            continue
        cells = [
            _cell([getattr(x, k) for x in runs], digits) for k in ("precision", "recall", "f1")
        ]
        counts = []
        for k in ("tp", "fp", "fn"):
            vals = [getattr(x, k) for x in runs]
            mean = sum(vals) / len(vals)
            counts.append(str(vals[0]) if len(vals) == 1 else f"{mean:.1f}")
        lines.append(f"| {name} | " + " | ".join(cells + counts) + " |")
    return "\n".join(lines) + "\n"
