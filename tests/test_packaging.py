"""What the project installs: its own top-level names only (aesi_lib, aesi_cli, aesi_flows,
aesi_tasks), every package folder listed, and the installed names pointing at the
repository's folders."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The installed name of each top-level folder.
INSTALLED_AS = {"aesi_lib": "aesi_lib", "cli": "aesi_cli", "flows": "aesi_flows",
                "tasks": "aesi_tasks"}


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_folder_is_installed_under_the_projects_own_names():
    folders = set()
    for folder, name in INSTALLED_AS.items():
        for init in (REPO / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO / folder).parts
            folders.add(".".join((name, *parts)))
    packages = _setuptools()["packages"]
    assert sorted(packages) == sorted(folders | _data_folders())
    assert {p.split(".")[0] for p in packages} == set(INSTALLED_AS.values())
    assert _setuptools()["package-dir"] == {"aesi_cli": "cli", "aesi_flows": "flows",
                                         "aesi_tasks": "tasks"}


def _data_folders() -> set[str]:
    """The folders inside a package that hold files but no ``__init__.py`` (package data):
    setuptools warns at every install unless they are listed as packages."""
    out = set()
    for folder, name in INSTALLED_AS.items():
        for path in (REPO / folder).rglob("*"):
            if (path.is_dir() and path.name != "__pycache__"
                    and not (path / "__init__.py").exists()
                    and any(p.is_file() for p in path.iterdir())):
                out.add(".".join((name, *path.relative_to(REPO / folder).parts)))
    return out


def test_the_package_data_is_declared_where_it_lies():
    data = _setuptools()["package-data"]
    assert _data_folders() <= set(data)
    for package, patterns in data.items():
        top, *rest = package.split(".")
        folder = REPO.joinpath({v: k for k, v in INSTALLED_AS.items()}[top], *rest)
        assert all(any(folder.glob(pattern)) for pattern in patterns), package


def test_the_command_and_the_installed_names_are_the_repositorys():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["aesi"] == "aesi_cli:main"
    for folder, name in INSTALLED_AS.items():
        module = importlib.import_module(name)
        assert Path(module.__file__).resolve().parent == REPO / folder, name
