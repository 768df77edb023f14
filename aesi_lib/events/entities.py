"""The entities of a document: its mentions merged, each with a text as a person writes it.

A run labels mentions; a person reads entities. Within one document, mentions are merged into
entities by four rules, in this order:

1. **Descriptions** (mentions whose head is a common noun) with the same head word
   (lowercased) are one entity when the words of one's phrase occur, in order, in the
   other's: *guerrillas* and *urban guerrillas* are one, *border post* and *reception post*
   two.
2. **Names** (mentions whose head is a proper noun) are read without the titles before them
   (:func:`strip_titles`: *Defense Minister General Enrique Lopez Albujar* is *Enrique Lopez
   Albujar*; the name of a group, which ends in a common noun, keeps them). A name whose
   mention holds a number is read as its mention, numbers kept (its phrase drops them): *25
   January* and *22 January* are two dates, *Windows 10* is not *Windows 7*.
3. A **shorter form** of a name, whose words all occur in order in a longer name, joins it:
   *Oqueli* and *Hector Oqueli* join *Hector Oqueli Colindres*; *Humberto Romero* and
   *Oscar Arnulfo Romero* stay two, and a lone *Romero* joins the longer.
4. An **acronym**, a one-word name of three letters or more made of the initials of another
   entity's three words or more, in any order, all or all but one (*of*, *and*, *the*, *de*, *la*,
   *del* skipped: names translated from Spanish keep the Spanish order of their acronym),
   joins it: *FMLN* joins *Farabundo Marti National Liberation Front*, *URNG* joins
   *Guatemalan National Revolutionary Unity*; the entity becomes a name.

Each entity's **text** is its most complete name (the longest), or for a description the
phrase of its first mention (``phrase`` of the export: the head with the words before it that
name or describe it, ``aesi_lib.entities.rules``) followed by that mention's *of* complement
(:func:`of_complement`: *members of the Salvadoran armed forces*, *offices of lawyer Luis
Rossman*, not *members*, *offices*). The metric of the supervised systems
compares these texts with the keys' strings, so one text per entity; every mention stays as
evidence with its span in the user's text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Abbreviated titles WordNet does not know as nouns.
TITLE_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "msgr", "gen", "col", "lt", "sgt",
                                 "capt", "maj", "fr", "rev", "sen", "gov", "pres", "cmdr",
                                 "adm", "prof", "st"})
#: The least letters of an acronym.
ACRONYM_LETTERS = 3
#: The most words of an *of* complement a description's text keeps (:func:`of_complement`),
#: chosen on DEV (docs/experiments/entity-text.md).
OF_COMPLEMENT_WORDS = 9
#: Where an *of* complement ends: a clause or an aside begins.
_COMPLEMENT_END = re.compile(r"[,;:(\[{]")
#: Words an acronym's initials skip.
ACRONYM_SKIPPED = frozenset({"of", "and", "the", "for", "de", "la", "del", "el", "los", "las"})

NAME = "name"
DESCRIPTION = "description"


@dataclass(frozen=True)
class Entity:
    """One entity of a document.

    Attributes
    ----------
    text : str
        How a person writes it (module docstring).
    kind : str
        :data:`NAME` or :data:`DESCRIPTION`.
    mentions : tuple of int
        Its mentions: positions in the rows given to :func:`document_entities`, in order.
    """

    text: str
    kind: str
    mentions: tuple[int, ...]


def strip_titles(name: str, is_title: Callable[[str], bool] | None) -> str:
    """``name`` without the words before it up to its last title: every word up to the last
    word before the final one that is a title (a noun of a person such as *minister* or
    *mayor* by ``is_title``, or one of :data:`TITLE_ABBREVIATIONS`). ``"Monsignor Arnulfo Romero"``
    -> ``"Arnulfo Romero"``. A name that ends in a common noun is the name of a group or a
    place and keeps every word (``"National Liberation Front"``)."""
    def title(word: str) -> bool:
        bare = word.strip(".").lower()
        return bare in TITLE_ABBREVIATIONS or (is_title is not None and is_title(bare))

    words = name.split()
    if not words or title(words[-1]):
        return name
    cut = 0
    for i, word in enumerate(words[:-1]):
        if title(word):
            cut = i + 1
    return " ".join(words[cut:])


def around_phrase(phrase: str, mention: str) -> tuple[str, str] | None:
    """The text of ``mention`` before and after its first occurrence of ``phrase``, its
    whitespace read as one blank as the phrase writes it (``("ten", " of the FMLN")`` for
    ``members`` in ``"ten members of the\nFMLN"``); None when the mention does not hold the
    phrase (a pronoun's phrase is its antecedent's)."""
    words = " ".join(mention.split())
    at = words.find(phrase) if phrase else -1
    if at < 0:
        return None
    return words[:at].rstrip(), words[at + len(phrase):]


def of_complement(phrase: str, mention: str, max_words: int = OF_COMPLEMENT_WORDS) -> str:
    """The *of* complement of a mention after its phrase: ``" of the FMLN"`` for the phrase
    ``members`` in ``"ten members of the FMLN"``; ``""`` when the words after the phrase
    (up to a comma, semicolon, colon or bracket) do not begin with *of* or are more than
    ``max_words`` words (:func:`around_phrase` reads the mention)."""
    around = around_phrase(phrase, mention)
    if around is None:
        return ""
    rest = _COMPLEMENT_END.split(around[1], maxsplit=1)[0].split()
    if not rest or rest[0].lower() != "of" or len(rest) > max_words:
        return ""
    return " " + " ".join(rest)


def _initials(text: str) -> str:
    return "".join(w[0] for w in text.lower().split() if w not in ACRONYM_SKIPPED)


def _ordered_subset(short: list[str], long: list[str]) -> bool:
    rest = iter(long)
    return all(word in rest for word in short)


def _nested_clusters(mentions: list[tuple[int, str]]) -> list[list[int]]:
    """Mentions (position, text) grouped by nested words: the longest texts first, each joins
    the first group whose longest text holds its words in order, else starts one. Each
    group's positions in order; the groups in order of their first position."""
    groups: list[tuple[list[str], list[int]]] = []
    for i, phrase in sorted(mentions, key=lambda m: (-len(m[1].split()), m[0])):
        words = phrase.lower().split()
        for longest, rows in groups:
            if _ordered_subset(words, longest):
                rows.append(i)
                break
        else:
            groups.append((words, [i]))
    return sorted((sorted(rows) for _, rows in groups), key=lambda rows: rows[0])


def _numbered(mention: str | None) -> bool:
    return mention is not None and any(ch.isdigit() for ch in mention)


def document_entities(heads: Sequence[str], phrases: Sequence[str], proper: Sequence[bool],
                      is_title: Callable[[str], bool] | None = None,
                      mentions: Sequence[str] | None = None,
                      of_complement_words: int = OF_COMPLEMENT_WORDS) -> list[Entity]:
    """The entities of one document's mentions (module docstring).

    Parameters
    ----------
    heads, phrases, proper : sequences of one document's mentions, in text order
        Each mention's head word, phrase and whether its head is a proper noun (the export's
        ``head``, ``phrase`` and ``proper``). An empty phrase reads as the head.
    is_title : callable, optional
        Whether a lowercased word is a title (``WordNetLexicon.is_person_noun``); without it
        only :data:`TITLE_ABBREVIATIONS` are.
    mentions : sequence of str, optional
        Each mention's text (the export's ``mention``): a name whose mention holds a number
        is read as it, and a description's text takes its first mention's *of* complement
        (module docstring). None: every name is read from its phrase, and descriptions
        take no complement.
    of_complement_words : int
        :data:`OF_COMPLEMENT_WORDS` (0: no complement; for experiments).

    Returns
    -------
    list of Entity
        In order of their first mention; every mention in exactly one entity.
    """
    groups: dict[tuple[str, str], list[int]] = {}
    texts: dict[tuple[str, str], str] = {}
    described: dict[str, list[tuple[int, str]]] = {}
    named: list[tuple[int, str]] = []
    described_mentions = None if mentions is None else list(map(str, mentions))
    for i, (head, phrase, is_proper) in enumerate(zip(heads, phrases, proper, strict=True)):
        mention = None if mentions is None else mentions[i]
        if is_proper and _numbered(mention):
            phrase = mention
        phrase = " ".join((phrase or head).split())
        if is_proper:
            named.append((i, strip_titles(phrase, is_title) or head))
        else:
            described.setdefault(head.lower(), []).append((i, phrase))
    for head, mentions in described.items():
        for number, rows in enumerate(_nested_clusters(mentions)):
            key = (DESCRIPTION, f"{head}#{number}")
            first = dict(mentions)[rows[0]]
            texts[key] = first + (of_complement(first, described_mentions[rows[0]],
                                                of_complement_words)
                                  if described_mentions is not None else "")
            groups[key] = rows
    spelled = dict(named)
    for number, rows in enumerate(_nested_clusters(named)):
        key = (NAME, str(number))
        texts[key] = max((spelled[r] for r in rows), key=lambda n: (len(n.split()), len(n)))
        groups[key] = rows
    target: dict[tuple[str, str], tuple[str, str]] = {}
    # A one-word name made of another entity's initials joins it.
    multiword = [(Counter(_initials(texts[k])), k) for k in groups
                 if len(texts[k].split()) >= 3 and k not in target]
    kinds = {k: k[0] for k in groups}
    for key in groups:
        word = texts[key].lower()
        if (key in target or key[0] != NAME or len(texts[key].split()) != 1
                or len(word) < ACRONYM_LETTERS or not word.isalpha()):
            continue
        letters = Counter(word)
        for initials, long in multiword:
            if (long != key and not letters - initials
                    and initials.total() - letters.total() <= 1):
                target[key] = long
                kinds[long] = NAME
                break
    members: dict[tuple[str, str], list[int]] = {}
    for key, rows in groups.items():
        members.setdefault(target.get(key, key), []).extend(rows)
    entities = [Entity(texts[key], kinds[key], tuple(sorted(rows)))
                for key, rows in members.items()]
    return sorted(entities, key=lambda e: e.mentions[0])
