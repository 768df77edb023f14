"""The retry policy of the steps that can fail for passing reasons: reading input files,
parsing (memory pressure), writing to the DuckDB store (another process holding the lock for a
moment). User errors (bad input, a missing model) fail the same way every time, a full disk or
an I/O error (``aesi_lib.errors.write_fault``) does not pass in seconds, and parse workers that
were stopped because the command is ending (``ParsePoolClosed``: Ctrl-C, SIGTERM) must not be
started again: none of these is retried."""

from __future__ import annotations

from aesi_lib.errors import AesiError, StoreLockedError, write_fault
from aesi_lib.parse.parallel import ParsePoolClosed
from aesi_lib.steps.declaration import Retry


def worth_retrying(error: BaseException | None) -> bool:
    """Retry a failure unless it is a user error (bad input, missing model), a write the
    machine refused (full disk, I/O error) or parse workers stopped on purpose. A locked store
    is worth waiting for."""
    if isinstance(error, StoreLockedError):
        return True
    return not (isinstance(error, AesiError | ParsePoolClosed)
                or write_fault(error) is not None)


#: Two more tries, 2 s and 4 s later (Prefect adds up to half of a delay at random).
RETRY = Retry(retries=2, delays=(2.0, 4.0), jitter=0.5, condition=worth_retrying)
