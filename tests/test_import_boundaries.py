"""Import boundaries of the layout: the library is Prefect-free, the model never sees the
evaluation or the answer keys, and no module imports itself back through others.

Every ``import`` statement counts, also those inside functions: a lazy import hides a cycle
from Python, not from a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Each package folder and the name it is installed (and imported) as.
PACKAGES = {"aesi_lib": "aesi_lib", "tasks": "aesi_tasks", "flows": "aesi_flows",
            "cli": "aesi_cli"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    parts[0] = PACKAGES[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))}


def _imports(path: Path, module: str) -> set[str]:
    """Every module named by an import statement of ``path`` (relative imports resolved)."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


MODULES = _modules()
GRAPH = {name: {m for m in _imports(path, name) if m in MODULES and m != name}
         for name, path in MODULES.items()}


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _edges(source: str, target: str) -> list[tuple[str, str]]:
    return [(m, i) for m, imported in GRAPH.items() if _within(m, source)
            for i in imported if _within(i, target)]


def test_the_graph_sees_the_library():
    assert "aesi_lib.model.ncut" in GRAPH["aesi_lib.model.amp"] | GRAPH["aesi_lib.model.cut_step"]
    assert len(MODULES) > 60


def test_the_library_does_not_import_prefect():
    offenders = sorted(
        (name, imported) for name, path in MODULES.items() if _within(name, "aesi_lib")
        for imported in _imports(path, name) if _within(imported, "prefect")
        or _within(imported, "prefect_dask") or _within(imported, "aesi_tasks")
        or _within(imported, "aesi_flows") or _within(imported, "aesi_cli"))
    assert offenders == []


@pytest.mark.parametrize("forbidden", ["aesi_lib.evaluate", "aesi_lib.corpus.muc4_keys",
                                       "aesi_lib.report", "aesi_lib.run"])
def test_the_model_does_not_import_the_evaluation_or_the_keys(forbidden):
    assert _edges("aesi_lib.model", forbidden) == []


def test_tasks_do_not_import_flows():
    assert _edges("aesi_tasks", "aesi_flows") == []


def test_flows_and_tasks_do_not_import_the_command_line():
    assert _edges("aesi_flows", "aesi_cli") + _edges("aesi_tasks", "aesi_cli") == []


def _cycle() -> list[str] | None:
    """A cycle of the module graph (package ``__init__`` files excluded: re-exports), if any."""
    graph = {m: {i for i in imported if not _is_package(i)}
             for m, imported in GRAPH.items() if not _is_package(m)}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def test_no_import_cycle():
    assert _cycle() is None


def test_a_cycle_would_be_found(monkeypatch):
    monkeypatch.setitem(GRAPH, "aesi_lib.model.ncut",
                        GRAPH["aesi_lib.model.ncut"] | {"aesi_lib.model.amp"})
    cycle = _cycle()
    assert cycle is not None and cycle[0] == cycle[-1]
    assert {"aesi_lib.model.amp", "aesi_lib.model.ncut"} <= set(cycle)


def test_no_package_name_hides_one_of_its_modules():
    """A package that re-exports ``induce`` from a module named ``induce`` makes
    ``aesi_lib.model.induce`` the function, not the module: every name a package's
    ``__init__`` binds must differ from its modules' names (or be that module)."""
    import importlib
    import types

    for name, path in _modules().items():
        if path.name != "__init__.py":
            continue
        package = importlib.import_module(name)
        for child in sorted(p.stem for p in path.parent.glob("*.py") if p.stem != "__init__"):
            bound = package.__dict__.get(child)
            assert bound is None or isinstance(bound, types.ModuleType), f"{name}.{child}"


def test_nothing_imports_the_folders_by_their_folder_names():
    # cli/, flows/ and tasks/ are installed as aesi_cli, aesi_flows and aesi_tasks
    # (pyproject.toml): an import of the bare names would find a user's own tasks.py first,
    # or nothing once installed.
    offenders = sorted((name, imported) for name, path in MODULES.items()
                       for imported in _imports(path, name)
                       if imported.split(".")[0] in {"cli", "flows", "tasks"})
    assert offenders == []


def test_a_command_that_reads_no_vectors_does_not_import_gensim():
    """gensim imports SciPy's statistics (about 0.7 s of every command's start); it is
    imported where vectors are first built or read (``aesi_lib.lexicon.vectors``)."""
    import subprocess
    import sys

    code = ("import sys, aesi_cli, aesi_flows.extract, aesi_flows.induce; "
            "print('gensim' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False"
