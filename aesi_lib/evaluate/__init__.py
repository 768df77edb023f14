"""MUC-4 evaluation: gold entities, matching, role-to-slot mapping and scores.

Implements shared/docs/evaluation.md. Typical use::

    from aesi_lib.corpus.muc4 import read_muc4_keys
    from aesi_lib.evaluate import evaluate

    keys = read_muc4_keys("key-tst1.v7") + read_muc4_keys("key-tst2.v4")
    result = evaluate(assignments, keys, matcher="lenient", mapping="test-mapped")
"""

from aesi_lib.evaluate.bounds import (
    false_positive_share_irrelevant,
    recall_ceiling,
    relevance_oracle,
    result_bounds,
    template_recall_ceiling,
)
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
from aesi_lib.evaluate.mapping import prune_mapping, type_mappings, union_mapping
from aesi_lib.evaluate.matching import MATCHERS, lenient, normalise, strict, tokens_match
from aesi_lib.evaluate.scoring import (
    ASSIGNMENT_COLUMNS,
    MAPPING_MODES,
    PUBLISHED_RESULTS,
    Counts,
    EvaluationResult,
    SplitIndex,
    count_message_slot,
    evaluate,
    format_table,
    learn_mapping,
    read_assignments,
)

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
    "MissingKeyError",
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
    "normalise",
    "prune_mapping",
    "read_assignments",
    "recall_ceiling",
    "relevance_oracle",
    "relevant_message_ids",
    "result_bounds",
    "strict",
    "template_counts",
    "template_recall_ceiling",
    "tokens_match",
    "type_mappings",
    "union_mapping",
]
