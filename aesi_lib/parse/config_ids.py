"""The parser configuration ids a parse cache remembers: ``<cache_dir>/config-ids.json``.

Learning a parser's ``config_id`` means loading its model (seconds). The id depends only on
what the caller's key names (the configuration, aesi's code, the installed parser and model
versions: ``aesi_lib.steps.parsers.parser_config_id``), so the cache folder keeps one JSON
object that maps each such key to its id. The file is rewritten whole through a temporary
file of this process, so concurrent writers never leave half a file; one that cannot be read
counts as empty (the ids are learnt again).
"""

from __future__ import annotations

import json
from pathlib import Path

from aesi_lib.files import replacing

CONFIG_IDS_FILE = "config-ids.json"


def config_ids_path(cache_dir: str | Path) -> Path:
    """Where the parse cache ``cache_dir`` keeps its remembered ids."""
    return Path(cache_dir) / CONFIG_IDS_FILE


def remembered_config_ids(cache_dir: str | Path) -> dict[str, str]:
    """The ids remembered in ``cache_dir``, by key; empty when none (or the file is damaged)."""
    try:
        memo = json.loads(config_ids_path(cache_dir).read_text())
    except (OSError, ValueError):
        return {}
    return memo if isinstance(memo, dict) else {}


def remember_config_id(cache_dir: str | Path, key: str, config_id: str) -> None:
    """Add ``key -> config_id`` to the ids remembered in ``cache_dir`` (atomically)."""
    memo = {**remembered_config_ids(cache_dir), key: config_id}
    with replacing(config_ids_path(cache_dir), unique=True) as tmp:
        tmp.write_text(json.dumps(memo, indent=1))
