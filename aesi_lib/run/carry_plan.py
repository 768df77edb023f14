"""What a full run does with the project's last solution: keep its schema, solve again from
it, or solve afresh and only number its clusters after it.

A warm-started solve does not hold a partition once the graph has changed: on MUC-4 (default
preset, seed 0) with 10 CASIE articles placed by an update, the full run that warm-started
from the update's labels moved the template of 17.3 % of the mentions, and with each
consensus member started from its own last cut (the new mentions left unset) still 15.8 %
(docs/operations.md). So a full run under the configuration of the last solution keeps its
schema as an update does, and solving again is the user's choice (``aesi run --resolve``, or
``--fresh`` for a seed's own solve), whose moves the run counts and prints
(``aesi_lib.run.export_changes``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: What a full run does: keep the last solution's schema (its mentions keep their labels,
#: others are placed into it), solve warm-started from it and keep its ids, or solve from the
#: seed (numbering the clusters after the last solution when there is one).
PLACE, WARM, SEEDED = "place", "warm", "seeded"

#: The least share of a run's mentions that the last solution had for the run to keep its
#: schema: a project whose updates add a few documents at a time keeps nearly all; a corpus
#: mostly new to the project (another folder in the same project) is solved, not placed into
#: a schema induced from other documents.
MIN_KNOWN_SHARE = 0.5


@dataclass(frozen=True)
class CarryPlan:
    """How a full run carries the project's last solution.

    Attributes
    ----------
    action : str
        :data:`PLACE`, :data:`WARM` or :data:`SEEDED`.
    previous : dict or None
        The solution record the run places into or warm-starts from (``PLACE``, ``WARM``).
    ids_of : dict or None
        The solution record whose ids a seeded solve's clusters are numbered after.
    """

    action: str
    previous: dict[str, Any] | None = None
    ids_of: dict[str, Any] | None = None


def carry_plan(last: dict[str, Any] | None, config_digest: str, features_path: str,
               resolve: bool = False, known_share: Callable[[], float] | None = None
               ) -> CarryPlan:
    """The :class:`CarryPlan` of a full run.

    Parameters
    ----------
    last : dict or None
        The project's last solution record (``project.json``'s ``last_solution``: its
        ``config`` digest, ``features`` file and whether it was ``warm``-started or placed);
        None in a new project or with ``--fresh``.
    config_digest : str
        The run's whole configuration (``RunConfig.digest``).
    features_path : str
        The run's features file (its content key: the documents, the entity rules and the
        feature options).
    resolve : bool
        Solve again, warm-started from ``last`` (``aesi run --resolve``), where the plan
        would keep its schema.
    known_share : callable, optional
        The share of the run's mentions that ``last`` had
        (``aesi_lib.model.carry.known_share``), asked for only where the plan would keep
        ``last``'s schema or start from it (it reads two entity tables); None: all of them.

    Returns
    -------
    CarryPlan
        - no ``last``: a seeded solve;
        - another configuration (another seed, another weight, other entity rules or
          feature options: what a fresh project with it would solve), or ``last`` recorded
          before the whole configuration was (it has ``model``, not ``config``): a seeded
          solve, its clusters numbered after ``last``;
        - the very problem ``last`` solved from its seed (same features, not warm): the
          seeded solve again (cached), numbered after ``last``;
        - otherwise (the documents changed, or ``last`` was placed or warm-started: the
          nightly run after hourly updates): ``last``'s schema kept, unless ``resolve``
          asks to solve again from it or ``last`` had under :data:`MIN_KNOWN_SHARE` of the
          run's mentions (a corpus mostly new to the project): then a solve warm-started
          from it;
        - a corpus that shares no mention with ``last`` (another corpus run in the same
          project): a seeded solve, as in a new project, since there is nothing to keep,
          start from or number after.
    """
    if not last:
        return CarryPlan(SEEDED)
    same_config = last.get("config") == config_digest
    same_problem = last.get("features") == features_path and not last.get("warm")
    if not same_config or same_problem:
        return CarryPlan(SEEDED, ids_of=last)
    share = 1.0 if known_share is None else known_share()
    if share <= 0:
        return CarryPlan(SEEDED)
    keep = not resolve and share >= MIN_KNOWN_SHARE
    return CarryPlan(PLACE if keep else WARM, previous=last)


def update_plan(last: dict[str, Any] | None, config_digest: str, documents_given: bool,
                resolve: bool = False) -> CarryPlan:
    """The :class:`CarryPlan` of an update (``aesi update``, the incremental deployment).

    Parameters
    ----------
    last : dict or None
        The project's last solution record (``project.json``'s ``last_solution``).
    config_digest : str
        The update's whole configuration (``RunConfig.digest``).
    documents_given : bool
        The update was given documents (without, it solves the stored documents again: after
        ``aesi delete``, say).
    resolve : bool
        Solve again, warm-started from ``last`` (``aesi update --resolve``).

    Returns
    -------
    CarryPlan
        - no ``last``: a seeded solve;
        - documents given under the configuration of ``last``: ``last``'s schema kept, the new
          mentions placed into it;
        - otherwise (``resolve``, no documents, another configuration): a solve warm-started
          from ``last``, numbered after it.
    """
    if not last:
        return CarryPlan(SEEDED)
    if documents_given and not resolve and last.get("config") == config_digest:
        return CarryPlan(PLACE, previous=last)
    return CarryPlan(WARM, previous=last)


#: The files of a solution record that a warm start and a renumbering read, and those that a
#: placement reads besides.
START_FILES = ("entities", "labels")
PLACE_FILES = (*START_FILES, "features")


def solution_files(record: dict[str, Any] | None, names: tuple[str, ...] = START_FILES
                   ) -> dict[str, str] | None:
    """The files ``names`` of a solution record (None without a record)."""
    return None if not record else {name: str(record.get(name) or "") for name in names}


def runnable_plan(plan: CarryPlan, exists: Callable[[str], bool]) -> CarryPlan:
    """``plan`` as far as the files of the solution it reads are still there (``exists`` of a
    path; a user may have cleaned the project folder): a placement whose schema lacks a file
    solves warm-started from it when its entity table and labels remain, a warm start or a
    renumbering without them solves from the seed."""
    def has(record: dict[str, Any] | None, names: tuple[str, ...]) -> bool:
        files = solution_files(record, names)
        return files is not None and all(path and exists(path) for path in files.values())

    if plan.action == PLACE and not has(plan.previous, PLACE_FILES):
        plan = CarryPlan(WARM, previous=plan.previous)
    if plan.action == WARM and not has(plan.previous, START_FILES):
        return CarryPlan(SEEDED)
    if plan.action == SEEDED and plan.ids_of is not None and not has(plan.ids_of, START_FILES):
        return CarryPlan(SEEDED)
    return plan
