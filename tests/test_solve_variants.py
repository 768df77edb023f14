"""Variants are parameters, not patches: no code outside the tests sets an attribute of a
module it imported (``setattr(similarity, "template_terms", ...)``); an experiment passes its
variant of the model's parts in (``aesi_lib.model.parts``, ``experiments/solve_variants.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

from aesi_lib.model.parts import DEFAULT_PARTS, ModelParts
from aesi_lib.model.similarity import template_terms

REPO = Path(__file__).resolve().parents[1]
CHECKED = ("aesi_lib", "cli", "tasks", "flows", "benchmarks", "experiments")


OWN = {"aesi_lib", "aesi_cli", "aesi_flows", "aesi_tasks", "experiments"} | {
    p.stem for p in (REPO / "benchmarks").glob("*.py")}


def _module_names(tree: ast.Module) -> set[str]:
    """The names a file binds to the project's own modules (``import aesi_lib.x``, ``from
    aesi_lib.model import similarity``, a benchmark's neighbour)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names
                         if alias.name.split(".")[0] in OWN)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in OWN:
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _patches(path: Path, root: Path = REPO) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    modules = _module_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" \
                and node.args and isinstance(node.args[0], ast.Name) \
                and node.args[0].id in modules:
            found.append(f"{path.relative_to(root)}:{node.lineno}")
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in modules and target.value.id != "self":
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_code_outside_the_tests_patches_a_module():
    found = [hit for folder in CHECKED for path in sorted((REPO / folder).rglob("*.py"))
             for hit in _patches(path)]
    assert found == []


def test_the_check_finds_a_patch(tmp_path):
    path = tmp_path / "patching.py"
    path.write_text("from aesi_lib.model import similarity\nsetattr(similarity, 'x', 1)\n"
                    "similarity.y = 2\nrecord = object()\nsetattr(record, 'z', 3)\n")
    assert sorted(_patches(path, tmp_path)) == ["patching.py:2", "patching.py:3"]


def test_the_default_parts_are_the_librarys_own_and_a_variant_changes_one():
    assert DEFAULT_PARTS.template_terms is template_terms
    variant = ModelParts(template_terms=lambda features, options, rows=None: [])
    assert variant.template_terms is not template_terms
    assert variant.class_terms is DEFAULT_PARTS.class_terms
