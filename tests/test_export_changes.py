"""The labels that moved between two exports, counted on the exports themselves
(``aesi_lib.run.export_changes``)."""

from __future__ import annotations

import pandas as pd
import pytest

from aesi_lib.run.export_changes import describe_changes, export_changes, unchanged_export


def _export(*rows: tuple[str, int, int, int, int]) -> pd.DataFrame:
    """Rows of (doc_id, entity_id, start_char, template, slot)."""
    return pd.DataFrame([{"doc_id": d, "entity_id": e, "sent_id": 0, "start_char": s,
                          "end_char": s + 5, "predicate": "kill", "dep": "nsubj",
                          "template": t, "slot": sl} for d, e, s, t, sl in rows])


def test_every_move_of_a_shared_mention_is_counted_as_exported():
    before = _export(("a", 0, 0, 1, 4), ("a", 1, 10, 1, 5), ("a", 2, 20, 2, 0),
                     ("b", 0, 0, 3, 3), ("c", 0, 0, 0, 0))
    after = _export(("a", 0, 0, 1, 4),        # kept
                    ("a", 1, 10, 1, 6),       # slot moved
                    ("a", 2, 20, 0, 0),       # template moved
                    ("b", 0, 7, 3, 3),        # the document changed: another mention
                    ("d", 0, 0, 2, 2))        # a new document; c was removed
    changes = export_changes(before, after)
    assert changes == {"previous_mentions": 5, "shared_mentions": 3, "new_mentions": 2,
                       "template_moved": 1, "label_moved": 2,
                       "template_kept_share": pytest.approx(2 / 3),
                       "label_kept_share": pytest.approx(1 / 3)}
    assert describe_changes(changes) == (
        "labels: of the 3 mentions the last export shares with this one, 1 moved template "
        "and 2 moved template or slot (33.3 % kept both); 2 mentions are new")
    # Rows in another order, the same count.
    assert export_changes(before[::-1], after.sample(frac=1, random_state=1)) == changes
    # An export against itself: what a run whose export did not change reports unread.
    assert export_changes(after, after) == unchanged_export(len(after))
    assert export_changes(after[:0], after[:0]) == unchanged_export(0)


def test_exports_that_share_no_mention_say_so():
    changes = export_changes(_export(("a", 0, 0, 1, 1)), _export(("a", 0, 3, 1, 1)))
    assert changes["shared_mentions"] == 0 and changes["label_kept_share"] is None
    assert describe_changes(changes) == ("labels: this export shares no mention with the "
                                         "last one (1 mention)")
