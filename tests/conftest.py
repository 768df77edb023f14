"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesi_lib.corpus.muc4 import MUC4_DIR_ENV, resolve_muc4_dir
from aesi_lib.errors import InputError


@pytest.fixture(scope="session")
def muc4_dir() -> Path:
    """The MUC-4 corpus folder, or skip the test when it is not available."""
    try:
        found = resolve_muc4_dir()
    except InputError as exc:
        pytest.skip(f"MUC-4 corpus not found at {exc.path} (named by {MUC4_DIR_ENV})")
    if found is None:
        pytest.skip(f"MUC-4 corpus not found at ${MUC4_DIR_ENV} or ../shared/data/muc4")
    return found
