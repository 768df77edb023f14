"""aesi's cache root for prepared resources (vectors converted for gensim, WordNet copies)."""

from __future__ import annotations

import os
from pathlib import Path


def resolve_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return aesi's cache root: the argument, ``$AESI_CACHE_DIR``, or the user cache dir.

    Parameters
    ----------
    cache_dir
        Explicit cache root; wins over the environment.

    Returns
    -------
    Path
        The cache root (not created here).
    """
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get("AESI_CACHE_DIR"):
        return Path(os.environ["AESI_CACHE_DIR"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "aesi"
