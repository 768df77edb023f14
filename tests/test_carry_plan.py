"""What a full run and an update do with the project's last solution
(``aesi_lib.run.carry_plan``)."""

from __future__ import annotations

from aesi_lib.run.carry_plan import (
    PLACE,
    SEEDED,
    WARM,
    CarryPlan,
    carry_plan,
    runnable_plan,
    solution_files,
    update_plan,
)
from aesi_lib.run.config import RunConfig
from aesi_lib.run.presets import deep_merge, preset


def _last(config: RunConfig, features: str = "f-old.npz", warm: bool = False) -> dict:
    return {"entities": "e.parquet", "labels": "l.npz", "features": features,
            "config": config.digest(), "warm": warm}


def test_a_full_run_keeps_the_schema_of_the_last_solution_of_its_configuration():
    config = RunConfig.from_dict(preset("default"))
    digest = config.digest()
    assert carry_plan(None, digest, "f.npz") == CarryPlan(SEEDED)
    last = _last(config)
    # New documents under the same configuration: the schema kept, as an update keeps it;
    # solving again is asked for.
    assert carry_plan(last, digest, "f-new.npz") == CarryPlan(PLACE, previous=last)
    assert carry_plan(last, digest, "f-new.npz", resolve=True) == CarryPlan(WARM, previous=last)
    # The nightly run after hourly updates: the same documents, the last solution placed.
    placed = _last(config, "f-new.npz", warm=True)
    assert carry_plan(placed, digest, "f-new.npz").action == PLACE
    # The same problem again: the seed's own partition (cached), numbered after the last.
    assert carry_plan(last, digest, "f-old.npz") == CarryPlan(SEEDED, ids_of=last)
    assert carry_plan(last, digest, "f-old.npz", resolve=True).action == SEEDED


def test_another_configuration_solves_from_its_seed():
    config = RunConfig.from_dict(preset("default"))
    last = _last(config)
    # Another seed, other entity rules or feature options: what a fresh project solves, its
    # clusters numbered after the last solution's.
    for change in ({"model": {"seed": 1}}, {"features": {"event_noun_senses": "first"}},
                   {"features": {"type_scheme": "depth:4"}}):
        other = RunConfig.from_dict(deep_merge(preset("default"), change))
        for resolve in (False, True):
            plan = carry_plan(last, other.digest(), "f-new.npz", resolve)
            assert plan == CarryPlan(SEEDED, ids_of=last), change
    # A record of before the whole configuration was recorded: never kept or warm-started.
    legacy = {k: v for k, v in last.items() if k != "config"} | {"model": "0123abcd"}
    assert carry_plan(legacy, config.digest(), "f-new.npz") == CarryPlan(SEEDED, ids_of=legacy)


def test_a_corpus_mostly_new_to_the_project_is_solved_not_placed():
    import pandas as pd

    from aesi_lib.model.carry import MENTION_KEY, known_share
    from aesi_lib.run.carry_plan import MIN_KNOWN_SHARE

    config = RunConfig.from_dict(preset("default"))
    last = _last(config)
    low = carry_plan(last, config.digest(), "f-new.npz",
                     known_share=lambda: MIN_KNOWN_SHARE - 0.01)
    assert low == CarryPlan(WARM, previous=last)
    high = carry_plan(last, config.digest(), "f-new.npz", known_share=lambda: MIN_KNOWN_SHARE)
    assert high.action == PLACE

    # The share is read only where the plan would keep the schema or start from it.
    def unread() -> float:
        raise AssertionError("the share was read")

    assert carry_plan(last, config.digest(), "f-old.npz", known_share=unread).action == SEEDED
    # Another corpus in the same project: nothing to keep or start from, a seeded solve
    # (a warm start from no labelled mention failed in the template cut).
    for resolve in (False, True):
        assert carry_plan(last, config.digest(), "f-new.npz", resolve=resolve,
                          known_share=lambda: 0.0) == CarryPlan(SEEDED)
    assert carry_plan(last, config.digest(), "f-new.npz", resolve=True,
                      known_share=lambda: 0.3) == CarryPlan(WARM, previous=last)

    def mentions(*docs: str) -> pd.DataFrame:
        return pd.DataFrame([(d, 0, h, "kill", "nsubj") for d in docs for h in (1, 2)],
                            columns=list(MENTION_KEY))

    assert known_share(mentions("a", "b", "c", "d"), mentions("a", "b", "c")) == 0.75
    assert known_share(mentions("x", "y"), mentions("a", "b", "c")) == 0.0
    assert known_share(mentions(), mentions("a")) == 0.0


def test_an_update_places_its_documents_into_the_schema_of_its_configuration():
    config = RunConfig.from_dict(preset("default"))
    digest = config.digest()
    last = _last(config)
    assert update_plan(None, digest, documents_given=True) == CarryPlan(SEEDED)
    assert update_plan(last, digest, documents_given=True) == CarryPlan(PLACE, previous=last)
    # --resolve, no documents (after a delete), another configuration: warm-started.
    assert update_plan(last, digest, True, resolve=True) == CarryPlan(WARM, previous=last)
    assert update_plan(last, digest, documents_given=False) == CarryPlan(WARM, previous=last)
    other = RunConfig.from_dict(deep_merge(preset("default"), {"model": {"seed": 1}}))
    assert update_plan(last, other.digest(), True) == CarryPlan(WARM, previous=last)


def test_a_plan_falls_back_as_the_files_of_the_last_solution_are_gone():
    config = RunConfig.from_dict(preset("default"))
    last = _last(config)
    every = {"e.parquet", "l.npz", "f-old.npz"}

    def present(*paths: str):
        return lambda path: path in paths

    place = CarryPlan(PLACE, previous=last)
    assert runnable_plan(place, present(*every)) == place
    assert runnable_plan(place, present("e.parquet", "l.npz")) == CarryPlan(WARM, previous=last)
    assert runnable_plan(place, present("e.parquet")) == CarryPlan(SEEDED)
    assert runnable_plan(CarryPlan(WARM, previous=last), present()) == CarryPlan(SEEDED)
    numbered = CarryPlan(SEEDED, ids_of=last)
    assert runnable_plan(numbered, present("e.parquet", "l.npz")) == numbered
    assert runnable_plan(numbered, present("l.npz")) == CarryPlan(SEEDED)
    assert solution_files(last) == {"entities": "e.parquet", "labels": "l.npz"}
    assert solution_files(None) is None
