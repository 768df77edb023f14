"""The entity table of documents that are never stored (``aesi extract``): one order, however
the documents were batched; and the mention ids of an export, which depend on nothing but the
mention's own document."""

from __future__ import annotations

import pandas as pd

from aesi_lib.entities.entity_table import (
    MENTION_IDENTITY,
    UNSTORED_ORDER,
    document_mention_ids,
    unstored_entity_table,
)


def _rows(*rows: tuple[str, int, int, str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(UNSTORED_ORDER)).assign(head="h")


def test_unstored_rows_are_ordered_and_numbered_whatever_the_batches():
    one = _rows(("b", 0, 1, "kill", "dobj"), ("a", 1, 0, "say", "nsubj"))
    two = _rows(("a", 0, 2, "bomb", "nsubj"), ("a", 0, 2, "attack", "nsubj"),
                ("a", 0, 2, "attack", "dobj"))
    table = unstored_entity_table([one, two])
    assert list(table.columns) == ["entity_id", *UNSTORED_ORDER, "head"]
    assert table["entity_id"].tolist() == [0, 1, 2, 3, 4]
    assert list(zip(table["doc_id"], table["sent_id"], table["predicate"], table["dep"],
                    strict=True)) == [("a", 0, "attack", "dobj"), ("a", 0, "attack", "nsubj"),
                                      ("a", 0, "bomb", "nsubj"), ("a", 1, "say", "nsubj"),
                                      ("b", 0, "kill", "dobj")]
    pd.testing.assert_frame_equal(unstored_entity_table([two, one]), table)


def _mentions(*rows: tuple[str, int, int, int, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["doc_id", *MENTION_IDENTITY])


def test_mention_ids_number_each_document_alone_in_one_order():
    doc_b = [("b", 1, 4, 2, "nsubj"), ("b", 0, 7, 3, "dobj"),
             ("b", 0, 7, 9, "dobj"), ("b", 0, 7, 3, "nsubj")]
    table = _mentions(("a", 0, 1, 2, "nsubj"), *doc_b)
    # By sentence, head token, predicate token, relation; two predicates of one lemma and
    # one head (tokens 3 and 9) stay two mentions.
    assert document_mention_ids(table).tolist() == [0, 3, 0, 2, 1]
    # Other documents added before it, rows in another order: the same ids.
    more = _mentions(("0", 0, 0, 1, "nsubj"), ("a", 0, 0, 2, "dobj"), *reversed(doc_b))
    ids = dict(zip(more.itertuples(index=False), document_mention_ids(more), strict=True))
    assert [ids[r] for r in table.iloc[1:].itertuples(index=False)] == [3, 0, 2, 1]
    # (doc_id, id) is unique; the index of the frame plays no part.
    shuffled = table.sample(frac=1, random_state=0).set_axis([9, 9, 3, 3, 1])
    keys = set(zip(shuffled["doc_id"], document_mention_ids(shuffled), strict=True))
    assert len(keys) == len(shuffled)
