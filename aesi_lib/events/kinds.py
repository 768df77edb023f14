"""Event templates and background templates: which templates of a run describe events.

A cut of a news corpus gives templates of two sorts. Some gather the verbs of what happens
(*attack, kill, murder*; *destroy, explode, place*; *arrest, seize, capture*); the others
gather the verbs every article uses whatever it reports (*say, make, go*; *take, give*;
*report, express, announce*). Only the first sort yields incidents
(:mod:`aesi_lib.events.incidents`); the mentions of the others stay in ``assignments``.

The rule reads two things of a template, both without keys:

* its **salience** ``s_t``: the mean, over its mentions, of their predicates' unscaled
  salience (:func:`aesi_lib.model.salience.salience_log_ratios`), the log of how many times
  more often the corpus uses a predicate than general English does. The verbs of a corpus's
  events are its own (*murder* 4.2, *kidnap* 4.0 on MUC-4); the verbs of every article are not
  (*say* 0, *take* 0.5).
* its **discourse share** ``q_t``: the share of its mentions whose predicate's first verb
  sense is a verb of communication or cognition in WordNet (*say, report, announce, believe*).
  Reporting verbs are frequent in news, so a template of them can be salient.

A template is a **discourse** template when ``q_t >= DISCOURSE_SHARE``, else an **event**
template when ``s_t >= EVENT_SALIENCE``, else a **background** template. Without WordNet no
predicate has a salience or a class, and every template is an event template.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.model.salience import SALIENCE_MIN_COUNT, salience_log_ratios

EVENT = "event"
BACKGROUND = "background"
DISCOURSE = "discourse"
#: The least mean salience of an event template: its predicates are on average used
#: e^1.2 (3.3) times as often as in general English. On MUC-4 (default, seeds 0-9) every
#: template the DEV map gives an incident type is above it
#: (docs/experiments/event-levers.md).
EVENT_SALIENCE = 1.2
#: The size of corpus (mentions) whose least count of a weighted predicate is W_T's: MUC-4
#: has 98,112 mentions under the default preset.
REFERENCE_MENTIONS = 100_000
#: The least share of communication and cognition verbs that makes a discourse template.
DISCOURSE_SHARE = 0.5
#: The WordNet verb classes of discourse: saying, reporting, believing.
DISCOURSE_CLASSES = frozenset({"verb.communication", "verb.cognition"})


@dataclass(frozen=True)
class TemplateKind:
    """One template's kind and the evidence it was decided on.

    Attributes
    ----------
    template : int
    kind : str
        :data:`EVENT`, :data:`BACKGROUND` or :data:`DISCOURSE`.
    salience : float
        ``s_t`` of the module docstring (nan without WordNet).
    discourse_share : float
        ``q_t`` (nan without WordNet).
    documents : float
        The share of the corpus's documents it occurs in (shown, not decided on).
    """

    template: int
    kind: str
    salience: float
    discourse_share: float
    documents: float

    @property
    def is_event(self) -> bool:
        return self.kind == EVENT

    def to_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and np.isnan(v) else v)
                for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TemplateKind:
        """The inverse of :meth:`to_dict`."""
        def number(value: Any) -> float:
            return float("nan") if value is None else float(value)

        return cls(int(data["template"]), str(data["kind"]), number(data["salience"]),
                   number(data["discourse_share"]), number(data["documents"]))


def least_count(n_mentions: int) -> int:
    """The least mentions of a predicate with an event weight in a corpus of ``n_mentions``
    mentions: W_T's least count (:data:`aesi_lib.model.salience.SALIENCE_MIN_COUNT`, 20) for
    a corpus the size of MUC-4 (:data:`REFERENCE_MENTIONS`), in proportion below, 2 at
    least, so that a corpus of a few dozen articles has salient verbs too."""
    scaled = round(SALIENCE_MIN_COUNT * n_mentions / REFERENCE_MENTIONS)
    return int(min(SALIENCE_MIN_COUNT, max(2, scaled)))


def predicate_weights(predicates: pd.Series, tagged_count: Callable[[str], int] | None
                      ) -> dict[str, float]:
    """Each predicate's unscaled salience in a corpus (its event weight): the value of
    :func:`aesi_lib.model.salience.salience_log_ratios` over the corpus's mentions, with the
    least count :func:`least_count` of its size.

    Parameters
    ----------
    predicates : Series of str
        The predicate of every mention of the corpus (an export's ``predicate``).
    tagged_count : callable or None
        A predicate's sense-tagged count as a verb
        (``aesi_lib.lexicon.wordnet.WordNetLexicon.verb_tagged_count``); None without
        WordNet: every weight 0.

    Returns
    -------
    dict of str to float
    """
    codes, names = pd.factorize(predicates.astype(str), sort=True)
    if tagged_count is None or len(names) == 0:
        return {str(p): 0.0 for p in names}
    counts = np.array([tagged_count(str(p)) for p in names], dtype=np.float64)
    weights = salience_log_ratios(codes, counts[codes], min_count=least_count(len(codes)))
    return {str(p): float(w) for p, w in zip(names, weights, strict=True)}


def template_kinds(assignments: pd.DataFrame, weights: Mapping[str, float],
                   verb_class: Callable[[str], str | None] | None,
                   event_salience: float = EVENT_SALIENCE,
                   discourse_share: float = DISCOURSE_SHARE) -> dict[int, TemplateKind]:
    """The kind of every template of an export (module docstring).

    Parameters
    ----------
    assignments : DataFrame
        An export: ``doc_id``, ``predicate``, ``template``.
    weights : mapping of str to float
        :func:`predicate_weights` of the same export.
    verb_class : callable or None
        A predicate's WordNet verb class (``WordNetLexicon.verb_class``); None without
        WordNet, and then every template is an event template.
    event_salience, discourse_share : float
        :data:`EVENT_SALIENCE` and :data:`DISCOURSE_SHARE`.

    Returns
    -------
    dict of int to TemplateKind
    """
    frame = pd.DataFrame({"doc_id": assignments["doc_id"].to_numpy(),
                          "template": assignments["template"].to_numpy(),
                          "predicate": assignments["predicate"].astype(str).to_numpy()})
    n_docs = max(frame["doc_id"].nunique(), 1)
    frame["weight"] = frame["predicate"].map(weights).fillna(0.0)
    known = verb_class is not None and any(weights.values())
    if known:
        classes = {p: verb_class(p) for p in frame["predicate"].unique()}
        frame["discourse"] = frame["predicate"].map(
            lambda p: classes[p] in DISCOURSE_CLASSES)
    out = {}
    for template, rows in frame.groupby("template", sort=True):
        spread = rows["doc_id"].nunique() / n_docs
        if not known:
            out[int(template)] = TemplateKind(int(template), EVENT, float("nan"),
                                              float("nan"), spread)
            continue
        salience = float(rows["weight"].mean())
        share = float(rows["discourse"].mean())
        kind = (DISCOURSE if share >= discourse_share
                else EVENT if salience >= event_salience else BACKGROUND)
        out[int(template)] = TemplateKind(int(template), kind, salience, share, spread)
    return out
