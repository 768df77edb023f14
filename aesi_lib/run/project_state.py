"""What a project remembers between commands (``project.json``), and what each command takes
from it and leaves in it.

A project folder keeps one small JSON state beside its store: the corpus its last full run read
and how (so a scheduled run reads it again), that run's configuration (so an update refines
the schema it made), its export folder, the last solution (so the next command can carry it:
``aesi_lib.run.carry_plan``) and the updates since (their documents, so that the next full
run exports them too). The functions here are the whole policy over that state, pure
functions of it: the flows read the file, call them, and write what they return.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from aesi_lib.corpus.sources import recorded_corpus
from aesi_lib.run.config import RunConfig, read_config_file
from aesi_lib.run.presets import deep_merge, preset
from aesi_lib.run.resources import absolute_path, absolute_resource_paths

#: How a run reads its documents, as the command line and the flows name the options.
READING_OPTIONS = ("encoding", "skip_bad", "max_doc_chars", "keep_non_english")


def run_configuration(config: Mapping[str, Any] | None, config_path: str | None,
                      preset_name: str | None = None) -> dict[str, Any]:
    """The configuration a full run runs with, as nested dicts: ``config`` (the preset
    ``preset_name`` when None, ``default`` when that is None too) with the file
    ``config_path`` merged over it, its resource paths absolute
    (``aesi_lib.run.resources.absolute_resource_paths``: the project keeps them for later
    runs). A deployment names its preset (``prefect.yaml``), so nothing from an ad-hoc run
    reaches it.

    Raises
    ------
    ValueError
        For an unknown ``preset_name``, naming the presets.
    """
    data = preset(preset_name or "default") if config is None else dict(config)
    if config_path:
        data = deep_merge(data, read_config_file(config_path))
    return absolute_resource_paths(data)


def update_configuration(state: Mapping[str, Any], config: Mapping[str, Any] | None,
                         config_path: str | None, preset_name: str | None
                         ) -> dict[str, Any]:
    """The configuration an update runs with: with a preset or a configuration file, that
    (``default`` when only a file is given) with ``config`` and the file merged over it, so
    that a scheduled update runs with its own settings whatever ad-hoc run came before;
    otherwise the configuration of the project's last full run (``state["config"]``; the
    defaults when there is none) with ``config`` merged over it."""
    if preset_name or config_path:
        return run_configuration(deep_merge(preset(preset_name or "default"), config or {}),
                                 config_path)
    return absolute_resource_paths(deep_merge(dict(state.get("config", {})), config or {}))


def recorded_reading(state: Mapping[str, Any], project_dir: str | Path,
                     reading: Mapping[str, Any]) -> dict[str, Any]:
    """The corpus of a scheduled run that names none: ``muc4_dir``, ``docs_path`` and
    ``demo`` as the project's last full run recorded them, and each of
    :data:`READING_OPTIONS` as recorded, else as given in ``reading``.

    Raises
    ------
    InputError
        Naming the project when it records no corpus the user chose
        (``aesi_lib.corpus.sources.recorded_corpus``).
    """
    recorded = recorded_corpus(state.get("corpus"), project_dir)
    options = {k: recorded.get(k, reading.get(k)) for k in READING_OPTIONS}
    return {"muc4_dir": recorded.get("muc4_dir"), "docs_path": recorded.get("docs_path"),
            "demo": bool(recorded.get("demo", False)), **options,
            "skip_bad": bool(options["skip_bad"]),
            "keep_non_english": bool(options["keep_non_english"])}


def corpus_record(muc4_dir: str | None, docs_path: str | None, demo: bool,
                  reading: Mapping[str, Any], found_muc4: str | None = None
                  ) -> dict[str, Any]:
    """The corpus a full run records for the scheduled runs after it: its folders as absolute
    paths (the MUC-4 folder as found when none was named, so that a scheduled run reads the
    same one), whether it was the demo, and how its documents were read
    (:data:`READING_OPTIONS`)."""
    return {"muc4_dir": absolute_path(muc4_dir or found_muc4),
            "docs_path": absolute_path(docs_path), "demo": demo,
            **{k: reading.get(k) for k in READING_OPTIONS}}


def run_documents(corpus_ids: Iterable[str], state: Mapping[str, Any],
                  stored: Iterable[str]) -> tuple[list[str], list[str]]:
    """The documents a full run solves: the corpus's in its order, then, in order of their
    ids, those that updates added to the project and that are still stored (a nightly full
    run exports the whole project).

    Returns
    -------
    doc_ids : list of str
    added : list of str
        The documents of updates among them.
    """
    corpus_ids = list(corpus_ids)
    updated = {d for update in state.get("updates", []) for d in update.get("doc_ids", [])}
    added = sorted(updated & set(stored) - set(corpus_ids))
    return corpus_ids + added, added


def solution_record(artifacts: Mapping[str, Any], config: RunConfig) -> dict[str, Any]:
    """What the state keeps of a solve for the next run or update to carry forward: its files,
    the features it solved, the digest of its whole configuration (``RunConfig.digest``),
    whether it was warm-started from an earlier solution, and the export kept in the
    project."""
    return {"entities": artifacts["entities"], "labels": artifacts["labels"],
            "features": artifacts["features"], "config": config.digest(),
            "warm": bool(artifacts.get("warm")), "export": artifacts.get("kept_export")}


def after_run(state: Mapping[str, Any], corpus: Mapping[str, Any], config: RunConfig,
              out_dir: str, solution: Mapping[str, Any]) -> dict[str, Any]:
    """The state a full run leaves: the corpus it read and how (``corpus``, which a scheduled
    run reads again), its configuration and export folder, its solution
    (:func:`solution_record`), and the updates so far, whose documents it solved too."""
    return {"corpus": dict(corpus), "config": config.to_dict(), "out_dir": out_dir,
            "last_solution": dict(solution), "updates": list(state.get("updates", []))}


def after_update(state: Mapping[str, Any], docs_path: str | None, given: list[str],
                 parsed: int, carried: Any, solution: Mapping[str, Any]) -> dict[str, Any]:
    """The state an update leaves: the last full run's as it was, the update appended (its
    folder, the documents given, how many were parsed, the ids it carried) and its solution
    the last."""
    update = {"docs_path": docs_path, "documents": len(given), "doc_ids": list(given),
              "parsed": parsed, "carried": carried}
    return {**state, "updates": [*state.get("updates", []), update],
            "last_solution": dict(solution)}
