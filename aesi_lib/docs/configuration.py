"""The configuration reference and the presets table, written from the code.

Both come from what the command line itself uses: the JSON schema of a run's configuration
(``aesi_lib.run.config.json_schema``, as ``aesi config --schema`` prints it, with the default
preset's values as defaults) and the presets (``aesi_lib.run.presets.PRESETS``). A key added,
removed or changed in the dataclasses changes the page the next time ``aesi docs`` runs, and
``aesi docs --check`` fails until it has.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from aesi_lib.markdown import markdown_table
from aesi_lib.run.config import RunConfig, json_schema
from aesi_lib.run.presets import PRESETS, preset


def _escape(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _code(value: Any) -> str:
    return f"`{json.dumps(value)}`"


def _kind(prop: Mapping[str, Any]) -> str:
    """A key's type, choices and range in a few words."""
    if "enum" in prop:
        return ", ".join(_code(v) for v in prop["enum"])
    if "anyOf" in prop:
        kinds = [_kind(p) for p in prop["anyOf"]]
        return " or ".join(k for k in kinds)
    kind = prop.get("type", "any")
    bounds = []
    for name, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"),
                       ("exclusiveMaximum", "<")):
        if name in prop:
            bounds.append(f"{sign} {prop[name]}")
    if "pattern" in prop:
        bounds.append(f"`{prop['pattern']}`")
    return f"{kind} ({', '.join(bounds)})" if bounds else kind


def schema_keys(schema: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every leaf key of a configuration's JSON schema (dotted) with its property, in the
    schema's order."""
    def walk(node: Mapping[str, Any], prefix: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
        for name, prop in node["properties"].items():
            ref = prop.get("$ref")
            if ref:
                yield from walk(schema["$defs"][ref.rsplit("/", 1)[-1]], f"{prefix}{name}.")
            else:
                yield f"{prefix}{name}", prop
    yield from walk(schema, "")


def configuration_reference(schema: Mapping[str, Any]) -> str:
    """One table per section of the configuration: key, type and choices, the default
    preset's value, and what the key decides."""
    sections: dict[str, list[list[str]]] = {}
    for key, prop in schema_keys(schema):
        section = key.rpartition(".")[0] or "(top level)"
        sections.setdefault(section, []).append(
            [f"`{key}`", _escape(_kind(prop)), _escape(_code(prop.get("default"))),
             _escape(prop.get("description", ""))])
    parts = []
    for section, rows in sections.items():
        parts.append(f"### `{section}`\n" if section != "(top level)" else "### Resources\n")
        parts.append(markdown_table(("key", "type", "default", "what it decides"), rows))
    count = sum(len(rows) for rows in sections.values())
    parts.append(f"{count} keys in all.\n")
    return "\n".join(parts)


def _flatten(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for name, value in data.items():
        if isinstance(value, Mapping):
            yield from _flatten(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def presets_table() -> str:
    """Each preset with the keys it sets (over the library's defaults) and its values."""
    rows = []
    for name in PRESETS:
        settings = ", ".join(f"`{key}={json.dumps(value)}`"
                             for key, value in _flatten(preset(name)))
        rows.append([f"`{name}`", _escape(settings or "(the library's defaults)")])
    return markdown_table(("preset", "what it sets"), rows)


def render_configuration(arguments: Mapping[str, str], folder: Path) -> str:
    """The configuration region: the reference of every key, defaults from the ``default``
    preset."""
    defaults = RunConfig.from_dict(preset("default")).to_dict()
    return configuration_reference(json_schema(defaults))


def render_presets(arguments: Mapping[str, str], folder: Path) -> str:
    """The presets region."""
    return presets_table()
