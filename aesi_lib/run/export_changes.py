"""How many labels moved between two exports of one project, counted as a user reads them.

The ids the solver carries (``aesi_lib.model.carry.label_changes``) count the cut's own
labels; what a user reads is the export, whose ``slot`` is a role slot of a table over the
whole solution (``aesi_lib.run.pipeline.labelled_export``: recomputed after a solve, kept
through a placement), so that a label can move in the export while the cut's does not. This
module compares the
exports themselves, mention by mention on their key (``doc_id``, ``entity_id``: see
docs/outputs.md), so that the counters of ``results.json`` and the log are the moves a
user would find by comparing the two files.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

#: The export's key: a mention's number within its document
#: (``aesi_lib.entities.entity_table.document_mention_ids``).
EXPORT_KEY = ("doc_id", "entity_id")
#: What must also agree for two rows of one key to be the same mention: an export written
#: before the key was stable numbered mentions across the corpus, and a document whose text
#: changed numbers its mentions anew.
SAME_MENTION = ("sent_id", "start_char", "end_char", "predicate", "dep")


def export_changes(previous: pd.DataFrame, current: pd.DataFrame) -> dict[str, Any]:
    """The labels of ``previous``'s mentions that ``current`` kept and moved.

    Parameters
    ----------
    previous, current : DataFrame
        Two exports (``doc_id``, ``entity_id``, ``sent_id``, ``start_char``, ``end_char``,
        ``predicate``, ``dep``, ``template``, ``slot``).

    Returns
    -------
    dict
        ``previous_mentions`` (rows of ``previous``), ``shared_mentions`` (those
        ``current`` still has: same key, same mention), ``new_mentions`` (rows of
        ``current`` that ``previous`` lacks), ``template_moved`` (shared mentions whose
        template differs), ``label_moved`` (whose template or slot differs),
        ``template_kept_share`` and ``label_kept_share`` (of the shared mentions; None when
        there are none).
    """
    columns = [*EXPORT_KEY, *SAME_MENTION]
    shared = previous[[*columns, "template", "slot"]].merge(
        current[[*columns, "template", "slot"]], on=columns, how="inner",
        suffixes=("_before", "_after"), validate="one_to_one")
    template_moved = shared["template_before"] != shared["template_after"]
    label_moved = template_moved | (shared["slot_before"] != shared["slot_after"])
    n = len(shared)
    return {
        "previous_mentions": len(previous),
        "shared_mentions": n,
        "new_mentions": len(current) - n,
        "template_moved": int(template_moved.sum()),
        "label_moved": int(label_moved.sum()),
        "template_kept_share": 1 - float(template_moved.mean()) if n else None,
        "label_kept_share": 1 - float(label_moved.mean()) if n else None,
    }


def unchanged_export(rows: int) -> dict[str, Any]:
    """:func:`export_changes` of an export of ``rows`` rows and itself, without reading it:
    what a run whose export did not change reports (the common warm rerun)."""
    return {"previous_mentions": rows, "shared_mentions": rows, "new_mentions": 0,
            "template_moved": 0, "label_moved": 0,
            "template_kept_share": 1.0 if rows else None,
            "label_kept_share": 1.0 if rows else None}


def describe_changes(changes: dict[str, Any]) -> str:
    """One line for the log and the command line: ``labels: of the 4,210 mentions the last
    export shares with this one, 12 moved template and 30 moved template or slot (99.3 %
    kept both); 57 mentions are new``."""
    n = changes["shared_mentions"]
    if not n:
        previous = changes["previous_mentions"]
        return (f"labels: this export shares no mention with the last one ({previous:,} "
                f"mention{'' if previous == 1 else 's'})")
    return (f"labels: of the {n:,} mentions the last export shares with this one, "
            f"{changes['template_moved']:,} moved template and {changes['label_moved']:,} "
            f"moved template or slot ({100 * changes['label_kept_share']:.1f} % kept both); "
            f"{changes['new_mentions']:,} mentions are new")
