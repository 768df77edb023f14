"""MUC-4 evaluation: gold entities, matching, role-to-slot mapping and scores.

Implements shared/docs/evaluation.md. Typical use::

    from aesi_lib.corpus.muc4_keys import read_muc4_keys
    from aesi_lib.evaluate import score_grid

    keys = read_muc4_keys("key-tst1.v7") + read_muc4_keys("key-tst2.v4")
    grid = score_grid(assignments, keys)             # test-mapped × {lenient, strict}
    grid.cell("test-mapped", "lenient").result.f1

Modules, bottom up: :mod:`~aesi_lib.evaluate.gold` (gold entities of the keys),
:mod:`~aesi_lib.evaluate.matching` (lenient and strict head matching),
:mod:`~aesi_lib.evaluate.assignments` (the export format),
:mod:`~aesi_lib.evaluate.counting` (TP / FP / FN of one message and slot),
:mod:`~aesi_lib.evaluate.index` (integer indexes of guesses and gold),
:mod:`~aesi_lib.evaluate.mapping` (the role-to-slot mapping, steps 1-4),
:mod:`~aesi_lib.evaluate.split` (one scored split), :mod:`~aesi_lib.evaluate.scoring`
(``evaluate``), :mod:`~aesi_lib.evaluate.bounds` (oracle bounds),
:mod:`~aesi_lib.evaluate.misses` (where each gold slot's missed entities are, and what those
no mention matches are, by the kinds of :mod:`~aesi_lib.evaluate.reach`),
:mod:`~aesi_lib.evaluate.grid` (the score grid every caller reports) and
:mod:`~aesi_lib.evaluate.tables` (Markdown beside the published systems).
"""

from aesi_lib.evaluate.assignments import ASSIGNMENT_COLUMNS, read_assignments
from aesi_lib.evaluate.bounds import (
    false_positive_share_irrelevant,
    recall_ceiling,
    relevance_oracle,
    result_bounds,
    template_recall_ceiling,
)
from aesi_lib.evaluate.counting import Counts, count_message_slot
from aesi_lib.evaluate.gold import (
    EVENT_TYPES,
    GOLD_SLOTS,
    KEY_SLOTS,
    TYPE_GOLD_SLOTS,
    GoldEntity,
    MissingKeyError,
    extract_gold,
    gold_counts,
    merge_entities,
    relevant_message_ids,
    template_counts,
)
from aesi_lib.evaluate.grid import GridCell, ScoreGrid, score_grid
from aesi_lib.evaluate.mapping import prune_mapping, type_mappings, union_mapping
from aesi_lib.evaluate.matching import MATCHERS, lenient, normalise, strict, tokens_match
from aesi_lib.evaluate.misses import SlotMisses, missed_gold
from aesi_lib.evaluate.scoring import MAPPING_MODES, EvaluationResult, evaluate, learn_mapping
from aesi_lib.evaluate.split import KeyGold, SplitIndex
from aesi_lib.evaluate.tables import PUBLISHED_RESULTS, format_table

__all__ = [
    "ASSIGNMENT_COLUMNS",
    "EVENT_TYPES",
    "GOLD_SLOTS",
    "KEY_SLOTS",
    "MAPPING_MODES",
    "MATCHERS",
    "PUBLISHED_RESULTS",
    "TYPE_GOLD_SLOTS",
    "Counts",
    "EvaluationResult",
    "GoldEntity",
    "GridCell",
    "KeyGold",
    "MissingKeyError",
    "ScoreGrid",
    "SlotMisses",
    "SplitIndex",
    "count_message_slot",
    "evaluate",
    "extract_gold",
    "false_positive_share_irrelevant",
    "format_table",
    "gold_counts",
    "learn_mapping",
    "lenient",
    "merge_entities",
    "missed_gold",
    "normalise",
    "prune_mapping",
    "read_assignments",
    "recall_ceiling",
    "relevance_oracle",
    "relevant_message_ids",
    "result_bounds",
    "score_grid",
    "strict",
    "template_counts",
    "template_recall_ceiling",
    "tokens_match",
    "type_mappings",
    "union_mapping",
]
