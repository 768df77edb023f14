"""Rule R17 of :mod:`aesi_lib.entities.rules` by its parts (issue 67): a noun inside an
argument's noun phrase, reached by the links of ``EntityRules.modifier_links``: a noun
compound (*Windows* in *Windows users*), a possessor (*hospital* in *the hospital's
systems*) or a prepositional object (*users* in *the data of users*), is an argument of the
same predicate. R17 with every link was measured and removed at 5291fcb; this measures each
link alone (docs/experiments/reach-rules.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from aesi_lib.entities.event_noun_rules import prepositional_objects
from aesi_lib.entities.sentence_view import SentenceView

#: The links R17 can follow, as ``features.modifier_links`` names them.
MODIFIER_LINKS = ("compound", "poss", "prep")
#: How deep R17 reads into one argument's phrase: the possessor of an *of*-object
#: (*control of the hospital's systems* -> hospital) is two links from the argument.
MODIFIER_DEPTH = 2
#: What joins an argument's dependency to the link R17 followed last (``dobj>of``).
MODIFIER_LINK = ">"
_COMPOUND = frozenset({"compound"})
_POSSESSOR = frozenset({"poss", "nmod:poss"})


def modifier_arguments(view: SentenceView, arguments: Sequence[tuple[int, str]],
                       taken: set[int], links: Sequence[str]) -> list[tuple[int, int, str]]:
    """(modifier noun, index in ``arguments``, dependency) of R17 for the sentence's
    ``arguments`` (argument noun, dependency), following only ``links``.

    A noun inside an argument's phrase by one of ``links`` (and its conjuncts), up to
    :data:`MODIFIER_DEPTH` links down, is an argument of the same predicate with the
    dependency ``<argument's dependency>><link>`` (``dobj>of``, ``nsubj>poss``,
    ``dobj>compound``; a prepositional object is named by its preposition). A noun already in
    ``taken`` (an argument of some rule) is not repeated; ``taken`` gains the nouns returned.
    """
    out: list[tuple[int, int, str]] = []
    for k, (noun, dep) in enumerate(arguments):
        frontier = [noun]
        for _ in range(MODIFIER_DEPTH):
            found = []
            for head in frontier:
                for modifier, link in _noun_modifiers(view, head, links):
                    for n in view.conjuncts(modifier):
                        if n in taken or not view.is_noun(n):
                            continue
                        taken.add(n)
                        found.append(n)
                        out.append((n, k, f"{dep}{MODIFIER_LINK}{link}"))
            frontier = found
    return out


def _noun_modifiers(view: SentenceView, noun: int, links: Sequence[str]
                    ) -> list[tuple[int, str]]:
    """(modifier token, link name) of the nouns directly inside ``noun``'s phrase."""
    out: list[tuple[int, str]] = []
    if "compound" in links:
        out += [(c, "compound") for c in view.kids(noun, _COMPOUND)]
    if "poss" in links:
        out += [(c, "poss") for c in view.kids(noun, _POSSESSOR)]
    if "prep" in links:
        out += prepositional_objects(view, noun)
    return sorted(out)
