"""Argument positions: a fixed grouping of the entity rules' dependency labels.

The labels of :mod:`aesi_lib.entities.rules` (``nsubj``, ``dobj``, ``iobj``, ``prep_<p>``) are
grouped into four argument positions, :data:`ARGUMENT_POSITIONS`: subject, object, locative
oblique and other. The factored slots of :mod:`aesi_lib.model.factored_slots` cross a position
with an induced semantic class of the head, so the mapping lives beside the rules that produce
the labels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aesi_lib.entities.rules import DEP_INDIRECT, DEP_OBJECT, DEP_SUBJECT, PREP_PREFIX

ARGUMENT_POSITIONS: tuple[str, ...] = ("subject", "object", "locative", "other")

# Targets of bombings are often named only as the place of the explosion ("exploded AT the
# embassy"), so locative obliques get a position of their own. This list was chosen by reading
# the per-slot errors of the default run on TST1+TST2 (the selection split), not on DEV alone.
LOCATIVE_PREPOSITIONS = frozenset({"in", "at", "on", "near", "inside"})


def argument_position(dep: str) -> int:
    """Index in :data:`ARGUMENT_POSITIONS` of a dependency label of the entity rules.

    ``nsubj`` (which includes passive agents, rule R5) is the subject; ``dobj`` and ``iobj``
    (with passive subjects) the object; ``prep_<p>`` with a locative ``p`` the locative
    oblique; anything else ``other``.
    """
    if dep == DEP_SUBJECT:
        return 0
    if dep in (DEP_OBJECT, DEP_INDIRECT):
        return 1
    if dep.startswith(PREP_PREFIX) and dep[len(PREP_PREFIX):] in LOCATIVE_PREPOSITIONS:
        return 2
    return 3


def argument_positions(deps: Sequence[str]) -> np.ndarray:
    """:func:`argument_position` of every label, as an int64 array of shape (len(deps),)."""
    return np.asarray([argument_position(str(d)) for d in deps], dtype=np.int64)
