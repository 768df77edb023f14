"""Validation of a run's configuration (``aesi_lib.run.config``): bad values fail at once with
one line naming the key and what is allowed, the allowed values have one source, the digests
of existing configurations do not change, and sizes the corpus cannot hold fail before the
eigensolver."""

from __future__ import annotations

import dataclasses
import json
import pickle
import re
from pathlib import Path
from typing import Literal, get_args, get_origin, get_type_hints

import numpy as np
import pytest

from aesi_lib.errors import ConfigError, InputError
from aesi_lib.lexicon.wordnet import _parse_scheme
from aesi_lib.model.config import ModelConfig, check_unit_counts
from aesi_lib.model.features import FeatureOptions
from aesi_lib.model.similarity import SimilarityOptions
from aesi_lib.model.synthetic import planted_features
from aesi_lib.parse.backends import ParserConfig, make_parser
from aesi_lib.parse.casing import CASING_STRATEGIES
from aesi_lib.run.config import (
    DESCRIPTIONS,
    MAX_CLUSTERS,
    PARSER_BACKENDS,
    RANGES,
    STRING_CHOICES,
    TYPE_SCHEME_PATTERN,
    RunConfig,
    config_keys,
    field_choices,
    json_schema,
    validate_config,
)
from aesi_lib.run.experiments import named_configurations
from aesi_lib.run.presets import PRESETS, deep_merge
from aesi_lib.run.removed_keys import REMOVED_KEYS, REMOVED_VALUES
from aesi_lib.run.resources import RESOURCE_PATH_KEYS, absolute_resource_paths, check_resources

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("data", "expected"), [
    ({"features": {"type_scheme": "depht:3"}},
     "features.type_scheme: unknown typing scheme 'depht:3': use 'hypernyms', 'lexname' or "
     "'depth:N'"),
    ({"parser": {"backend": "spacyy"}}, "parser.backend: must be 'spacy' or 'stanza', got "
     "'spacyy'"),
    ({"model": {"slot_unit": "patern"}},
     "model.slot_unit: must be 'mention' or 'pattern', got 'patern'"),
    ({"parser": {"casing": "foo"}},
     "parser.casing: must be 'asis', 'lower', 'truecase' or 'auto', got 'foo'"),
    ({"model": {"similarity": {"cosine": "abs"}}},
     "model.similarity.cosine: removed; cosines are always shifted to (1 + cos) / 2"),
    ({"model": {"n_templates": 5000}}, "model.n_templates: must be at most 1000, got 5000"),
    ({"model": {"n_templates": 0}}, "model.n_templates: must be at least 1, got 0"),
    ({"model": {"n_init": "eight"}}, "model.n_init: must be an integer, got eight"),
    ({"features": {"event_nouns": "maybe"}},
     "features.event_nouns: must be true or false, got maybe"),
    ({"parser": {"ner": "maybe"}}, "parser.ner: removed; the entity recognizer"),
    ({"model": {"similarity": {"pmi_weight": -1}}},
     "model.similarity.pmi_weight: must be at least 0, got -1"),
    ({"model": {"n_templatez": 3}}, "model.n_templatez: unknown key; did you mean "
     "'n_templates'?"),
    ({"vectors": "v.kv"}, "vectors: unknown key; did you mean 'vectors_path'?"),
    ({"model": 3}, "model: must be an object of keys, got 3"),
    ({"model": {"mode": "scaled", "slot_model": "factored", "n_slots": 8}},
     "model.slot_model: slot_model='factored' fixes the slots, so it needs mode='sc'"),
    ({"model": {"mode": "sc", "slot_model": "factored", "n_slots": 6}},
     "model.n_slots: slot_model='factored' needs n_slots to be a multiple of 4, got 6"),
    ({"features": {"ner_as_noun": True}},
     "features.ner_as_noun: removed; names typed as the common noun of their NER class"),
])
def test_bad_values_name_the_key_and_what_is_allowed(data, expected):
    with pytest.raises(ConfigError) as exc:
        RunConfig.from_dict(data)
    assert expected in str(exc.value)
    assert "\n" not in str(exc.value)


def test_every_problem_is_reported_on_one_line():
    with pytest.raises(ConfigError) as exc:
        RunConfig.from_dict({"model": {"n_templates": "x", "seed": -2, "init": "zero"},
                             "parser": {"casing": "upper"}})
    assert sorted(key for key, _ in exc.value.problems) == [
        "model.init", "model.n_templates", "model.seed", "parser.casing"]
    assert str(exc.value).count("; ") == 3
    # Still a ValueError, as the dataclasses raised before: callers catching that keep working.
    assert isinstance(exc.value, ValueError)


def test_config_error_survives_pickling():
    # Prefect and Dask move a task's exception between processes by pickling it.
    error = ConfigError([("model.n_slots", "must be at least 1, got 0")])
    copy = pickle.loads(pickle.dumps(error))
    assert copy.problems == error.problems
    assert str(copy) == "model.n_slots: must be at least 1, got 0"


def _legacy_from_dict(data):
    """``RunConfig.from_dict`` before validation: the dataclasses built from the raw values."""
    model = dict(data.get("model", {}))
    model["similarity"] = SimilarityOptions(**model.get("similarity", {}))
    return RunConfig(parser=ParserConfig(**data.get("parser", {})),
                     features=FeatureOptions(**data.get("features", {})),
                     model=ModelConfig(**model), vectors_path=data.get("vectors_path"),
                     wordnet_path=data.get("wordnet_path"))


SWEEP_FILES = sorted((REPO / "configs").glob("sweep-*.json"))


def _existing_configurations():
    sweep = []
    for path in SWEEP_FILES:
        spec = json.loads(path.read_text())
        sweep += [deep_merge(PRESETS[spec["base"]], c) for c in spec["configurations"].values()]
    written = {"model": {"constraint_weight": 1, "seed": 3,
                         "similarity": {"pmi_weight": 2, "dep_weight": 0.5}},
               "parser": {"casing": "lower", "batch_size": 8}, "vectors_path": "v.kv"}
    return [{}, *PRESETS.values(), *sweep, written]


@pytest.mark.parametrize("data", _existing_configurations())
def test_validation_keeps_to_dict_and_digest_of_existing_configurations(data):
    # The digest names cached results: validating must not change a value's JSON form
    # (an integer in a float field stays an integer).
    legacy = _legacy_from_dict(data)
    validated = RunConfig.from_dict(data)
    assert validated == legacy
    assert json.dumps(validated.to_dict()) == json.dumps(legacy.to_dict())
    assert validated.digest() == legacy.digest()


def test_the_sweep_files_are_a_handful():
    assert 1 <= len(SWEEP_FILES) <= 5, [p.name for p in SWEEP_FILES]


@pytest.mark.parametrize("path", SWEEP_FILES, ids=[p.name for p in SWEEP_FILES])
def test_a_sweep_file_names_a_preset_has_its_default_row_and_validates(path):
    # The measured tables name these files as their commands: a typo would otherwise show
    # only after a long sweep.
    spec = json.loads(path.read_text())
    assert spec["base"] in PRESETS, f"{path.name}: the base names a preset"
    assert spec["configurations"]["default"] == {}, f"{path.name}: a row 'default', unchanged"
    configurations = named_configurations(spec)
    base = RunConfig.from_dict(PRESETS[spec["base"]])
    assert configurations["default"] == base
    assert all(config != base for name, config in configurations.items() if name != "default")


def test_strings_from_the_command_line_are_coerced_to_the_field_types():
    checked = validate_config({"model": {"n_init": "8", "constraint_weight": "1",
                                         "similarity": {"pmi_weight": "0"}},
                               "features": {"context": "true"},
                               "parser": {"batch_size": "16", "model": "en_core_web_sm"}})
    assert checked == {"model": {"n_init": 8, "constraint_weight": 1.0,
                                 "similarity": {"pmi_weight": 0.0}},
                       "features": {"context": True},
                       "parser": {"batch_size": 16, "model": "en_core_web_sm"}}
    assert type(checked["model"]["constraint_weight"]) is float


# --- removed keys ---------------------------------------------------------------------------


def _at(key: str, value: object) -> dict:
    *parents, name = key.split(".")
    data: dict = {name: value}
    for part in reversed(parents):
        data = {part: data}
    return data


def _other_than(fixed: object) -> object:
    if isinstance(fixed, bool):
        return not fixed
    if isinstance(fixed, int | float):
        return fixed * 2 + 1
    return f"{fixed}-not"


@pytest.mark.parametrize("key", sorted(REMOVED_KEYS))
def test_a_removed_key_at_its_fixed_value_is_dropped_and_any_other_value_is_an_error(key):
    fixed, why = REMOVED_KEYS[key]
    assert key not in config_keys()
    # An existing project's configuration states the fixed value: it loads as the defaults.
    assert RunConfig.from_dict(_at(key, fixed)) == RunConfig()
    assert validate_config(_at(key, fixed), complete=False) == _at(key.rsplit(".", 1)[0], {})
    # From the command line the value is a string.
    text = json.dumps(fixed) if not isinstance(fixed, str) else fixed
    assert RunConfig.from_dict(_at(key, text)) == RunConfig()
    with pytest.raises(ConfigError) as exc:
        RunConfig.from_dict(_at(key, _other_than(fixed)))
    assert exc.value.problems[0][0] == key
    assert exc.value.problems[0][1].startswith(f"removed; {why}; delete the key")


def test_a_removed_value_of_a_remaining_key_is_named_with_its_reason():
    assert REMOVED_VALUES
    for key, values in REMOVED_VALUES.items():
        for value, why in values.items():
            with pytest.raises(ConfigError) as exc:
                RunConfig.from_dict(_at(key, value))
            assert exc.value.problems == [(key, f"{json.dumps(value)} was removed; {why}")]


def test_a_stored_configuration_with_removed_keys_at_their_fixed_values_still_loads():
    # What project.json held for the default preset before the keys were removed.
    stored = RunConfig.from_dict(PRESETS["default"]).to_dict()
    for key, (fixed, _) in REMOVED_KEYS.items():
        stored = deep_merge(stored, _at(key, fixed))
    assert RunConfig.from_dict(stored) == RunConfig.from_dict(PRESETS["default"])


def test_every_removed_key_of_a_configuration_is_reported_at_once():
    data = {}
    for key, (fixed, _) in REMOVED_KEYS.items():
        data = deep_merge(data, _at(key, _other_than(fixed)))
    with pytest.raises(ConfigError) as exc:
        RunConfig.from_dict(data)
    assert sorted(key for key, _ in exc.value.problems) == sorted(REMOVED_KEYS)
    assert "\n" not in str(exc.value)


def test_overrides_are_checked_alone_when_they_will_be_merged():
    # `aesi update` merges its options into the project's configuration (factored, -SC):
    # checked against the defaults (scaled AMP) they would fail for the wrong reason.
    overrides = {"model": {"slot_model": "factored", "n_slots": 8}}
    assert validate_config(overrides, complete=False) == overrides
    with pytest.raises(ConfigError, match="needs mode='sc'"):
        validate_config(overrides)
    with pytest.raises(ConfigError, match="must be at most 1000"):
        validate_config({"model": {"n_slots": 1001}}, complete=False)


# --- one source for the allowed values ------------------------------------------------------


def test_parser_backends_are_those_make_parser_builds():
    for backend in PARSER_BACKENDS:
        try:
            make_parser(ParserConfig(backend=backend))
        except ImportError:
            pass            # an optional backend that is not installed is still a backend
    with pytest.raises(ValueError, match="unknown parser backend"):
        make_parser(ParserConfig(backend="not-" + PARSER_BACKENDS[0]))
    assert field_choices("parser.backend") == PARSER_BACKENDS


def test_casing_choices_are_the_casing_strategies():
    assert field_choices("parser.casing") == CASING_STRATEGIES


@pytest.mark.parametrize("scheme", ["hypernyms", "lexname", "depth:0", "depth:12", "depth:",
                                    "depth:x", "depth:-1", "depth:3 ", "Hypernyms", "",
                                    "lexname:2", "depth:1.5"])
def test_schema_pattern_of_type_schemes_agrees_with_the_lexicon(scheme):
    try:
        _parse_scheme(scheme)
        accepted = True
    except ValueError:
        accepted = False
    assert bool(re.fullmatch(TYPE_SCHEME_PATTERN, scheme)) == accepted
    try:
        validate_config({"features": {"type_scheme": scheme}})
        validated = True
    except ConfigError:
        validated = False
    assert validated == accepted


def test_literal_annotations_are_what_the_dataclasses_accept():
    # The command line, the schema and __post_init__ all read the Literal annotation.
    cls = ModelConfig
    base = {"mode": "sc", "n_slots": 4}
    hints = get_type_hints(cls)
    literal_fields = [f.name for f in dataclasses.fields(cls)
                      if get_origin(hints[f.name]) is Literal]
    assert len(literal_fields) >= 4
    # Classes cut within each template exist only for factored slots.
    needs = {"class_scope": {"slot_model": "factored"}}
    for name in literal_fields:
        for value in get_args(hints[name]):
            assert getattr(cls(**{**base, **needs.get(name, {}), name: value}), name) == value
        with pytest.raises(ValueError, match=name):
            cls(**{**base, name: "not-a-choice"})


def test_rules_name_real_keys():
    keys = set(config_keys())
    assert set(RANGES) <= keys
    assert set(STRING_CHOICES) <= keys
    assert set(DESCRIPTIONS) <= keys
    # Every field of every dataclass is a key: new fields are picked up without a list.
    assert {"parser.casing", "model.n_init", "model.similarity.pmi_weight", "vectors_path",
            "features.type_scheme", "model.similarity.salience_weight"} <= keys
    n_fields = sum(len(dataclasses.fields(c)) for c in (ParserConfig, FeatureOptions,
                                                         ModelConfig, SimilarityOptions))
    assert len(keys) == n_fields - 1 + 2    # ModelConfig.similarity is a section; 2 paths


def _schema_leaves(schema: dict, node: dict, prefix: str = "") -> list[str]:
    leaves = []
    for name, prop in node["properties"].items():
        ref = prop.get("$ref")
        if ref:
            leaves += _schema_leaves(schema, schema["$defs"][ref.rsplit("/", 1)[-1]],
                                     f"{prefix}{name}.")
        else:
            leaves.append(prefix + name)
    return leaves


def test_the_configuration_has_at_most_41_keys():
    # Issue 46: an option must earn its place (measured gain, or a setting of the user's
    # corpus or machine); the constants and the measured negatives left the configuration.
    # 40 then; issue 67 added R18 (features.pronoun_arguments, on in the default: a measured
    # gain on MUC-4) and removed the two rules measured beside it; R17 by its parts
    # (features.modifier_links) was measured after it and removed.
    schema = json_schema()
    leaves = _schema_leaves(schema, schema)
    assert leaves == list(config_keys())
    assert len(leaves) <= 41, leaves
    assert not set(REMOVED_KEYS) & set(leaves)


def test_json_schema_describes_every_key():
    schema = json_schema()
    defs = schema["$defs"]
    model = defs["ModelConfigSchema"]["properties"]
    assert model["n_templates"]["maximum"] == MAX_CLUSTERS
    assert model["n_templates"]["minimum"] == 1
    assert model["mode"]["enum"] == ["sc", "literal", "scaled"]
    assert model["n_init"]["default"] == 1
    assert "discretisations" in model["n_init"]["description"]
    parser = defs["ParserConfigSchema"]["properties"]
    assert parser["casing"]["enum"] == list(CASING_STRATEGIES)
    features = defs["FeatureOptionsSchema"]["properties"]
    assert features["type_scheme"]["pattern"] == TYPE_SCHEME_PATTERN
    assert schema["additionalProperties"] is False
    assert all(d["additionalProperties"] is False for d in defs.values())
    for key in config_keys():
        *section, name = key.split(".")
        node = schema
        for part in section:
            node = defs[node["properties"][part]["$ref"].split("/")[-1]]
        assert "description" in node["properties"][name], key


def test_the_schema_shows_the_defaults_of_the_preset_a_run_starts_from(capsys):
    import aesi_cli as cli

    assert cli.main(["config", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    defs = schema["$defs"]
    default = RunConfig.from_dict(PRESETS["default"])
    assert defs["ModelConfigSchema"]["properties"]["n_init"]["default"] == default.model.n_init
    assert defs["FeatureOptionsSchema"]["properties"]["context"]["default"] is True
    weight = defs["SimilarityOptionsSchema"]["properties"]["context_weight"]["default"]
    assert weight == default.model.similarity.context_weight
    assert cli.main(["config", "--schema", "--preset", "reproduction"]) == 0
    paper = json.loads(capsys.readouterr().out)["$defs"]["ModelConfigSchema"]["properties"]
    assert paper["n_templates"]["default"] == 6 and paper["mode"]["default"] == "scaled"


# --- what is known only later ---------------------------------------------------------------


def test_sizes_the_corpus_cannot_hold_fail_with_the_key_and_the_bound():
    features, _, _ = planted_features(60, n_templates=3, n_slots=4, seed=1)
    n = features.n_entities
    check_unit_counts(ModelConfig(n_templates=n, n_slots=n), features)
    with pytest.raises(ConfigError) as exc:
        check_unit_counts(ModelConfig(n_templates=n + 1, n_slots=n + 2), features)
    assert exc.value.problems == [
        ("model.n_templates", f"{n + 1} templates, but the corpus has only {n} entity "
         f"mentions to cut: use at most {n}"),
        ("model.n_slots", f"{n + 2} slots, but the corpus has only {n} entity mentions to "
         f"cut: use at most {n}")]
    units = np.arange(n) % 5
    with pytest.raises(ConfigError, match="only 5 predicate lemmas to cut: use at most 5"):
        check_unit_counts(ModelConfig(n_templates=6, template_unit="predicate"), features,
                          units_t=units)
    check_unit_counts(ModelConfig(n_templates=5, template_unit="predicate"), features,
                      units_t=units)
    heads = len(np.unique(features.head_ids))
    factored = ModelConfig(mode="sc", slot_model="factored", n_slots=4 * (heads + 1))
    with pytest.raises(ConfigError, match=f"only {heads} head words: use at most {4 * heads}"):
        check_unit_counts(factored, features)


def test_the_solve_refuses_more_templates_than_units_before_the_eigensolver():
    from aesi_lib.model.induction import induce

    features, _, _ = planted_features(40, n_templates=2, n_slots=2, seed=0)
    with pytest.raises(ConfigError, match="model.n_templates"):
        induce(features, ModelConfig(mode="sc", n_templates=features.n_entities + 1))


def test_resource_paths_must_exist(tmp_path):
    check_resources({"vectors_path": None, "wordnet_path": None})
    with pytest.raises(InputError, match="word vectors file not found"):
        check_resources({"vectors_path": str(tmp_path / "none.txt")})
    with pytest.raises(InputError, match="is a folder"):
        check_resources({"vectors_path": str(tmp_path)})
    vectors = tmp_path / "v.txt"
    vectors.write_text("word 0.1 0.2\n")
    check_resources({"vectors_path": str(vectors)})
    with pytest.raises(InputError, match="WordNet folder not found"):
        check_resources({"wordnet_path": str(tmp_path / "wn")})
    with pytest.raises(InputError, match="holds no WordNet database"):
        check_resources({"wordnet_path": str(tmp_path)})
    check_resources({"wordnet_path": str(fake_wordnet(tmp_path / "wn"))})


def test_resource_paths_are_made_absolute_against_the_given_folder(tmp_path, monkeypatch):
    given = {"vectors_path": "v.txt", "wordnet_path": str(tmp_path / "wn"),
             "features": {"encoder_model": "models/../models/m", "context": True},
             "parser": {"stanza_dir": "~/stanza", "backend": "spacy"},
             "model": {"n_templates": 8}}
    out = absolute_resource_paths(given, tmp_path / "base")
    assert out["vectors_path"] == str(tmp_path / "base" / "v.txt")
    assert out["wordnet_path"] == str(tmp_path / "wn")
    assert out["features"] == {"encoder_model": str(tmp_path / "base" / "models" / "m"),
                               "context": True}
    assert out["parser"] == {"stanza_dir": str(Path.home() / "stanza"), "backend": "spacy"}
    assert out["model"] == {"n_templates": 8}
    assert given["vectors_path"] == "v.txt"         # the input is left as it was
    # None, absent keys and absent sections stay as they are; the current folder by default.
    assert absolute_resource_paths({"vectors_path": None}) == {"vectors_path": None}
    assert absolute_resource_paths({"features": {"context": False}}) == {
        "features": {"context": False}}
    monkeypatch.chdir(tmp_path)
    assert absolute_resource_paths({"vectors_path": "v.txt"}) == {
        "vectors_path": str(tmp_path / "v.txt")}
    assert set(RESOURCE_PATH_KEYS) <= set(config_keys())


def test_a_model_folder_is_checked_before_any_work(tmp_path):
    # features.encoder_model: the folder, its configuration, weights, tokenizer and pooling.
    with pytest.raises(InputError, match="model folder not found"):
        check_resources({"features": {"encoder_model": str(tmp_path / "none")}})
    folder = tmp_path / "model"
    folder.mkdir()
    problems = [
        (lambda: None, "no config.json"),
        (lambda: (folder / "config.json").write_text("{not json"), "config.json: cannot read"),
        (lambda: (folder / "config.json").write_text('{"vocab_size": 5}'), "no hidden size"),
        (lambda: (folder / "config.json").write_text('{"hidden_size": 8}'), "no model weights"),
        (lambda: (folder / "model.safetensors").write_bytes(b""), "no tokenizer"),
    ]
    for make, message in problems:
        make()
        with pytest.raises(InputError, match=message) as caught:
            check_resources({"features": {"encoder": "transformer", "context": True,
                                          "encoder_model": str(folder)}})
        assert str(folder) in str(caught.value)
    (folder / "tokenizer.json").write_text("{}")
    check_resources({"features": {"encoder": "transformer", "context": True,
                                  "encoder_model": str(folder)}})
    pooling = folder / "1_Pooling" / "config.json"
    pooling.parent.mkdir()
    pooling.write_text('{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}')
    with pytest.raises(InputError, match="pools by pooling_mode_cls_token"):
        check_resources({"features": {"encoder_model": str(folder)}})
    assert fake_model_folder(tmp_path / "fake").is_dir()
    check_resources({"features": {"encoder_model": str(tmp_path / "fake")}})


def fake_model_folder(root: Path, hidden_size: int = 8) -> Path:
    """A folder that passes the checks of a model folder (its files are not a real model)."""
    root.mkdir(parents=True)
    (root / "config.json").write_text(f'{{"hidden_size": {hidden_size}}}')
    (root / "model.safetensors").write_bytes(b"")
    (root / "tokenizer.json").write_text("{}")
    return root


def fake_wordnet(root: Path) -> Path:
    """A folder with the file names of a WordNet database under ``dict/`` (empty files)."""
    (root / "dict").mkdir(parents=True)
    for pos in ("noun", "verb", "adj", "adv"):
        for kind in ("data", "index"):
            (root / "dict" / f"{kind}.{pos}").write_text("")
    return root
