"""Labels carried from a previous solution to the next one, so that ids stay comparable.

An incremental update adds documents and solves again. Without care, the template and slot
numbers of the new solution are unrelated to the old ones (a normalized cut's clusters are
numbered arbitrarily, and a small change of the graph can move its discretisation to another
local optimum). Two things keep them:

* the warm start: the new solve's cuts start from the previous labels of the mentions both
  solutions share (:class:`PreviousLabels`, given to ``aesi_lib.model.induction.induce``;
  :func:`aesi_lib.model.ncut.discretize`), so the partition stays where it was;
* carrying the ids (:func:`carry_ids`, whatever the solve started from): the clusters are
  renumbered to match the previous ones as well as possible (:func:`align_labels`, Hungarian
  matching on the shared mentions), and the mentions that kept their ids are counted. An
  update does both; a full run under another configuration only the second, so its partition
  stays its seed's own.

Not in the paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model.config import ModelConfig
from aesi_lib.model.factored_slots import factored_slot, slot_class

#: The columns of the entity table that identify a mention across solutions.
MENTION_KEY: tuple[str, ...] = ("doc_id", "sent_id", "head_index", "predicate", "dep")


@dataclass(frozen=True)
class PreviousLabels:
    """The previous solution's labels of the current mentions.

    Attributes
    ----------
    template, slot : ndarray of shape (E,), int
        -1 for a mention the previous solution did not have.
    template_members : ndarray of shape (R, E), int, optional
        The previous solution's R consensus members' template cuts
        (``aesi_lib.model.consensus``), -1 likewise; None when it had no members.
    """

    template: np.ndarray
    slot: np.ndarray
    template_members: np.ndarray | None = None

    @property
    def known(self) -> np.ndarray:
        return self.template >= 0


def previous_labels(table: pd.DataFrame, previous_table: pd.DataFrame,
                    previous_template: np.ndarray, previous_slot: np.ndarray,
                    previous_members: np.ndarray | None = None) -> PreviousLabels:
    """Look up each mention of ``table`` in the previous solution by :data:`MENTION_KEY`.

    Parameters
    ----------
    table : DataFrame
        The current entity table (one row per mention, in model order).
    previous_table : DataFrame
        The previous solution's entity table, row i labelled ``previous_template[i]``,
        ``previous_slot[i]``.
    previous_members : ndarray of shape (R, len(previous_table)), optional
        The previous solution's consensus members' template cuts, looked up the same way.

    Returns
    -------
    PreviousLabels
    """
    key = list(MENTION_KEY)
    columns = {"_template": previous_template, "_slot": previous_slot}
    if previous_members is not None:
        columns.update({f"_member{r}": m for r, m in enumerate(previous_members)})
    old = previous_table[key].assign(**{name: np.asarray(values, dtype=np.int64)
                                        for name, values in columns.items()})
    old = old.drop_duplicates(key, keep="first")
    merged = table[key].merge(old, on=key, how="left")

    def column(name: str) -> np.ndarray:
        return merged[name].fillna(-1).to_numpy(dtype=np.int64)

    members = None
    if previous_members is not None:
        members = np.stack([column(f"_member{r}") for r in range(len(previous_members))])
    return PreviousLabels(column("_template"), column("_slot"), members)


def known_share(table: pd.DataFrame, previous_table: pd.DataFrame) -> float:
    """The share of the mentions of ``table`` that ``previous_table`` has (by
    :data:`MENTION_KEY`); 0 for an empty ``table``."""
    if not len(table):
        return 0.0
    key = list(MENTION_KEY)
    known = table[key].merge(previous_table[key].drop_duplicates(), on=key, how="left",
                             indicator=True)["_merge"] == "both"
    return float(known.mean())


def within_configuration(template: np.ndarray, slot: np.ndarray, config: ModelConfig) -> bool:
    """Whether labels (-1 for none) lie within |T| and |S| of ``config``: a solution of
    another configuration can be neither warm-started from nor carried forward."""
    return bool(np.max(template, initial=-1) < config.n_templates
                and np.max(slot, initial=-1) < config.n_slots)


def align_labels(labels: np.ndarray, previous: np.ndarray, k: int) -> np.ndarray:
    """Renumber the clusters of ``labels`` so that they agree with ``previous`` on as many
    mentions as possible (Hungarian matching of the k×k overlap; -1 in ``previous`` is
    ignored). Clusters that match nothing keep a free number.

    Returns
    -------
    ndarray of shape (E,), int
    """
    labels = np.asarray(labels, dtype=np.int64)
    previous = np.asarray(previous, dtype=np.int64)
    known = previous >= 0
    if not known.any():
        return labels
    size = max(k, int(labels.max()) + 1, int(previous[known].max()) + 1)
    overlap = np.zeros((size, size), dtype=np.int64)
    np.add.at(overlap, (labels[known], previous[known]), 1)
    rows, cols = linear_sum_assignment(-overlap)
    mapping = np.empty(size, dtype=np.int64)
    mapping[rows] = cols
    return mapping[labels]


def label_changes(template: np.ndarray, slot: np.ndarray, previous: PreviousLabels
                  ) -> dict[str, Any]:
    """How many of the mentions the previous solution had kept their template and slot ids."""
    known = previous.known
    n = int(known.sum())
    kept_t = int(np.sum(template[known] == previous.template[known]))
    kept_s = int(np.sum(slot[known] == previous.slot[known]))
    return {
        "previous_mentions": n,
        "new_mentions": int((~known).sum()),
        "template_kept": kept_t,
        "slot_kept": kept_s,
        "template_kept_share": kept_t / n if n else None,
        "slot_kept_share": kept_s / n if n else None,
    }


def renumber_to_previous(template: np.ndarray, slot: np.ndarray, previous: PreviousLabels,
                         config: ModelConfig) -> tuple[np.ndarray, np.ndarray]:
    """Renumber templates, and slots, to match the previous solution (:func:`align_labels`);
    under factored slots the semantic classes are renumbered, the same in every argument
    position's block (and within each template when the classes are cut within each
    template). The partition is unchanged: only its numbers.

    Parameters
    ----------
    template, slot : ndarray of shape (E,), int
        A solution of the current mentions.
    previous : PreviousLabels
        The previous solution's labels of the same mentions (-1 where it had none).
    config : ModelConfig
        |T|, |S| and the slot model of both solutions.

    Returns
    -------
    template, slot : ndarray of shape (E,), int
    """
    template = align_labels(template, previous.template, config.n_templates)
    if config.slot_model != "factored":
        return template, align_labels(slot, previous.slot, config.n_slots)
    n_classes = config.n_slots // len(ARGUMENT_POSITIONS)
    slot = np.asarray(slot, dtype=np.int64)
    classes, previous_classes = slot_class(slot, n_classes), slot_class(previous.slot, n_classes)
    if config.class_scope == "corpus":
        classes = align_labels(classes, previous_classes, n_classes)
    else:
        for t in np.unique(template):
            rows = template == t
            classes[rows] = align_labels(classes[rows], previous_classes[rows], n_classes)
    return template, factored_slot(slot // n_classes, classes, n_classes)


@dataclass(frozen=True)
class CarriedIds:
    """A solution renumbered to a previous solution's ids (:func:`carry_ids`).

    Attributes
    ----------
    template_labels, slot_labels : ndarray of shape (E,), int
        The solution's partition, numbered after the previous solution.
    carried : dict
        How many of the previous solution's mentions kept their ids (:func:`label_changes`).
    """

    template_labels: np.ndarray
    slot_labels: np.ndarray
    carried: dict[str, Any]


def carry_ids(template: np.ndarray, slot: np.ndarray, previous: PreviousLabels,
              config: ModelConfig) -> CarriedIds:
    """Carry the ids of ``previous`` over to a solution of the current mentions: renumber its
    templates and slots to match (:func:`renumber_to_previous`; the partition is unchanged)
    and count the mentions that kept their ids (:func:`label_changes`).

    Parameters
    ----------
    template, slot : ndarray of shape (E,), int
        A solution of the current mentions (warm-started from ``previous`` or not).
    previous : PreviousLabels
        The previous solution's labels of the same mentions (-1 where it had none), within
        |T| and |S| of ``config`` (:func:`within_configuration`).
    config : ModelConfig
        |T|, |S| and the slot model of both solutions.

    Returns
    -------
    CarriedIds
    """
    template, slot = renumber_to_previous(template, slot, previous, config)
    return CarriedIds(template, slot, label_changes(template, slot, previous))
