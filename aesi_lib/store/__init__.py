"""The project's DuckDB store: documents, parses, entities, runs and assignments.

One database file per project directory. SQL lives in ``sql/``, one query a file. Writes of a
document's rows happen in one transaction, so a killed run leaves every document either as it
was or fully replaced.
"""

from aesi_lib.store.database import (
    Store,
    document_hash,
    document_sha256,
    load_sql,
)

__all__ = ["Store", "document_hash", "document_sha256", "load_sql"]
