"""Small accessors shared by the report modules.

Owns :func:`_get` (a nested lookup in a parsed ``results.json`` that gives None instead of
raising), :func:`_is_number` (int or float, numpy scalars included, bool excluded) and
:func:`_as_int`; no other module of :mod:`aesi_lib.report` is imported here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np


def _get(obj: Any, *path: str) -> Any:
    """``obj[p0][p1]...`` or None when any step is missing or not a mapping."""
    for p in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(p)
    return obj


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def _as_int(v: Any, default: int) -> int:
    return int(v) if _is_number(v) and math.isfinite(float(v)) else default
