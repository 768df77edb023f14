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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

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

    Each document's sentence texts and token spans are built when the pass reaches it, from
    integer indices into the two tables, so that what is held for the whole corpus is arrays,
    not Python objects per token (at 10^7 mentions the token texts alone would be gigabytes).

    Parameters
    ----------
    mentions : DataFrame with columns ``doc_id, sent_id, head_index`` and
        ``predicate_index`` (the entity table; -1 or missing: unknown)
    sentences : DataFrame ``doc_id, sent_id, text`` (``Store.sentence_texts``), at least the
        mentions' sentences
    tokens : DataFrame ``doc_id, sent_id, token_id, text``
        (``Store.mention_sentence_tokens``) of the same sentences, each sentence's tokens in
        token order
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
    head = mentions["head_index"].to_numpy(dtype=np.int64)
    pred = (mentions["predicate_index"].fillna(-1).to_numpy(dtype=np.int64)
            if "predicate_index" in mentions.columns else np.full(n, -1, dtype=np.int64))
    keys = _SentenceKeys.over(mentions, sentences, tokens)
    # One row per mention sentence, in (doc_id, sent_id) order: a document's rows are
    # consecutive, first_row[k] to first_row[k + 1], and mentions point at theirs.
    sentence_keys, sentence_rows = np.unique(keys.of(mentions), return_inverse=True)
    sentence_rows = sentence_rows.reshape(-1).astype(np.int64)
    first_row = (np.r_[0, 1 + np.flatnonzero(np.diff(sentence_keys // keys.stride)),
                       len(sentence_keys)] if len(sentence_keys) else np.zeros(1, np.int64))
    text_at = keys.rows_of(sentences, sentence_keys)
    # Tokens grouped by sentence, in their order within it.
    token_keys = keys.of(tokens)
    token_order = np.argsort(token_keys, kind="stable")
    token_keys = token_keys[token_order]
    token_lo = np.searchsorted(token_keys, sentence_keys, side="left")
    token_hi = np.searchsorted(token_keys, sentence_keys, side="right")
    # The requested tokens (heads and predicates) as sorted (sentence row, token index) pairs;
    # a sentence's pairs are consecutive, from pair_lo[row] to pair_lo[row + 1].
    token_stride = int(max(head.max(initial=0), pred.max(initial=0))) + 1
    asked = np.r_[head, pred] >= 0
    pairs = np.unique((np.r_[sentence_rows, sentence_rows] * token_stride
                       + np.r_[head, pred])[asked])
    pair_lo = np.searchsorted(pairs, np.arange(len(sentence_keys) + 1) * token_stride)
    # Where each pair's vector is among its sentence's token vectors (-1: the token's
    # characters were not found); set as each document is built.
    pair_slot = np.full(len(pairs), -1, dtype=np.int64)
    texts = _strings(sentences["text"])
    words = _strings(tokens["text"])

    def documents() -> Iterator[tuple[list[str], list[list[Span]]]]:
        for k in range(len(first_row) - 1):
            doc_texts: list[str] = []
            doc_spans: list[list[Span]] = []
            for row in range(first_row[k], first_row[k + 1]):
                text = texts[int(text_at[row])].as_py()
                lo, hi = int(token_lo[row]), int(token_hi[row])
                all_spans = token_spans(text, words.take(token_order[lo:hi]).to_pylist())
                kept: list[Span] = []
                for p in range(pair_lo[row], pair_lo[row + 1]):
                    i = int(pairs[p] - row * token_stride)
                    if i < len(all_spans) and all_spans[i][0] >= 0:
                        pair_slot[p] = len(kept)
                        kept.append(all_spans[i])
                doc_texts.append(text)
                doc_spans.append(kept)
            yield doc_texts, doc_spans

    dim = encoder.dimension
    out_sentence = np.zeros((len(sentence_keys), dim), dtype=np.float32)
    out_head = out_pred = by_row = mention_lo = None
    if token_vectors:
        out_head = np.zeros((n, dim), dtype=np.float32)
        out_pred = np.zeros((n, dim), dtype=np.float32)
        # The mentions of document k: by_row[mention_lo[k]:mention_lo[k + 1]].
        by_row = np.argsort(sentence_rows, kind="stable")
        mention_lo = np.searchsorted(sentence_rows[by_row], first_row)
    embedded = 0
    # Document by document, so that only one encoder call's vectors are held at a time.
    for k, (vectors, now) in enumerate(iter_document_vectors(encoder, documents(), cache_dir)):
        embedded += now
        out_sentence[first_row[k]:first_row[k + 1]] = vectors.sentences
        if out_head is None or out_pred is None or by_row is None or mention_lo is None:
            continue
        for r in by_row[mention_lo[k]:mention_lo[k + 1]]:
            row = sentence_rows[r]
            j = row - first_row[k]
            for out, index in ((out_head, head[r]), (out_pred, pred[r])):
                slot = -1
                if index >= 0:
                    slot = pair_slot[np.searchsorted(pairs, row * token_stride + index)]
                out[r] = vectors.sentences[j] if slot < 0 else vectors.tokens[j][slot]
    return MentionContext(
        sentence=out_sentence, sentence_rows=sentence_rows,
        head=_unit_rows(out_head) if out_head is not None else None,
        predicate=_unit_rows(out_pred) if out_pred is not None else None,
        n_sentences=len(sentence_keys), embedded=embedded)


@dataclass(frozen=True)
class _SentenceKeys:
    """Sentences as int64 keys whose order is (doc_id, sent_id) order: the rank of the
    document among ``documents`` (sorted) times ``stride``, plus the sentence id."""

    documents: np.ndarray
    stride: int

    @classmethod
    def over(cls, mentions: pd.DataFrame, *tables: pd.DataFrame) -> _SentenceKeys:
        """Keys for the documents of ``mentions``, with room for every ``sent_id`` of all
        the tables."""
        stride = 1 + max((int(t["sent_id"].max()) for t in (mentions, *tables) if len(t)),
                         default=0)
        return cls(np.sort(mentions["doc_id"].astype(str).unique()), stride)

    def of(self, table: pd.DataFrame) -> np.ndarray:
        """The key of each row of ``table`` (columns ``doc_id, sent_id``); -1 for the rows of
        other documents."""
        rank = pd.Index(self.documents).get_indexer(table["doc_id"].astype(str))
        sent = table["sent_id"].to_numpy(dtype=np.int64)
        return np.where(rank >= 0, rank.astype(np.int64) * self.stride + sent, -1)

    def rows_of(self, table: pd.DataFrame, wanted: np.ndarray) -> np.ndarray:
        """The row of ``table`` that holds each sentence of ``wanted``; ``ValueError``
        naming the first that none holds."""
        keys = self.of(table)
        order = np.argsort(keys, kind="stable")
        at = np.searchsorted(keys[order], wanted)
        found = np.zeros(len(wanted), dtype=bool)
        inside = at < len(order)
        found[inside] = keys[order[at[inside]]] == wanted[inside]
        if not found.all():
            doc, sent = divmod(int(wanted[np.flatnonzero(~found)[0]]), self.stride)
            raise ValueError(f"sentence {sent} of document {self.documents[doc]!r} holds "
                             "mentions but is not in the sentence table")
        return order[at]


def _strings(column: pd.Series) -> pa.Array:
    """A string column as one Arrow array: the column's own buffers where it is Arrow-backed
    (pandas' default string type), one compact copy where it holds Python objects."""
    array = pa.array(column)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _unit_rows(matrix: np.ndarray, block: int = 65536) -> np.ndarray:
    """``matrix`` with each nonzero row scaled to unit length, in place and a block of rows at
    a time: an (E, d) array is not copied, nor squared whole by the norm."""
    for start in range(0, len(matrix), block):
        part = matrix[start:start + block]
        norms = np.linalg.norm(part, axis=1, keepdims=True)
        np.divide(part, norms, out=part, where=norms > 0)
    return matrix
