"""Gold entities from MUC-4 answer keys (evaluation.md, "Gold entities").

The key reader (``aesi_lib.corpus.muc4_keys.read_muc4_keys``) yields :class:`KeyTemplate` records;
this module turns them into, per message and gold slot, a tuple of merged :class:`GoldEntity`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.errors import AesiError

PERPETRATOR = "Perpetrator"
VICTIM = "Victim"
TARGET = "Target"
INSTRUMENT = "Instrument"
GOLD_SLOTS: tuple[str, ...] = (PERPETRATOR, VICTIM, TARGET, INSTRUMENT)

#: Key slot numbers whose fillers make up each gold slot (evaluation.md, "Four gold slots").
KEY_SLOTS: dict[str, tuple[int, ...]] = {
    PERPETRATOR: (9, 10),
    VICTIM: (18, 19),
    TARGET: (12,),
    INSTRUMENT: (6,),
}

EVENT_TYPES: tuple[str, ...] = ("ATTACK", "BOMBING", "KIDNAPPING", "ARSON")

#: Gold slots that each type can fill (evaluation.md, "Mapping learned roles to gold slots").
TYPE_GOLD_SLOTS: dict[str, tuple[str, ...]] = {
    "KIDNAPPING": (PERPETRATOR, VICTIM),
    "ARSON": (PERPETRATOR, VICTIM, TARGET),
    "ATTACK": GOLD_SLOTS,
    "BOMBING": GOLD_SLOTS,
}

_EMPTY_FILLS = frozenset({"", "-", "*"})

#: Per message, per gold slot, the merged gold entities.
Gold = dict[str, dict[str, tuple["GoldEntity", ...]]]


class MissingKeyError(AesiError):
    """A message that should be scored has no answer-key block."""


@dataclass(frozen=True)
class GoldEntity:
    """One gold entity of one message and gold slot.

    ``alternatives`` are its strings (first spelling kept when copies differ only in case);
    ``optional`` is True when missing it is not a false negative; ``types`` are the incident types
    (of the four) of the templates it came from.
    """

    alternatives: tuple[str, ...]
    optional: bool
    types: frozenset[str] = frozenset()


def template_types(template: KeyTemplate, types: Iterable[str] = EVENT_TYPES) -> tuple[str, ...]:
    """The incident types of a template that are among ``types``.

    Implements evaluation.md, "Templates used": a slash alternative counts as each type it lists;
    ROBBERY and FORCED WORK STOPPAGE (and all-``*`` blocks) give no type.

    Parameters
    ----------
    template : KeyTemplate
    types : iterable of str
        The types to keep, upper case.

    Returns
    -------
    tuple of str
        In the order of the key, without duplicates; empty for an irrelevant template.
    """
    if template.is_irrelevant:
        return ()
    wanted = set(types)
    out: list[str] = []
    for raw in template.incident_types:
        # The reader splits on "/"; split again and strip in case a caller hands a raw value.
        for part in raw.split("/"):
            t = " ".join(part.split()).upper()
            if t in wanted and t not in out:
                out.append(t)
    return tuple(out)


def _clean_alternatives(alternatives: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[str] = set()
    for alt in alternatives:
        text = " ".join(alt.split())
        key = text.lower()
        if text in _EMPTY_FILLS or key in seen:
            continue
        seen.add(key)
        out.append(text)
    return tuple(out)


def template_entities(
    template: KeyTemplate, gold_slot: str, types: Iterable[str] = EVENT_TYPES
) -> list[GoldEntity]:
    """The unmerged gold entities of one template for one gold slot.

    Implements evaluation.md, "Gold entities": each filler line of the slot's key slots is one
    entity; a ``?`` line, or any line of an ``(OPTIONAL)`` template, is optional; ``-``/``*``
    are empty.

    Parameters
    ----------
    template : KeyTemplate
    gold_slot : str
        One of :data:`GOLD_SLOTS`.
    types : iterable of str
        Templates with none of these types give no entity.

    Returns
    -------
    list of GoldEntity
    """
    kept = template_types(template, types)
    if not kept:
        return []
    out = []
    for slot_no in KEY_SLOTS[gold_slot]:
        for filler in template.slots.get(slot_no, ()):
            alts = _clean_alternatives(filler.alternatives)
            if alts:
                optional = bool(filler.optional or template.optional)
                out.append(GoldEntity(alts, optional, frozenset(kept)))
    return out


def merge_entities(entities: Sequence[GoldEntity]) -> tuple[GoldEntity, ...]:
    """Merge the entities of one message and gold slot that share an alternative.

    Implements evaluation.md, "Within one message and one gold slot, entities that share an
    alternative string (case-insensitive) are merged into one; the merged entity is optional
    only if every copy was". Sharing is transitive (A~B and B~C merge all three).

    Parameters
    ----------
    entities : sequence of GoldEntity

    Returns
    -------
    tuple of GoldEntity
        In order of first appearance; alternatives in order of first appearance.
    """
    parent = list(range(len(entities)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, ent in enumerate(entities):
        for alt in ent.alternatives:
            key = alt.lower()
            if key in owner:
                a, b = find(owner[key]), find(i)
                if a != b:
                    # The smaller index stays the root so output order is first appearance.
                    parent[max(a, b)] = min(a, b)
            else:
                owner[key] = i
    groups: dict[int, list[GoldEntity]] = {}
    for i, ent in enumerate(entities):
        groups.setdefault(find(i), []).append(ent)
    merged = []
    for root in sorted(groups):
        copies = groups[root]
        merged.append(
            GoldEntity(
                alternatives=_clean_alternatives(a for c in copies for a in c.alternatives),
                optional=all(c.optional for c in copies),
                types=frozenset().union(*(c.types for c in copies)),
            )
        )
    return tuple(merged)


def key_message_ids(keys: Iterable[KeyTemplate]) -> list[str]:
    """Message IDs of the key blocks, in order of first appearance (every message of a split has
    at least one block, evaluation.md "Data").

    Parameters
    ----------
    keys : iterable of KeyTemplate

    Returns
    -------
    list of str
    """
    return list(dict.fromkeys(k.message_id for k in keys))


def extract_gold(
    keys: Sequence[KeyTemplate],
    doc_ids: Iterable[str] | None = None,
    *,
    types: Iterable[str] = EVENT_TYPES,
) -> Gold:
    """Gold entities per message and gold slot (evaluation.md, "Gold entities").

    Entities are pooled over all the message's templates of ``types`` ("the template type is
    ignored"), then merged (:func:`merge_entities`). A message without a template of ``types``
    (an all-``*`` block, or only ROBBERY / FORCED WORK STOPPAGE) has empty gold but is still
    scored, so its guesses are false positives.

    Parameters
    ----------
    keys : sequence of KeyTemplate
        All key blocks of the split (several per message allowed).
    doc_ids : iterable of str, optional
        The messages to score; default every message of ``keys``.
    types : iterable of str
        Incident types whose templates count; the mapping step uses one type at a time
        (evaluation.md, "Mapping", step 1).

    Returns
    -------
    dict
        ``gold[message_id][gold_slot]`` is a tuple of :class:`GoldEntity` (possibly empty); every
        message has all four gold slots.

    Raises
    ------
    MissingKeyError
        When a message of ``doc_ids`` has no key block.
    """
    types = tuple(types)
    by_msg: dict[str, list[KeyTemplate]] = {}
    for k in keys:
        by_msg.setdefault(k.message_id, []).append(k)
    wanted = list(by_msg) if doc_ids is None else list(dict.fromkeys(doc_ids))
    missing = [d for d in wanted if d not in by_msg]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise MissingKeyError(f"{len(missing)} message(s) have no answer key: {shown}")
    gold: Gold = {}
    for d in wanted:
        gold[d] = {
            g: merge_entities([e for t in by_msg[d] for e in template_entities(t, g, types)])
            for g in GOLD_SLOTS
        }
    return gold


def relevant_message_ids(
    keys: Iterable[KeyTemplate], types: Iterable[str] = EVENT_TYPES
) -> set[str]:
    """Messages with at least one template of ``types`` (optional templates included).

    Parameters
    ----------
    keys : iterable of KeyTemplate
    types : iterable of str

    Returns
    -------
    set of str
    """
    types = tuple(types)
    return {k.message_id for k in keys if template_types(k, types)}


def gold_counts(gold: Gold) -> dict[str, tuple[int, int]]:
    """Entities / non-optional entities per gold slot and ``"all"`` (evaluation.md, "Sanity
    counts").

    Parameters
    ----------
    gold : Gold

    Returns
    -------
    dict
        ``{gold_slot: (n_entities, n_non_optional)}`` plus the key ``"all"``.
    """
    out = {}
    for g in GOLD_SLOTS:
        ents = [e for slots in gold.values() for e in slots[g]]
        out[g] = (len(ents), sum(not e.optional for e in ents))
    out["all"] = (sum(v[0] for v in out.values()), sum(v[1] for v in out.values()))
    return out


def template_counts(keys: Iterable[KeyTemplate]) -> dict[str, tuple[int, int]]:
    """Templates / non-optional templates per incident type (evaluation.md, "Sanity counts");
    a slash type counts once for each of its types.

    Parameters
    ----------
    keys : iterable of KeyTemplate

    Returns
    -------
    dict
        ``{type: (n_templates, n_non_optional)}`` for each of :data:`EVENT_TYPES`.
    """
    counts = {t: [0, 0] for t in EVENT_TYPES}
    for k in keys:
        for t in template_types(k):
            counts[t][0] += 1
            counts[t][1] += not k.optional
    return {t: (a, b) for t, (a, b) in counts.items()}
