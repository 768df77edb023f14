"""The settings of a run: parser, features, model and resources, as one frozen value, and their
validation.

``RunConfig`` and its parts (``ParserConfig``, ``FeatureOptions``, ``ModelConfig`` with its
``SimilarityOptions``) are plain frozen dataclasses; ``RunConfig.digest()`` of their
``to_dict()`` names cached results. :func:`validate_config` checks a configuration given as a
dict (a preset, a ``--config`` file, command-line values) through pydantic models generated
from those dataclasses, so that a field added to a dataclass is validated, settable from the
command line and in the JSON schema without being listed again. Each field keeps its type,
default and description (from the dataclass docstring); the generated models add:

* the choices of fields that are plain strings in the dataclasses: the parser backend
  (:data:`PARSER_BACKENDS`), the casing strategy (``aesi_lib.parse.casing.CASING_STRATEGIES``),
  the type scheme (:data:`TYPE_SCHEME_PATTERN`);
* the numeric ranges of :data:`RANGES` (|T| and |S| from 1 to :data:`MAX_CLUSTERS`, weights
  non-negative, ...);
* no unknown keys: a typo is an error that suggests the closest key, never a silent default;
* the keys that were removed (``aesi_lib.run.removed_keys``): given the
  behaviour that is now fixed (as the configuration of an existing project states it) they are
  dropped, given anything else they are an error that says why they went.

Fields annotated with ``Literal`` take their choices from the annotation itself. The checks
that relate fields (factored slots need ``mode="sc"``, ...) stay in the dataclasses'
``__post_init__``; whether |T| and |S| fit the corpus is known only once the entity table is
(``aesi_lib.model.config.check_unit_counts``).
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    WrapValidator,
    create_model,
)

from aesi_lib.errors import ConfigError, InputError
from aesi_lib.model.config import ModelConfig
from aesi_lib.model.features import FeatureOptions
from aesi_lib.model.similarity import SimilarityOptions
from aesi_lib.parse.backends import ParserConfig
from aesi_lib.parse.casing import CASING_STRATEGIES
from aesi_lib.run.removed_keys import drop_removed_keys

# The backends ``aesi_lib.parse.backends.make_parser`` builds; tests/test_config_validation.py
# fails when it accepts a different list.
PARSER_BACKENDS: tuple[str, ...] = ("spacy", "stanza")

# |T| and |S| above this are not a schema anyone reads, and their eigensolves (k vectors of
# length |E|, tens of thousands on MUC-4) would run for hours: refused before any work. The
# tighter bound, the number of units of the corpus, is checked once the entity table is known.
MAX_CLUSTERS = 1000

# The type schemes ``aesi_lib.lexicon.wordnet._parse_scheme`` reads (a test checks that both
# agree on valid and invalid names). Not that function itself: the lexicon imports gensim,
# which would add most of a second to every command's start.
TYPE_SCHEME_PATTERN = r"^(hypernyms|lexname|depth:[0-9]+)$"


def _check_type_scheme(value: str) -> str:
    if not re.fullmatch(TYPE_SCHEME_PATTERN, value):
        raise ValueError(f"unknown typing scheme {value!r}: use 'hypernyms', 'lexname' or "
                         "'depth:N'")
    return value


_NON_NEGATIVE = {"ge": 0}
_POSITIVE_INT = {"ge": 1}

# Numeric ranges by key; a key that is not a field of the configuration fails the tests.
RANGES: dict[str, dict[str, int | float]] = {
    "parser.batch_size": _POSITIVE_INT,
    "model.n_templates": {"ge": 1, "le": MAX_CLUSTERS},
    "model.n_slots": {"ge": 1, "le": MAX_CLUSTERS},
    "model.constraint_weight": _NON_NEGATIVE,
    "model.max_iter": _POSITIVE_INT,
    "model.seed": _NON_NEGATIVE,
    "model.n_init": _POSITIVE_INT,
    "model.consensus_members": _POSITIVE_INT,
    "model.consensus_spread": _NON_NEGATIVE,
    # Every weight of a graph term: a negative weight would make degrees negative, and the
    # normalized cut is undefined there.
    **{f"model.similarity.{f.name}": _NON_NEGATIVE
       for f in dataclasses.fields(SimilarityOptions) if f.name.endswith("_weight")},
}

# Types of the fields that are plain ``str`` in their dataclass.
STRING_CHOICES: dict[str, Any] = {
    "parser.backend": Literal[PARSER_BACKENDS],
    "parser.casing": Literal[CASING_STRATEGIES],
    "features.type_scheme": Annotated[
        str, AfterValidator(_check_type_scheme),
        Field(json_schema_extra={"pattern": TYPE_SCHEME_PATTERN})],   # for editors
}

# Descriptions of fields whose dataclass does not document them.
DESCRIPTIONS: dict[str, str] = {
    "parser.backend": "Parser backend (Stanza needs its English models).",
    "parser.casing": "Re-casing of all-upper-case text before parsing (see "
                     "aesi_lib.parse.casing): auto is truecase for upper-case texts, asis "
                     "otherwise.",
    "parser.model": "spaCy model package name or path (default: the installed English model).",
    "parser.stanza_dir": "Stanza model folder.",
    "parser.batch_size": "Documents per spaCy nlp.pipe batch.",
    "vectors_path": "Word vectors file (word2vec, GloVe or gensim .kv); null: the embedded "
                    "GloVe 6B 50d vectors.",
    "wordnet_path": "WordNet database folder; null: NLTK's WordNet or the system's.",
}

def _keep_int(value: Any, handler: Any) -> Any:
    # A JSON integer in a float field stays an integer: ``to_dict()`` and so the digest of an
    # existing configuration (``"constraint_weight": 1``) must not change to ``1.0``.
    checked = handler(value)            # the range of the field applies either way
    return value if type(value) is int else checked


_FLOAT = Annotated[float, WrapValidator(_keep_int)]


@dataclass(frozen=True)
class RunConfig:
    """Every setting of a run; its hash names cached results and the run directory."""

    parser: ParserConfig = field(default_factory=ParserConfig)
    features: FeatureOptions = field(default_factory=FeatureOptions)
    model: ModelConfig = field(default_factory=ModelConfig)
    vectors_path: str | None = None
    wordnet_path: str | None = None

    def __post_init__(self) -> None:
        problems = feature_requirements(self.features, self.model)
        if problems:
            raise ConfigError(problems)

    def to_dict(self) -> dict[str, Any]:
        """The configuration as JSON-able nested dicts (the form :meth:`from_dict` reads)."""
        return json.loads(json.dumps(asdict(self), default=str))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """The configuration ``data`` describes, missing keys at their defaults.

        Parameters
        ----------
        data : dict
            Nested dicts as :meth:`to_dict` writes them; any subset of the keys.

        Returns
        -------
        RunConfig

        Raises
        ------
        ConfigError
            Naming every unknown key, badly typed value, value outside its choices or range,
            and inconsistent combination (one line).
        """
        return _build(RunConfig, validate_config(data), "")

    def digest(self) -> str:
        """Short stable hash of :meth:`to_dict`."""
        return config_digest(self.to_dict())


# What each model option that reads an optional feature needs: (model key, feature key).
_NEEDS = (
    ("similarity.context_weight", "context"),
)


def feature_requirements(features: FeatureOptions, model: ModelConfig
                         ) -> list[tuple[str, str]]:
    """``(key, message)`` for every model option that reads a feature the configuration does
    not compute: a term's weight above 0 needs its vectors.
    Checked with the rest of the configuration, before any work."""
    problems = []
    for model_key, feature in _NEEDS:
        value: Any = model
        for part in model_key.split("."):
            value = getattr(value, part)
        if value and not getattr(features, feature):
            problems.append((f"model.{model_key}",
                             f"{value:g} needs features.{feature}=true (or set the weight to "
                             f"0)"))
    return problems


def config_digest(data: Any) -> str:
    """Short stable hash of a JSON-able value."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _field_docs(cls: type) -> dict[str, str]:
    """Field descriptions from a numpydoc ``Parameters`` or ``Attributes`` section.

    Entries are ``name : type`` or ``name, other : type`` with the description indented below,
    or ``name : description`` on one line (``FeatureOptions``).
    """
    docs: dict[str, str] = {}
    lines = (cls.__doc__ or "").splitlines()
    names: list[str] = []
    text: list[str] = []
    in_section = False

    def flush() -> None:
        description = re.sub(r"``([^`]*)``", r"\1", " ".join(text)).strip()
        for name in names:
            docs[name] = description

    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped in ("Parameters", "Attributes") and i + 1 < len(lines) \
                and lines[i + 1].strip().startswith("---"):
            in_section = True
            continue
        if not in_section or stripped.startswith("---"):
            continue
        entry = re.match(r"^ {0,4}([a-z_][\w, ]*) : (.*)$", line)
        if entry:
            flush()
            names = [n.strip() for n in entry.group(1).split(",")]
            head = entry.group(2).strip()
            # ``name : int`` / ``{"a", "b"}`` name a type; a sentence is the description.
            is_type = head.startswith("{") or (len(head.split()) <= 2 and "`" not in head)
            text = [] if is_type else [head]
        elif stripped:
            text.append(stripped)
    flush()
    return docs


def _field_type(key: str, hint: Any) -> Any:
    if key in STRING_CHOICES:
        return STRING_CHOICES[key]
    if hint is float:
        return _FLOAT
    return hint


@cache
def _section_model(cls: type, prefix: str) -> type[BaseModel]:
    """The pydantic model of the dataclass ``cls`` found at key ``prefix`` ("" at the top)."""
    hints = get_type_hints(cls)
    docs = _field_docs(cls)
    specs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        key = f"{prefix}.{f.name}" if prefix else f.name
        hint = hints[f.name]
        extra: dict[str, Any] = dict(RANGES.get(key, {}))
        description = docs.get(f.name) or DESCRIPTIONS.get(key)
        if description:
            extra["description"] = description
        if dataclasses.is_dataclass(hint):
            sub = _section_model(hint, key)
            specs[f.name] = (sub, Field(default_factory=sub, **extra))
            continue
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        specs[f.name] = (_field_type(key, hint), Field(default=default, **extra))
    return create_model(
        f"{cls.__name__}Schema", __config__=ConfigDict(extra="forbid", title=cls.__name__),
        __doc__=(cls.__doc__ or "").strip().split("\n\n")[0], **specs)


def run_config_model() -> type[BaseModel]:
    """The pydantic model of a whole :class:`RunConfig` (generated from the dataclasses)."""
    return _section_model(RunConfig, "")


def json_schema(defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """JSON schema of a ``--config`` file: every key, its type, default, range and choices.

    ``defaults`` (a configuration as nested dicts, e.g. the ``default`` preset that ``aesi
    run`` starts from) are shown as the keys' defaults, since a key missing from a
    ``--config`` file keeps the preset's value, not the dataclass's."""
    schema = run_config_model().model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "aesi RunConfig"
    schema["description"] = ("Settings of an aesi run (aesi run --config FILE). Every key is "
                             "optional: missing keys keep the preset's value (the defaults "
                             "shown are those of the preset aesi run starts from).")
    if defaults is not None:
        _set_schema_defaults(schema, schema, defaults)
    return schema


def _set_schema_defaults(root: dict[str, Any], node: dict[str, Any],
                         values: dict[str, Any]) -> None:
    for name, value in values.items():
        prop = node["properties"][name]
        ref = prop.get("$ref")
        if isinstance(value, dict) and ref:
            _set_schema_defaults(root, root["$defs"][ref.rsplit("/", 1)[-1]], value)
        else:
            prop["default"] = value


def config_keys() -> dict[str, Any]:
    """Every settable key of a configuration (dotted, ``model.similarity.pmi_weight``) with its
    pydantic field: what ``--set KEY=VALUE`` accepts."""
    keys: dict[str, Any] = {}

    def walk(model: type[BaseModel], prefix: str) -> None:
        for name, info in model.model_fields.items():
            key = f"{prefix}{name}"
            sub = info.annotation
            if isinstance(sub, type) and issubclass(sub, BaseModel):
                walk(sub, f"{key}.")
            else:
                keys[key] = info
    walk(run_config_model(), "")
    return keys


def field_choices(key: str) -> tuple[Any, ...] | None:
    """The allowed values of the field at ``key`` when it has a fixed list, else None."""
    annotation = config_keys()[key].annotation
    if get_origin(annotation) is Literal:
        return get_args(annotation)
    return None


def validate_config(data: Any, *, complete: bool = True) -> dict[str, Any]:
    """Check a configuration given as nested dicts; return it with its values coerced.

    Parameters
    ----------
    data : dict
        Any subset of the keys of :meth:`RunConfig.to_dict`. String values of numeric and
        boolean fields (from the command line) are converted: ``"8"`` → 8, ``"true"`` → True.
    complete : bool
        Also check the combinations of fields (factored slots need ``mode="sc"``, ...), with
        the missing keys at their defaults. False for overrides that will be merged into
        another configuration (``aesi update``'s, over the project's last run): each value is
        checked on its own.

    Returns
    -------
    dict
        ``data`` with the same keys, each value as the configuration holds it, less the
        removed keys given their fixed value (:func:`drop_removed_keys`).

    Raises
    ------
    ConfigError
        One problem per unknown key or bad value, with its dotted key; per removed key given
        another value than the one now fixed.
    """
    if not isinstance(data, dict):
        raise ConfigError([("", f"a configuration is a JSON object, got {type(data).__name__}")])
    data = drop_removed_keys(data)
    try:
        checked = run_config_model().model_validate(data)
    except ValidationError as exc:
        raise ConfigError([_problem(e) for e in exc.errors()]) from None
    coerced = _same_keys(data, checked)
    if complete:
        _build(RunConfig, checked, "")
    return coerced


def _same_keys(data: dict[str, Any], checked: BaseModel) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        validated = getattr(checked, key)
        out[key] = (_same_keys(value, validated) if isinstance(validated, BaseModel)
                    else validated)
    return out


def _build(cls: type, values: Any, prefix: str) -> Any:
    """The dataclass ``cls`` from validated values (a model or a dict), checking combinations."""
    if isinstance(values, BaseModel):
        values = {name: getattr(values, name) for name in type(values).model_fields}
    hints = get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in values:
            continue
        value = values[f.name]
        if dataclasses.is_dataclass(hints[f.name]):
            value = _build(hints[f.name], value, f"{prefix}{f.name}.")
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except ConfigError as exc:
        raise ConfigError([(f"{prefix}{k}" if k else prefix.rstrip("."), m)
                           for k, m in exc.problems]) from None
    except (TypeError, ValueError) as exc:
        # A dataclass's own check names its field first ("n_process must be ..."): key it so.
        words = str(exc).split()
        first = words[0].removeprefix(prefix) if words else ""
        named = first if first in kwargs else ""
        raise ConfigError([(f"{prefix}{named}".rstrip("."), str(exc))]) from None


def _problem(error: Any) -> tuple[str, str]:
    """One pydantic error as ``(dotted key, message)``."""
    loc = [str(p) for p in error["loc"] if not str(p).startswith("function-")]
    key = ".".join(loc)
    kind, ctx, given = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "extra_forbidden":
        section = ".".join(loc[:-1])
        known = _known_keys(section)
        close = difflib.get_close_matches(loc[-1], known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        where = f"of {section} " if section else ""
        return key, f"unknown key; {hint}the keys {where}are {', '.join(known)}"
    messages = {
        "literal_error": lambda: f"must be {ctx.get('expected')}",
        "less_than_equal": lambda: f"must be at most {_number(ctx.get('le'))}",
        "greater_than_equal": lambda: f"must be at least {_number(ctx.get('ge'))}",
        "int_parsing": lambda: "must be an integer",
        "int_from_float": lambda: "must be an integer",
        "int_type": lambda: "must be an integer",
        "float_parsing": lambda: "must be a number",
        "float_type": lambda: "must be a number",
        "bool_parsing": lambda: "must be true or false",
        "bool_type": lambda: "must be true or false",
        "string_type": lambda: "must be a string",
        "model_type": lambda: "must be an object of keys",
        "dict_type": lambda: "must be an object of keys",
    }
    message = messages[kind]() if kind in messages else \
        str(error["msg"]).removeprefix("Value error, ")
    if kind != "value_error" and not isinstance(given, dict):
        # A number or a boolean typed on the command line reads better without quotes.
        shown = given if isinstance(given, str) and kind in _UNQUOTED else repr(given)
        message += f", got {shown}"
    return key, message


def _number(value: Any) -> str:
    # The bounds of float fields come back as floats: "at least 0", not "at least 0.0".
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


_UNQUOTED = {"less_than_equal", "greater_than_equal", "int_parsing", "int_from_float",
             "float_parsing", "bool_parsing"}


def _known_keys(section: str) -> list[str]:
    model = run_config_model()
    for part in filter(None, section.split(".")):
        model = model.model_fields[part].annotation
    return list(model.model_fields)


def read_config_file(path: str | Path) -> dict[str, Any]:
    """A ``--config`` file (a ``RunConfig`` as JSON, or any part of one) as nested dicts,
    unchecked (:func:`validate_config` checks it); a ``"$schema"`` key is dropped.

    Raises
    ------
    InputError
        When the file is missing, not JSON or not a JSON object.
    """
    data = read_json_object(path, "config file", "a JSON object (a RunConfig: parser, "
                            "features, model, vectors_path, wordnet_path)")
    # A "$schema" line lets an editor check the file against `aesi config --schema`.
    data.pop("$schema", None)
    return data


def read_json_object(path: str | Path, what: str, expected: str) -> dict[str, Any]:
    """The JSON object in the file ``path``; ``InputError`` naming the file when it is
    missing (``<what> not found``), not JSON, or not an object (``expected <expected>``)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, f"{what} not found")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise InputError(path, f"expected {expected}")
    return data
