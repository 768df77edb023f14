"""The step graph of a run in this process (``aesi_lib.steps.graph``), as a notebook runs it:
ingest, features, induction, export, evaluation."""

from __future__ import annotations

import pandas as pd

from aesi_lib.corpus.demo import load_demo_corpus
from aesi_lib.entities.rules import stored_config_id
from aesi_lib.run import pipeline
from aesi_lib.run.config import RunConfig
from aesi_lib.run.presets import preset
from aesi_lib.steps.executor import Executor
from aesi_lib.steps.graph import Project, ingest, model_steps
from aesi_lib.store import Store


def _entity_table(project: Project) -> pd.DataFrame:
    with Store(project.db, read_only=True) as store:
        return store.entity_table()


def test_the_step_graph_in_process_on_the_demo_corpus(tmp_path):
    config = RunConfig.from_dict(preset("default"))
    corpus = load_demo_corpus()
    project, n = Project.at(tmp_path / "project"), len(corpus.documents)
    stats = ingest(corpus.documents, config, project, Executor())
    assert stats["parsed"] == n and stats["unchanged"] == 0
    again = ingest(corpus.documents, config, project, Executor())
    assert again["parsed"] == 0 and again["unchanged"] == n
    artifacts = model_steps(project, sorted(d.doc_id for d in corpus.documents), config,
                            str(tmp_path / "out"), Executor(project.results))
    assignments = pd.read_parquet(artifacts["assignments_parquet"])
    table = pd.read_parquet(artifacts["entities"])
    assert list(assignments.columns) == pipeline.EXPORT_COLUMNS
    assert len(assignments) == len(table) == len(_entity_table(project))
    assert assignments["template"].between(0, config.model.n_templates - 1).all()
    scores = pipeline.evaluate_assignments(assignments, corpus.keys)
    # The demo corpus, default preset, seed 0: pinned (the flow test pins the same counts).
    assert [scores["test-mapped/lenient"][k] for k in ("tp", "fp", "fn")] == [36, 7, 95]
    assert round(scores["test-mapped/lenient"]["f1"], 3) == 0.414
    assert scores["recall_ceiling/lenient"] >= scores["test-mapped/lenient"]["recall"]
    lenient = scores["test-mapped/lenient"]
    assert lenient["recall"] <= lenient["template_recall_ceiling"]
    assert lenient["template_recall_ceiling"] <= scores["recall_ceiling/lenient"]
    assert lenient["relevance_oracle"]["f1"] >= lenient["f1"]
    misses = lenient["misses"].values()
    assert sum(m["found"] for m in misses) == lenient["tp"]
    missed = sum(m["other_slot"] + m["other_template"] + m["no_mention"] for m in misses)
    assert missed == lenient["fn"] == 95


def test_event_nouns_re_extract_the_stored_rows_and_back(tmp_path):
    """features.event_nouns (rule R12, on in the default preset) changes the stored
    configuration: turning it on or off re-extracts every document's rows from the parse cache
    (nothing is parsed again)."""
    import pytest

    from aesi_lib.run.presets import deep_merge

    # R14 and R16 read R12's event nouns: they go off with it.
    base = RunConfig.from_dict(deep_merge(preset("default"), {"features": {
        "event_nouns": False, "event_noun_senses": "first", "support_verbs": False,
        "agentive_modifiers": False, "attribution_verbs": False}}))
    config = RunConfig.from_dict(preset("default"))
    assert config.features.event_nouns
    rules = pipeline.entity_rules(config)
    if rules.event_nouns is None:
        pytest.skip("no WordNet here: scripts/setup.sh installs wordnet-base")
    corpus = load_demo_corpus()
    project, n = Project.at(tmp_path / "project"), len(corpus.documents)
    ingest(corpus.documents, base, project, Executor())
    plain = _entity_table(project)
    on = ingest(corpus.documents, config, project, Executor())
    assert (on["parsed"], on["from_parse_cache"], on["unchanged"]) == (0, n, 0)
    with_events = _entity_table(project)
    off = ingest(corpus.documents, base, project, Executor())
    assert (off["parsed"], off["unchanged"]) == (0, 0)
    again = _entity_table(project)
    assert len(with_events) > len(plain)
    key = ["doc_id", "sent_id", "head_index", "predicate", "dep"]
    added = with_events.merge(plain[key], on=key, how="left", indicator=True)
    added = added[added["_merge"] == "left_only"]
    assert not added.empty
    pd.testing.assert_frame_equal(again[key].reset_index(drop=True),
                                  plain[key].reset_index(drop=True))


def test_entity_rules_take_every_switch_of_the_features():
    import dataclasses

    from aesi_lib.entities.rules import EntityRules
    from aesi_lib.model.features import ENTITY_RULE_SWITCHES
    from aesi_lib.run.presets import deep_merge

    assert set(ENTITY_RULE_SWITCHES) <= {f.name for f in dataclasses.fields(EntityRules)}
    for name in ENTITY_RULE_SWITCHES:
        # Each switch alone (R14-R16 over the event nouns of R12).
        features = {"event_nouns": True, "event_noun_senses": "first",
                    **dict.fromkeys(ENTITY_RULE_SWITCHES, False), name: True}
        config = RunConfig.from_dict(deep_merge(preset("default"), {"features": features}))
        rules = pipeline.entity_rules(config)
        assert [s for s in ENTITY_RULE_SWITCHES if getattr(rules, s)] == [name], name


def test_entity_rules_take_the_event_noun_senses():
    import pytest

    from aesi_lib.run.presets import deep_merge

    abstract = pipeline.entity_rules(RunConfig.from_dict(preset("default")))
    if abstract.event_nouns is None:
        pytest.skip("no WordNet here: scripts/setup.sh installs wordnet-base")
    config = RunConfig.from_dict(deep_merge(preset("default"), {"features": {
        "event_noun_senses": "first"}}))
    first = pipeline.entity_rules(config)
    assert (first.event_nouns.senses, abstract.event_nouns.senses) == ("first", "abstract")
    assert abstract.event_nouns.lookup("assassination").verb == "assassinate"
    # The store records the choice, so switching it re-extracts the stored rows.
    assert stored_config_id("p", abstract) != stored_config_id("p", first)


def test_without_wordnet_the_rules_and_the_lexicon_fall_back_and_a_chosen_path_fails(
        monkeypatch, caplog, tmp_path):
    import pytest

    import aesi_lib.lexicon.wordnet as wordnet_module
    from aesi_lib.errors import ResourceMissingError
    from aesi_lib.run.presets import deep_merge

    def missing(path=None, **kwargs):
        raise ResourceMissingError(f"no WordNet at {path or 'the usual places'}")

    monkeypatch.setattr(wordnet_module, "load_wordnet", missing)
    config = RunConfig.from_dict(preset("default"))
    assert config.features.event_nouns and config.wordnet_path is None
    with caplog.at_level("WARNING", logger="aesi"):
        rules = pipeline.entity_rules(config)
        _, wordnet = pipeline.load_lexicon(config)
    assert rules.event_nouns is None and wordnet is None
    assert [r.getMessage() for r in caplog.records] == [
        "WordNet unavailable, entity rule R12 (features.event_nouns) is left out: no WordNet "
        "at the usual places",
        "WordNet unavailable, no head has a semantic type and no predicate is salient "
        "(model.similarity.salience_weight adds nothing): no WordNet at the usual places"]
    # A WordNet the user named never falls back.
    chosen = RunConfig.from_dict(deep_merge(preset("default"),
                                            {"wordnet_path": str(tmp_path / "wn")}))
    for step in (pipeline.entity_rules, pipeline.load_lexicon):
        with pytest.raises(ResourceMissingError, match=str(tmp_path / "wn")):
            step(chosen)


def test_a_sweep_extracts_once_per_distinct_stored_rows_and_never_shares_other_rows():
    # aesi sweep ingests once per group of extraction_groups(): configurations whose stored
    # rows would differ must never share one extraction, and the others should.
    import dataclasses
    from typing import Literal, get_args, get_origin, get_type_hints

    import pytest

    from aesi_lib.errors import ConfigError
    from aesi_lib.model.features import FeatureOptions
    from aesi_lib.run.experiments import extraction_groups
    from aesi_lib.run.presets import deep_merge

    variants = [{}, {"event_noun_senses": "first", "agentive_modifiers": False},
                {"event_nouns": False, "event_noun_senses": "first", "support_verbs": False,
                 "agentive_modifiers": False, "attribution_verbs": False}]
    # Every other value of every boolean or Literal feature option, one at a time.
    preset_features = RunConfig.from_dict(preset("default")).features
    for f in dataclasses.fields(FeatureOptions):
        hint = get_type_hints(FeatureOptions)[f.name]
        value = getattr(preset_features, f.name)
        values = [not value] if hint is bool else [
            v for v in get_args(hint) if v != value] if get_origin(hint) is Literal else []
        variants += [{f.name: v} for v in values]
    merged = {}
    for i, features in enumerate(variants):
        try:
            merged[f"v{i}"] = RunConfig.from_dict(deep_merge(preset("default"),
                                                             {"features": features}))
        except ConfigError:     # a combination the configuration refuses (needs another key)
            continue
    # What comes after the rows (a model weight, the seed) shares the default's extraction.
    merged["later"] = RunConfig.from_dict(deep_merge(
        preset("default"), {"model": {"seed": 3, "similarity": {"salience_weight": 0.25}}}))
    assert len(merged) >= 8
    stored = {}
    for name, config in merged.items():
        rules = pipeline.entity_rules(config)
        if rules.event_nouns is None and config.features.event_nouns:
            pytest.skip("no WordNet here: scripts/setup.sh installs wordnet-base")
        stored[name] = (config.parser, stored_config_id("p", rules))
    groups = extraction_groups(merged)
    assert sorted(name for group in groups for name in group) == sorted(merged)
    assert {"v0", "later"} <= set(next(group for group in groups if "v0" in group))
    for group in groups:
        assert len({stored[name] for name in group}) == 1, group
    assert len({stored[group[0]] for group in groups}) == len(groups)
    # R12 off, first senses, R14, R15 and R16 off, and the default itself at least.
    assert len(groups) >= 6
