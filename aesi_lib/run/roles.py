"""The readable schema: each template's roles, named by what fills them.

A run labels every mention with a template and a slot; with factored slots a template has
|S| = 4 × classes slots, most of them small. A person reads a template by its **roles**: the
slots that hold at least :data:`ROLE_SHARE` of the template's mentions. Each role is described
by its argument position, the predicates its mentions are arguments of and its head words
("subject of attack, kill, murder: guerrillas, terrorists, members"); the smaller slots stay in
the data and are listed apart as minor. A template is named by its commonest predicates.

The share was chosen on DEV (docs/experiments/role-share.md): the largest share at which every
slot that the DEV-learned mapping gives a gold role is a role in each of seeds 0-9.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from aesi_lib.entities.positions import ARGUMENT_POSITIONS, argument_positions

#: A slot is a role of its template when it holds at least this share of the template's
#: mentions (chosen on DEV: docs/experiments/role-share.md).
ROLE_SHARE = 0.03
#: Predicates and head words that describe a template or a role.
DESCRIBING_WORDS = 3


@dataclass(frozen=True)
class Role:
    """One slot of a template, as a person reads it.

    Attributes
    ----------
    template, slot : int
        The labels of the export.
    position : str
        The commonest argument position of its mentions (one of
        :data:`aesi_lib.entities.positions.ARGUMENT_POSITIONS`; with factored slots every
        mention of a slot has the same one).
    predicates, heads : list of str
        Its commonest predicates and lowercased head words (:func:`describing_heads`), most
        frequent first.
    mentions : int
        Its mentions.
    share : float
        Its share of the template's mentions.
    minor : bool
        Below :data:`ROLE_SHARE`: listed apart, not a role.
    """

    template: int
    slot: int
    position: str
    predicates: list[str]
    heads: list[str]
    mentions: int
    share: float
    minor: bool

    @property
    def description(self) -> str:
        """``"subject of attack, kill, murder: guerrillas, terrorists, members"``."""
        return (f"{self.position} of {', '.join(self.predicates)}: "
                f"{', '.join(self.heads)}")


def _commonest(values: pd.Series, n: int) -> list[str]:
    counts = values.value_counts(sort=False)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
    return [str(value) for value, _ in ranked[:n]]


#: Two letters or more (``u.s.`` too): a head a reader can take for a word, not ``%``, ``m``,
#: ``-`` or ``'``, the heads a parser finds in "40 %", "5 m" or a stray dash.
_WORD = re.compile(r"[^\W\d_].*[^\W\d_]")


def describing_heads(heads: pd.Series, n: int = DESCRIBING_WORDS) -> list[str]:
    """The ``n`` commonest of ``heads`` that are words (two letters or more), most frequent
    first (ties: alphabetically): what a role is described by. A role none of whose heads is a
    word is described by its commonest heads as they are."""
    words = heads[heads.astype(str).str.contains(_WORD)]
    return _commonest(words if len(words) else heads, n)


def template_name(predicates: pd.Series, n: int = DESCRIBING_WORDS) -> str:
    """A template's name: its ``n`` commonest predicates, ``"attack/kill/murder"``.

    Ties go to the alphabetically first predicate, so the name does not depend on row order.
    """
    return "/".join(_commonest(predicates, n))


def template_roles(assignments: pd.DataFrame, share: float = ROLE_SHARE) -> list[Role]:
    """Every (template, slot) of an export as a :class:`Role`, the minor ones marked.

    Parameters
    ----------
    assignments : DataFrame
        The export's columns ``template``, ``slot``, ``predicate``, ``head`` and ``dep``.
    share : float
        The least share of its template's mentions that makes a slot a role.

    Returns
    -------
    list of Role
        Templates by decreasing size (ties: the smaller id), and within each template its
        slots by decreasing size (ties: the smaller id).
    """
    # Only the columns read below, grouped once: selecting each template's and each slot's
    # rows from the whole export took most of a warm run's export step.
    frame = pd.DataFrame({
        "template": assignments["template"].to_numpy(), "slot": assignments["slot"].to_numpy(),
        "predicate": assignments["predicate"].to_numpy(),
        "_head": assignments["head"].astype(str).str.lower().to_numpy(),
        "_position": argument_positions(assignments["dep"].astype(str).tolist())})
    templates = dict(list(frame.groupby("template", sort=False)))
    order = sorted(templates, key=lambda t: (-len(templates[t]), t))
    roles = []
    for template in order:
        rows = templates[template]
        cells = dict(list(rows.groupby("slot", sort=False)))
        for slot in sorted(cells, key=lambda s: (-len(cells[s]), s)):
            cell = cells[slot]
            position = int(cell["_position"].value_counts().sort_index().idxmax())
            fraction = float(len(cell) / len(rows))
            roles.append(Role(
                template=int(template), slot=int(slot), position=ARGUMENT_POSITIONS[position],
                predicates=_commonest(cell["predicate"], DESCRIBING_WORDS),
                heads=describing_heads(cell["_head"]),
                mentions=len(cell), share=fraction, minor=fraction < share))
    return roles


def roles_frame(roles: list[Role]) -> pd.DataFrame:
    """The roles as a table, one row per (template, slot), with their descriptions."""
    rows = [{**asdict(r), "description": r.description} for r in roles]
    columns = ["template", "slot", "position", "predicates", "heads", "mentions", "share",
               "minor", "description"]
    return pd.DataFrame(rows, columns=columns)


def roles_by_template(roles: list[Role]) -> dict[int, list[dict[str, Any]]]:
    """The roles of each template as JSON-able dicts (``schema.json``'s ``roles``)."""
    out: dict[int, list[dict[str, Any]]] = {}
    for role in roles:
        entry = {**asdict(role), "description": role.description}
        entry.pop("template")
        out.setdefault(role.template, []).append(entry)
    return out
