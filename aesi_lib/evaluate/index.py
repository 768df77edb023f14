"""Compact integer indexes of a system's guesses and of the gold, so that any mapping is scored
by selecting rows.

A *guess* is a distinct (message, lowercased head) pair; a *pair* is a distinct (guess, role)
with role = ``template * n_slots + slot``. Per gold slot (and per type view, for the mapping
search) the index holds the (role, gold entity) pairs where a guess of the role matches the
entity, and the (role, guess) pairs whose guess matches no gold entity of its message and slot.
TP = distinct matched entities, FN = non-optional entities not among them, FP = distinct
unmatched guesses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from aesi_lib.evaluate.assignments import check_columns
from aesi_lib.evaluate.counting import Counts, entity_keys
from aesi_lib.evaluate.gold import GoldEntity
from aesi_lib.evaluate.matching import MatcherName, guess_token


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
    check_columns(assignments)
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
            for tok in entity_keys(e.alternatives, matcher):
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
