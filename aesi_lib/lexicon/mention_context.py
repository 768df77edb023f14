"""The context vectors of an entity table's mentions, from the one encoder pass.

:func:`mention_context_vectors` finds the sentences that hold the mentions and the character
spans of their head and predicate tokens, sends them document by document through the cached
encoder pass (:func:`aesi_lib.lexicon.encoder.iter_document_vectors`), and returns each
sentence's vector once with each mention's row among them, and, when asked, each mention's
head and predicate vectors (:class:`MentionContext`). The rule is the same for a training
corpus and for new documents (``aesi extract``, ``aesi update``): both call this function.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from aesi_lib.lexicon.encoder import SentenceEncoder, Span, iter_document_vectors


def token_spans(sentence: str, tokens: Sequence[str]) -> list[Span]:
    """Character spans ``[start, end)`` of ``tokens`` in ``sentence``, which is their texts
    joined with or without single spaces (``Store.sentence_texts``); a token not found where
    expected gets ``(-1, -1)``."""
    spans: list[Span] = []
    cursor = 0
    for token in tokens:
        at = sentence.find(token, cursor) if token else -1
        if at < 0 or sentence[cursor:at].strip():
            spans.append((-1, -1))
            continue
        spans.append((at, at + len(token)))
        cursor = at + len(token)
    return spans


@dataclass(frozen=True)
class MentionContext:
    """The context vectors of an entity table's mentions.

    Attributes
    ----------
    sentence : ndarray of shape (S, d), float32
        The vector of each sentence that holds mentions (unit length), once: the mentions of
        a sentence share it.
    sentence_rows : ndarray of shape (E,), int64
        The row of ``sentence`` of each mention (in the order of the entity table).
    head, predicate : ndarray of shape (E, d), float32, or None
        The in-context vectors of the mention's head word and of its predicate (unit length;
        the sentence vector where the token is unknown, e.g. ``predicate_index`` -1); None
        when they were not asked for (``token_vectors=False``).
    n_sentences : int
        Distinct mention sentences.
    embedded : int
        Documents embedded now (the others came from the cache).
    """

    sentence: np.ndarray
    sentence_rows: np.ndarray
    head: np.ndarray | None
    predicate: np.ndarray | None
    n_sentences: int
    embedded: int

    def feature_arrays(self, token_context: bool) -> dict[str, np.ndarray]:
        """The arrays as the optional fields of ``EntityFeatures`` name them: the sentence
        vectors and each mention's row among them, and with ``token_context`` the predicate
        and head vectors."""
        arrays = {"context_vectors": self.sentence, "context_rows": self.sentence_rows}
        if token_context:
            if self.head is None or self.predicate is None:
                raise ValueError("token_context: the token vectors were not computed "
                                 "(mention_context_vectors with token_vectors=False)")
            arrays.update(predicate_context_vectors=self.predicate,
                          head_context_vectors=self.head)
        return arrays


def mention_context_vectors(mentions: pd.DataFrame, sentences: pd.DataFrame,
                            tokens: pd.DataFrame, encoder: SentenceEncoder,
                            cache_dir: str | os.PathLike[str], token_vectors: bool = True
                            ) -> MentionContext:
    """One encoder pass over the sentences that hold ``mentions``, through the per-document
    cache (:func:`aesi_lib.lexicon.encoder.iter_document_vectors`), as the context vectors of
    the entity table's rows: each sentence's vector once, and each mention's row among them.

    The rule is the same for a training corpus and for new documents (``aesi extract``,
    ``aesi update``): both call this function.

    Parameters
    ----------
    mentions : DataFrame with columns ``doc_id, sent_id, head_index`` and
        ``predicate_index`` (the entity table; -1 or missing: unknown)
    sentences : DataFrame ``doc_id, sent_id, text`` (``Store.sentence_texts``), at least the
        mentions' sentences
    tokens : DataFrame ``doc_id, sent_id, token_id, text`` (``Store.sentence_tokens``) of the
        same sentences, in token order
    encoder : ``aesi_lib.lexicon.encoder.TransformerEncoder`` or ``StaticEncoder``
    cache_dir : the per-document cache
    token_vectors : also return the head and predicate vectors (``features.token_context``).
        Either way the pass computes and caches them (the cache entry is the same), but two
        more (E, d) arrays are not built: at 10^7 mentions each would be 15 GB.

    Returns
    -------
    MentionContext
    """
    n = len(mentions)
    doc = mentions["doc_id"].astype(str).to_numpy()
    sent = mentions["sent_id"].to_numpy(dtype=np.int64)
    head = mentions["head_index"].to_numpy(dtype=np.int64)
    pred = (mentions["predicate_index"].fillna(-1).to_numpy(dtype=np.int64)
            if "predicate_index" in mentions.columns else np.full(n, -1, dtype=np.int64))
    wanted = pd.DataFrame({"doc_id": doc, "sent_id": sent}).drop_duplicates()
    text_of = {(d, int(s)): t for d, s, t in sentences[["doc_id", "sent_id", "text"]]
               .itertuples(index=False)}
    words_of = _words_by_sentence(tokens)
    # Requested tokens of each sentence, in a fixed order (sorted token index).
    requested: dict[tuple[str, int], list[int]] = {}
    for d, s, i in zip(np.concatenate([doc, doc]), np.concatenate([sent, sent]),
                       np.concatenate([head, pred]), strict=True):
        if i >= 0:
            requested.setdefault((d, int(s)), []).append(int(i))
    documents: list[tuple[list[str], list[list[Span]]]] = []
    slot_of: dict[tuple[str, int], tuple[int, int]] = {}
    token_slot: dict[tuple[str, int, int], int] = {}
    # One row per mention sentence, in (doc_id, sent_id) order: a document's rows are
    # consecutive, from first_row[k] on, and mentions point at theirs.
    first_row: list[int] = []
    for d, rows in wanted.sort_values(["doc_id", "sent_id"]).groupby("doc_id", sort=True):
        first_row.append(len(slot_of))
        texts: list[str] = []
        spans: list[list[Span]] = []
        for s in rows["sent_id"].tolist():
            key = (d, int(s))
            text = text_of[key]
            indices = sorted(set(requested.get(key, [])))
            all_spans = token_spans(text, words_of.get(key, []))
            kept = [(i, all_spans[i]) for i in indices
                    if i < len(all_spans) and all_spans[i][0] >= 0]
            slot_of[key] = (len(documents), len(texts))
            for j, (i, _) in enumerate(kept):
                token_slot[(d, int(s), i)] = j
            texts.append(text)
            spans.append([span for _, span in kept])
        documents.append((texts, spans))
    dim = encoder.dimension
    sentence_rows = np.empty(n, dtype=np.int64)
    for row, key in enumerate(zip(doc, sent.tolist(), strict=True)):
        k, j = slot_of[key]
        sentence_rows[row] = first_row[k] + j
    out_sentence = np.zeros((len(slot_of), dim), dtype=np.float32)
    out_head = np.zeros((n, dim), dtype=np.float32) if token_vectors else None
    out_pred = np.zeros((n, dim), dtype=np.float32) if token_vectors else None
    mentions_of: dict[int, list[int]] = {}
    for row in range(n if token_vectors else 0):
        mentions_of.setdefault(slot_of[(doc[row], int(sent[row]))][0], []).append(row)
    embedded = 0
    # Document by document, so that only one encoder call's vectors are held at a time.
    for k, (vectors, now) in enumerate(iter_document_vectors(encoder, documents, cache_dir)):
        embedded += now
        out_sentence[first_row[k]:first_row[k] + len(vectors.sentences)] = vectors.sentences
        for row in mentions_of.get(k, ()):
            key = (doc[row], int(sent[row]))
            j = slot_of[key][1]
            for out, index in ((out_head, head[row]), (out_pred, pred[row])):
                slot = token_slot.get((key[0], key[1], int(index)))
                out[row] = vectors.sentences[j] if slot is None else vectors.tokens[j][slot]
    return MentionContext(
        sentence=out_sentence, sentence_rows=sentence_rows,
        head=_unit_rows(out_head) if out_head is not None else None,
        predicate=_unit_rows(out_pred) if out_pred is not None else None,
        n_sentences=len(wanted), embedded=embedded)


def _words_by_sentence(tokens: pd.DataFrame) -> dict[tuple[str, int], list[str]]:
    """The token texts of each ``(doc_id, sent_id)``, in token order: runs of one sentence
    in the table sorted stably by sentence (a pandas group per sentence costs seconds for
    the 22,052 mention sentences of MUC-4)."""
    if tokens.empty:
        return {}
    ordered = tokens.sort_values(["doc_id", "sent_id"], kind="stable")
    docs = ordered["doc_id"].astype(str).to_numpy()
    sents = ordered["sent_id"].to_numpy(dtype=np.int64)
    texts = ordered["text"].astype(str).tolist()
    starts = np.flatnonzero(np.r_[True, (docs[1:] != docs[:-1]) | (sents[1:] != sents[:-1])])
    ends = np.r_[starts[1:], len(texts)]
    return {(docs[a], int(sents[a])): texts[a:b] for a, b in zip(starts, ends, strict=True)}


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
