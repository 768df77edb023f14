"""Run ``aesi`` with one writer failing as on a full disk, so a test can see what the command says.

Usage: ``python tests/failing_write.py MODULE:ATTRIBUTE ERRNO aesi-arguments...``. The callable
at ``MODULE:ATTRIBUTE`` (``pandas:DataFrame.to_csv``, ``os:fsync``) is replaced by one that
raises ``OSError(ERRNO, strerror)`` with no file name, as a ``write`` or ``close`` on a full
disk does. It patches the running process only: the library carries no hook for tests.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from aesi_cli import main


def _fail_with(number: int) -> Any:
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise OSError(number, os.strerror(number))

    return failing


def _patch(target: str, number: int) -> None:
    module_name, _, path = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    *parents, name = path.split(".")
    for part in parents:
        owner = getattr(owner, part)
    setattr(owner, name, _fail_with(number))


if __name__ == "__main__":
    target, number, *argv = sys.argv[1:]
    _patch(target, int(number))
    sys.exit(main(argv))
