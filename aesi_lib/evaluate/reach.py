"""What no mention reaches: the kind of a gold entity that no mention of its document matches.

One rule for a span-annotated corpus (:func:`aesi_lib.evaluate.annotations.missed_kinds`,
``aesi evaluate --annotations``) and for MUC-4's keys (:func:`aesi_lib.evaluate.misses.
unreached_kinds`, ``results.json``'s bounds): the first of :data:`MISSED_KINDS` that fits the
entity's text (its first argument's, or its first string in the keys) and where it lies.

* **pronoun**: every word a pronoun (*they*, *its*);
* **number or amount**: a digit or a currency sign, or at most two words of which the first
  counts (*fifteen*, *many victims*);
* **inside a mention, not its head**: the entity lies inside a mention whose head is outside
  it (*Windows* in *Windows users*, a possessor, *FMLN* in *FMLN GUERRILLAS*);
* **no mention there**: none of these (not an argument of a verb the entity rules read).
"""

from __future__ import annotations

import re

PRONOUN = "pronoun"
NUMBER = "number or amount"
INSIDE = "inside a mention, not its head"
NO_MENTION = "no mention there"
#: The kinds, in the order they are tried.
MISSED_KINDS = (PRONOUN, NUMBER, INSIDE, NO_MENTION)

_PRONOUNS = frozenset("i me my mine we us our ours you your yours he him his she her hers it "
                      "its they them their theirs this that these those who whom whose which "
                      "what one ones someone anyone everyone".split())
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve "
                          "twenty thirty forty fifty hundred hundreds thousand thousands "
                          "million millions billion billions dozen dozens several many "
                          "some all few".split())
_AMOUNT = re.compile(r"[0-9$€£¥%]")


def missed_kind(text: str, inside_a_mention: bool) -> str:
    """The kind (:data:`MISSED_KINDS`) of a gold entity no mention matches.

    Parameters
    ----------
    text : str
        The entity's text: its first argument's (a span-annotated corpus) or its first string
        (MUC-4's keys).
    inside_a_mention : bool
        Whether the entity lies inside some mention of its document (whose head, since no
        mention matches the entity, lies outside it).
    """
    words = text.lower().split()
    if words and all(w.strip(".,'\"") in _PRONOUNS for w in words):
        return PRONOUN
    if _AMOUNT.search(text) or (words and words[0] in _NUMBER_WORDS and len(words) <= 2):
        return NUMBER
    return INSIDE if inside_a_mention else NO_MENTION


__all__ = ["INSIDE", "MISSED_KINDS", "NO_MENTION", "NUMBER", "PRONOUN", "missed_kind"]
