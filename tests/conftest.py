"""Shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aesi_lib.corpus.muc4 import MUC4_DIR_ENV, resolve_muc4_dir
from aesi_lib.errors import InputError

#: Set (by ``.ci/run`` where ``../shared/data/muc4`` exists) to make a missing corpus fail the
#: MUC-4 tests instead of skipping them.
REQUIRE_MUC4_ENV = "AESI_REQUIRE_MUC4"


@pytest.fixture(scope="session")
def muc4_dir() -> Path:
    """The MUC-4 corpus folder. A folder named by ``$AESI_MUC4_DIR`` that does not exist fails
    the test (a path the user chose is never silently skipped); without the corpus the test is
    skipped, or fails under ``$AESI_REQUIRE_MUC4``."""
    try:
        found = resolve_muc4_dir()
    except InputError as exc:
        pytest.fail(f"{MUC4_DIR_ENV} names {exc.path}, which is not a folder")
    if found is None:
        reason = f"MUC-4 corpus not found at ${MUC4_DIR_ENV} or ../shared/data/muc4"
        if os.environ.get(REQUIRE_MUC4_ENV):
            pytest.fail(f"{reason}, and {REQUIRE_MUC4_ENV} says it must be there")
        pytest.skip(reason)
    return found
