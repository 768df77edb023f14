"""Cache keys: the inputs' content, the library fingerprint and the step's own source.

Hashing only the step's function (as Prefect's ``TASK_SOURCE`` does) would miss a change in an
``aesi_lib`` function it calls; every key here also holds ``library_fingerprint()`` (all library
source and SQL files). Inputs enter by content: files by their SHA-256, stored documents by the
corpus fingerprint (ids, text hashes, parser configuration), resources (vectors, WordNet) by
path, size and modification time.

A cached step returns paths of files named after its key, inside the project folder (whose path
is part of the key); the flow computes those paths once and passes them to the step, whose key
is read back from them (``aesi_lib.steps.declaration.Step.cache_key``, which also gives a
fresh key when one of those files has gone).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from aesi_lib.fingerprint import folder_listing, library_fingerprint


@cache
def source_hash(fn: Callable[..., Any]) -> str:
    """Short hash of a function's source (its code, as ``TASK_SOURCE`` would see it)."""
    try:
        text = inspect.getsource(fn)
    except (OSError, TypeError):
        text = getattr(fn, "__qualname__", repr(fn))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def content_key(step: str, *parts: Any) -> str:
    """``step-<hash>`` of the parts (as JSON) and the library fingerprint."""
    text = json.dumps([library_fingerprint(), *parts], sort_keys=True, default=str)
    return f"{step}-{hashlib.sha256(text.encode()).hexdigest()[:24]}"


def resolved(work_dir: str) -> str:
    """The project folder a step writes into: part of its key, as its results are paths."""
    return str(Path(work_dir).resolve())


def resource_key(path: str | os.PathLike[str] | None) -> Any:
    """Identity of a resource (vectors file, WordNet folder): ``"embedded"`` for the default,
    else the resolved path with the size and modification time of its files."""
    if path is None:
        return "embedded"
    p = Path(path).expanduser().resolve()
    if p.is_dir():
        return [str(p), folder_listing(p)]
    if p.exists():
        return [str(p), p.stat().st_size, p.stat().st_mtime_ns]
    return [str(p), "missing"]


def wordnet_key(path: str | os.PathLike[str] | None) -> Any:
    """Identity of the WordNet a step reads for the run's ``wordnet_path``: the path's
    (:func:`resource_key`); for None, the machine's own database, the one
    ``aesi_lib.lexicon.wordnet.load_wordnet`` opens (once per process: a run has opened it
    for its entity rules before any keyed step), by its folder or zip file, or ``"absent"``
    when the machine has none. So installing, removing or replacing the machine's WordNet
    changes the keys of the steps that read it."""
    if path is not None:
        return resource_key(path)
    from aesi_lib.errors import ResourceMissingError
    from aesi_lib.lexicon.wordnet import load_wordnet, wordnet_location

    try:
        lexicon = load_wordnet(None)
    except ResourceMissingError:
        return "absent"
    return resource_key(wordnet_location(lexicon))
