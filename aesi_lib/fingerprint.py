"""Content hashes that name cached results: library code, stored corpus, files."""

from __future__ import annotations

import hashlib
import subprocess
from functools import cache
from pathlib import Path

# Packages of aesi_lib that cannot change a result: they stay out of the fingerprint, so that
# editing them does not recompute every cached step.
_NOT_RESULTS = ("docs",)


@cache
def library_fingerprint() -> str:
    """Hash of every source and SQL file of ``aesi_lib``.

    Part of every cache key, so a change anywhere in the library (not only in the task that
    calls it) invalidates cached results. The documentation generator (``aesi_lib.docs``)
    computes no result and is left out.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".sql", ".tsv")
                       and p.relative_to(root).parts[0] not in _NOT_RESULTS):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def folder_listing(folder: str | Path) -> list[tuple[str, int, int]]:
    """The files under ``folder`` (recursively), sorted, as (path relative to the folder, size
    in bytes, modification time in ns): how a resource folder (a model, WordNet) is named in
    cache keys without reading its bytes."""
    root = Path(folder)
    return [(str(f.relative_to(root)), f.stat().st_size, f.stat().st_mtime_ns)
            for f in sorted(f for f in root.rglob("*") if f.is_file())]


def corpus_fingerprint(hashes: dict[str, tuple[str, str | None]]) -> str:
    """Hash of the stored documents' ids, text hashes and parse configurations."""
    digest = hashlib.sha256()
    for doc_id in sorted(hashes):
        sha, config = hashes[doc_id]
        digest.update(f"{doc_id}\t{sha}\t{config}\n".encode())
    return digest.hexdigest()[:16]


@cache
def source_commit() -> str:
    """The git commit of the checkout aesi runs from (short hash, ``+dirty`` when its tracked
    files have uncommitted changes), or ``""`` when it is not a git checkout or git is
    missing: what a sweep records beside its rows, so that a result names the code that gave
    it."""
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              check=True, timeout=10).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return ""
    return f"{commit}+dirty" if dirty else commit
