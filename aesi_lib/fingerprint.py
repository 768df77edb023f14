"""Content hashes that name cached results: library code, stored corpus, files."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path


@cache
def library_fingerprint() -> str:
    """Hash of every source and SQL file of ``aesi_lib``.

    Part of every cache key, so a change anywhere in the library (not only in the task that
    calls it) invalidates cached results.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".sql", ".tsv")):
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
