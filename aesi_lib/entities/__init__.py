"""Entities: the paper's quadruples e = (h, p, d, f) read off a dependency parse.

- :mod:`aesi_lib.entities.rules`: which noun heads are arguments of which verbs, with which
  dependency label (rules R1-R11; R12 and R14-R16 as options), and the mention text of each
  head;
  the rules on event nouns (R12, R14-R16) are in :mod:`aesi_lib.entities.event_noun_rules`,
  the label sets and the sentence view they share in :mod:`aesi_lib.entities.sentence_view`;
- :mod:`aesi_lib.entities.positions`: the argument position (subject, object, locative, other)
  of each dependency label, used by the factored slots.
"""

from aesi_lib.entities.entity_table import entities_frame
from aesi_lib.entities.positions import (
    ARGUMENT_POSITIONS,
    LOCATIVE_PREPOSITIONS,
    argument_position,
    argument_positions,
)
from aesi_lib.entities.rules import (
    DEFAULT_RULES,
    ENTITY_COLUMNS,
    EntityRecord,
    EntityRules,
    extract_entities,
    extract_sentence_entities,
    mention_text,
)

__all__ = [
    "ARGUMENT_POSITIONS",
    "DEFAULT_RULES",
    "ENTITY_COLUMNS",
    "LOCATIVE_PREPOSITIONS",
    "EntityRecord",
    "EntityRules",
    "argument_position",
    "argument_positions",
    "entities_frame",
    "extract_entities",
    "extract_sentence_entities",
    "mention_text",
]
