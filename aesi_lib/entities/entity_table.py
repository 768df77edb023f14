"""The entity table: the rows of parsed documents, one per entity mention.

The rules that find the mentions are :mod:`aesi_lib.entities.rules`; this module turns their
records into the table every ingest stores (columns :data:`ENTITY_COLUMNS`), with each
mention's character span in the text as the user gave it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import astuple

import numpy as np
import pandas as pd

from aesi_lib.corpus.types import Document
from aesi_lib.entities.rules import (
    DEFAULT_RULES,
    ENTITY_COLUMNS,
    EntityRecord,
    EntityRules,
    extract_entities,
)
from aesi_lib.parse.types import ParsedDocument


def document_entities(parses: Sequence[ParsedDocument], documents: Sequence[Document],
                      rules: EntityRules = DEFAULT_RULES) -> pd.DataFrame:
    """The entity rows of parsed documents (:func:`extract_entities`), with each mention's
    ``start_char``/``end_char`` in the text as the user gave it: the document's ``original``
    when its reader normalised the layout (:func:`aesi_lib.corpus.offsets.original_span`),
    and its ``mention`` that text's slice (:func:`mentions_as_given`).
    Every ingest (the flow's parse batches, the notebook path) makes its rows here.

    Parameters
    ----------
    parses : the parses of ``documents``, in the same order.
    documents : the documents as read (``Document.original`` set when normalised).
    rules : the entity rules (``aesi_lib.run.pipeline.entity_rules`` of the run's
        configuration: the training corpus and new documents get the same).
    """
    frame = entities_frame(r for p in parses for r in extract_entities(p, rules))
    return mentions_as_given(spans_in_original(frame, documents), documents)


def mentions_as_given(frame: pd.DataFrame, documents: Sequence[Document]) -> pd.DataFrame:
    """``frame`` with each ``mention`` the user's own text of its span: ``text[start_char:
    end_char]`` of the document as the user gave it (``Document.original`` when the reader
    normalised the layout, else ``Document.text``), line breaks, runs of blanks and
    line-end hyphens included. A row without a span (-1: a parse made before spans were
    recorded) keeps the mention its rule wrote, the noun phrase's tokens joined by their
    whitespace."""
    texts = {d.doc_id: d.original or d.text for d in documents}
    mentions = [texts[doc][start:end] if start >= 0 and doc in texts else mention
                for doc, start, end, mention in zip(frame["doc_id"], frame["start_char"],
                                                    frame["end_char"], frame["mention"],
                                                    strict=True)]
    return frame.assign(mention=mentions)


def spans_in_original(frame: pd.DataFrame, documents: Sequence[Document]) -> pd.DataFrame:
    """``frame`` (rows with ``doc_id``, ``start_char``, ``end_char`` in the documents' parsed
    text) with the spans moved into each document's ``original`` where it has one
    (:func:`aesi_lib.corpus.offsets.original_span`). The entity rows of every ingest go
    through it."""
    from aesi_lib.corpus.offsets import offset_map, original_span

    originals = {d.doc_id: d for d in documents if d.original}
    if frame.empty or not originals:
        return frame
    starts, ends = frame["start_char"].to_numpy().copy(), frame["end_char"].to_numpy().copy()
    for doc_id, rows in frame.groupby("doc_id", sort=False).indices.items():
        doc = originals.get(doc_id)
        if doc is None:
            continue
        positions = offset_map(doc.text, doc.original)
        for row in rows:
            starts[row], ends[row] = original_span(int(starts[row]), int(ends[row]), positions)
    return frame.assign(start_char=starts, end_char=ends)


def entities_frame(records: Iterable[EntityRecord]) -> pd.DataFrame:
    """A DataFrame with one row per record and the columns :data:`ENTITY_COLUMNS`."""
    rows = [astuple(r) for r in records]
    frame = pd.DataFrame(rows, columns=list(ENTITY_COLUMNS))
    return frame.astype({"sent_id": "int64", "head_index": "int64", "start_char": "int64",
                         "end_char": "int64", "predicate_index": "int64", "proper": "bool"})


#: The order of :func:`unstored_entity_table`: by document, sentence, head, predicate, relation.
UNSTORED_ORDER = ("doc_id", "sent_id", "head_index", "predicate", "dep")


def unstored_entity_table(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """One entity table of documents that are not stored (``aesi extract``'s): the rows of
    ``frames`` (:func:`document_entities` of each parse batch) in the order
    :data:`UNSTORED_ORDER` (ties keep their order), so the same documents give the same table
    however they were batched, with ``entity_id`` 0..N-1 in that order as its first column."""
    table = pd.concat(list(frames), ignore_index=True)
    table = table.sort_values(list(UNSTORED_ORDER), kind="stable").reset_index(drop=True)
    table.insert(0, "entity_id", range(len(table)))
    return table


#: What identifies a mention within its document: its head token, its predicate's token and
#: their relation (unique in a document; the predicate's lemma is not: "X resigned ... and
#: resigned" gives two mentions of one head).
MENTION_IDENTITY = ("sent_id", "head_index", "predicate_index", "dep")


def document_mention_ids(table: pd.DataFrame) -> np.ndarray:
    """Each mention's number within its document: 0, 1, ... in order of
    :data:`MENTION_IDENTITY`, the ``entity_id`` of an export.

    Unlike the table's own ``entity_id`` (a corpus-wide running number, the row of the
    model's arrays), it depends on nothing but the document's own parse, so that it stays the
    same from one export to the next as documents are added or removed, and
    (``doc_id``, ``entity_id``) is the unique key of an export.

    Parameters
    ----------
    table : DataFrame of shape (E, ...)
        Entity rows with ``doc_id`` and the columns of :data:`MENTION_IDENTITY`.

    Returns
    -------
    ndarray of shape (E,), int64
        In the rows' order.
    """
    keys = table[["doc_id", *MENTION_IDENTITY]].reset_index(drop=True)
    order = keys.sort_values(list(keys.columns), kind="stable").index.to_numpy()
    ids = np.empty(len(keys), dtype=np.int64)
    ids[order] = keys.iloc[order].groupby("doc_id", sort=False).cumcount().to_numpy()
    return ids
