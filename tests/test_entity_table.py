"""The entity table of documents that are never stored (``aesi extract``): one order, however
the documents were batched."""

from __future__ import annotations

import pandas as pd

from aesi_lib.entities.entity_table import UNSTORED_ORDER, unstored_entity_table


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
