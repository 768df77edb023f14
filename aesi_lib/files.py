"""Writing files so that a failure names the file and leaves nothing half-written.

A write that fails for a reason of the machine (a full disk, a quota, an I/O error) raises an
``OSError`` that often names no file: the ``write`` or ``close`` of a file opened earlier, or a
library's own writer (pyarrow, numpy) reporting only the errno. :func:`writing` gives such an
error the name of the file being written, so that the command line can say which file system
to free (:func:`aesi_lib.errors.write_fault`); :func:`replacing` writes a file whole, through a
temporary file beside it that is removed when the write fails, so a full disk keeps no partial
file and a file that exists is complete.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def writing(path: str | Path) -> Iterator[None]:
    """Within the block, an ``OSError`` that names no file is given the name ``path``.

    Parameters
    ----------
    path : the file (or folder) the block writes.
    """
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


@contextmanager
def replacing(path: str | Path, unique: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` for the block to write; moved over ``path`` when the
    block ends, removed when it fails. Its folder is created.

    Parameters
    ----------
    path : the file to write.
    unique : a temporary name of its own (``mkstemp``) instead of ``<name>.part``, for files
        that several processes may write at once (the parse cache, the vector cache).

    Yields
    ------
    Path
        Where to write. An ``OSError`` of the block that names no file names ``path``
        (:func:`writing`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if unique:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
        os.close(fd)
        tmp = Path(name)
    else:
        tmp = path.with_name(path.name + ".part")
    try:
        with writing(path):
            yield tmp
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
