"""Which parser backend turns text into the neutral parse format, and how to load it."""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass

from aesi_lib.parse.base import Parser
from aesi_lib.parse.casing import DEFAULT_CASING


@dataclass(frozen=True)
class ParserConfig:
    """Which parser turns text into the neutral parse format.

    Attributes
    ----------
    n_process : int
        Processes that parse, each with its own model (about 0.4 GiB each with the default
        spaCy model); 0: every usable core for spaCy (fewer when there are only a few
        documents to parse), one for Stanza (torch already uses every core). Not part of the
        parser's config_id: the parses are the same.
    """

    backend: str = "spacy"
    casing: str = DEFAULT_CASING
    model: str | None = None
    stanza_dir: str | None = None
    batch_size: int = 32
    n_process: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.n_process, bool) or not isinstance(self.n_process, int) \
                or self.n_process < 0:
            raise ValueError(f"n_process must be an integer >= 0 (0: one process per usable "
                             f"core), got {self.n_process!r}")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or ``taskset``
    can make smaller than the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not on Linux
        return os.cpu_count() or 1


# Text worth one more parse process: about as long to parse in one process (4-5 s, 30,000
# words) as starting a process takes (importing spaCy, loading the model and the casing
# lexicon: 3-4 s of CPU on a 2-core machine).
CHARS_PER_PROCESS = 200_000


def parse_processes(config: ParserConfig, text_chars: int | None = None) -> int:
    """How many processes parse with ``config`` in this process.

    Parameters
    ----------
    config
        ``config.n_process`` decides when it is not 0.
    text_chars
        How much text is to be parsed, when known: below :data:`CHARS_PER_PROCESS` per
        process the automatic choice takes fewer processes (a few documents are parsed
        in-process, without starting any).

    Returns
    -------
    int
        ``config.n_process`` when it is not 0; else 1 for Stanza (torch already uses every
        core) and for spaCy every usable core (:func:`usable_cores`), fewer for a small
        ``text_chars``. Always 1 in a daemonic process: a Dask worker process parses
        in-process, the cluster's workers being the parallelism.
    """
    if multiprocessing.current_process().daemon:
        return 1
    if config.n_process:
        return config.n_process
    if config.backend != "spacy":
        return 1
    cores = usable_cores()
    if text_chars is not None:
        cores = min(cores, max(1, text_chars // CHARS_PER_PROCESS))
    return cores


def make_parser(config: ParserConfig) -> Parser:
    """The parser backend named by ``config``: in this process, or in a pool of worker
    processes (:class:`~aesi_lib.parse.parallel.ParallelParser`) when
    :func:`parse_processes` is above 1. Both give the same parses and the same ``config_id``.

    With the automatic count (``n_process=0``) a call with less than
    :data:`CHARS_PER_PROCESS` of text is parsed in-process while no workers of the
    configuration run; a caller that knows how much it will parse (an ingest) passes the
    count :func:`parse_processes` gives for that amount instead.
    """
    if config.backend not in ("spacy", "stanza"):
        raise ValueError(f"unknown parser backend {config.backend!r}: use spacy or stanza")
    n_process = parse_processes(config)
    if n_process > 1:
        from aesi_lib.parse.parallel import ParallelParser

        # The automatic count parses small calls in-process until workers run: a caller that
        # does not say how much it will parse may parse a sentence at a time.
        return ParallelParser(make_parser, config, n_process,
                              small_in_process=config.n_process == 0,
                              small_chars=CHARS_PER_PROCESS)
    if config.backend == "spacy":
        from aesi_lib.parse.spacy_backend import DEFAULT_SPACY_MODEL, SpacyParser

        return SpacyParser(model=config.model or DEFAULT_SPACY_MODEL, casing=config.casing,
                           batch_size=config.batch_size)
    from aesi_lib.parse.stanza_backend import StanzaParser

    return StanzaParser(model_dir=config.stanza_dir, casing=config.casing)
