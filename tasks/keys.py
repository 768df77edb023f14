"""Cache keys: the inputs' content plus the library fingerprint (TASK_SOURCE alone would miss a
change in an ``aesi_lib`` function a task calls)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from aesi_lib.fingerprint import library_fingerprint


def content_key(step: str, *parts: Any) -> str:
    """``step-<hash>`` of the parts (JSON) and the library fingerprint."""
    text = json.dumps([library_fingerprint(), *parts], sort_keys=True, default=str)
    return f"{step}-{hashlib.sha256(text.encode()).hexdigest()[:24]}"
