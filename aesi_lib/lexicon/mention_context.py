"""The context vectors of an entity table's mentions, from the one encoder pass.

:func:`mention_context_vectors` finds the sentences that hold the mentions, sends them
document by document through the cached encoder pass
(:func:`aesi_lib.lexicon.encoder.iter_document_vectors`), and returns each sentence's vector
once with each mention's row among them (:class:`MentionContext`). The rule is the same for a
training corpus and for new documents (``aesi extract``, ``aesi update``): both call this
function.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from aesi_lib.lexicon.encoder import SentenceEncoder, iter_document_vectors


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
    n_sentences : int
        Distinct mention sentences.
    embedded : int
        Documents embedded now (the others came from the cache).
    """

    sentence: np.ndarray
    sentence_rows: np.ndarray
    n_sentences: int
    embedded: int

    def feature_arrays(self) -> dict[str, np.ndarray]:
        """The arrays as the optional fields of ``EntityFeatures`` name them: the sentence
        vectors and each mention's row among them."""
        return {"context_vectors": self.sentence, "context_rows": self.sentence_rows}


def mention_context_vectors(mentions: pd.DataFrame, sentences: pd.DataFrame,
                            encoder: SentenceEncoder, cache_dir: str | os.PathLike[str]
                            ) -> MentionContext:
    """One encoder pass over the sentences that hold ``mentions``, through the per-document
    cache (:func:`aesi_lib.lexicon.encoder.iter_document_vectors`), as the context vectors of
    the entity table's rows: each sentence's vector once, and each mention's row among them.

    The rule is the same for a training corpus and for new documents (``aesi extract``,
    ``aesi update``): both call this function.

    Each document's sentence texts are taken when the pass reaches it, by integer indices into
    the sentence table, so that what is held for the whole corpus is arrays, not Python
    objects per sentence.

    Parameters
    ----------
    mentions : DataFrame with columns ``doc_id, sent_id`` (the entity table)
    sentences : DataFrame ``doc_id, sent_id, text`` (``Store.sentence_texts``), at least the
        mentions' sentences
    encoder : ``aesi_lib.lexicon.encoder.TransformerEncoder`` or ``StaticEncoder``
    cache_dir : the per-document cache

    Returns
    -------
    MentionContext
    """
    keys = _SentenceKeys.over(mentions, sentences)
    # One row per mention sentence, in (doc_id, sent_id) order: a document's rows are
    # consecutive, first_row[k] to first_row[k + 1], and mentions point at theirs.
    sentence_keys, sentence_rows = np.unique(keys.of(mentions), return_inverse=True)
    sentence_rows = sentence_rows.reshape(-1).astype(np.int64)
    first_row = (np.r_[0, 1 + np.flatnonzero(np.diff(sentence_keys // keys.stride)),
                       len(sentence_keys)] if len(sentence_keys) else np.zeros(1, np.int64))
    text_at = keys.rows_of(sentences, sentence_keys)
    texts = _strings(sentences["text"])

    def documents() -> Iterator[list[str]]:
        for k in range(len(first_row) - 1):
            yield [texts[int(text_at[row])].as_py()
                   for row in range(first_row[k], first_row[k + 1])]

    out_sentence = np.zeros((len(sentence_keys), encoder.dimension), dtype=np.float32)
    embedded = 0
    # Document by document, so that only one encoder call's vectors are held at a time.
    for k, (vectors, now) in enumerate(iter_document_vectors(encoder, documents(), cache_dir)):
        embedded += now
        out_sentence[first_row[k]:first_row[k + 1]] = vectors
    return MentionContext(sentence=out_sentence, sentence_rows=sentence_rows,
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
