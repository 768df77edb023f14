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
    assert sorted(packages) == sorted(folders)
    assert {p.split(".")[0] for p in packages} == set(INSTALLED_AS.values())
    assert _setuptools()["package-dir"] == {"aesi_cli": "cli", "aesi_flows": "flows",
                                         "aesi_tasks": "tasks"}


def test_the_command_and_the_installed_names_are_the_repositorys():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["aesi"] == "aesi_cli:main"
    for folder, name in INSTALLED_AS.items():
        module = importlib.import_module(name)
        assert Path(module.__file__).resolve().parent == REPO / folder, name
