"""Loaded parsers, shared by the parse steps of one process, and the parser configuration id.

Loading a spaCy or Stanza model takes seconds: a process keeps the parsers it loaded and hands
them to whichever parse step needs one next (:class:`_ParserPool`); :func:`parser_config_id`
remembers each configuration's id so that planning an ingest loads no model at all.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from aesi_lib.parse.backends import ParserConfig, make_parser
from aesi_lib.parse.config_ids import remember_config_id, remembered_config_ids
from aesi_lib.steps.keys import content_key, resource_key


class _ParserPool:
    """Loaded parsers by configuration. A parser is used by one thread at a time; a thread that
    finds none free makes another (so N concurrent parse steps hold N parsers, sequential
    steps share one, and a parser loaded to learn the configuration id is reused by the
    first parse batch). The parsers of a configuration that parses in several processes are
    handles on one pool of worker processes (``aesi_lib.parse.parallel``), which concurrent
    steps share."""

    def __init__(self) -> None:
        self._free: dict[ParserConfig, list[Any]] = {}
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        # Step functions travel to Dask workers by value, with the globals they use: the pool
        # arrives as the receiving process's own pool (parsers and locks do not travel).
        return (_parser_pool, ())

    @contextmanager
    def checkout(self, config: ParserConfig) -> Iterator[Any]:
        with self._lock:
            free = self._free.setdefault(config, [])
            parser = free.pop() if free else None
        if parser is None:
            parser = make_parser(config)
        try:
            yield parser
        finally:
            with self._lock:
                self._free[config].append(parser)


PARSERS = _ParserPool()


def _parser_pool() -> _ParserPool:
    """This process's parser pool."""
    return PARSERS


def _parser_environment(config: ParserConfig) -> list[Any]:
    """What, besides ``config`` and aesi's code, decides a parser's ``config_id``: the versions
    of the parser library and model packages (or the model folder)."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    if config.backend == "spacy":
        from aesi_lib.parse.spacy_backend import DEFAULT_SPACY_MODEL

        model = config.model or DEFAULT_SPACY_MODEL
        folder = resource_key(model) if Path(model).exists() else None
        return [version("spacy"), model, version(model.replace("_", "-")), folder]
    return [version(config.backend), resource_key(config.stanza_dir)]


def parser_config_id(config: ParserConfig, cache_dir: str) -> str:
    """The parser's ``config_id`` without loading the model when it is known.

    Loading a spaCy or Stanza model takes seconds; the id depends only on the configuration,
    aesi's code and the installed parser/model versions, so it is remembered in the parse
    cache (``aesi_lib.parse.config_ids``) under a hash of those.
    """
    # The number of parse processes changes where parsing runs, not the parses or the id.
    key = content_key("parser", replace(config, n_process=0), _parser_environment(config))
    remembered = remembered_config_ids(cache_dir).get(key)
    if remembered is not None:
        return remembered
    with PARSERS.checkout(config) as parser:
        config_id = parser.config_id
    remember_config_id(cache_dir, key, config_id)
    return config_id


def release_parse_processes() -> None:
    """Stop this process's parse worker processes (``aesi_lib.parse.parallel``): an ingest
    that has stored its last batch frees their memory (about 0.5 GiB each) for the steps
    that follow; a later parse starts new ones."""
    from aesi_lib.parse.parallel import shutdown_pools

    shutdown_pools()


@contextmanager
def parse_processes_stopped_on_error() -> Iterator[None]:
    """Stop this process's parse worker processes at once when the block raises (Ctrl-C,
    SIGTERM, a failed store write): the batches they were parsing then fail within a second
    with ``ParsePoolClosed``, which is not retried, instead of holding the end of the command
    until they are parsed (a large document takes minutes)."""
    from aesi_lib.parse.parallel import shutdown_pools

    try:
        yield
    except BaseException:
        shutdown_pools(wait=False)
        raise
