"""A step of a run, declared once: its function, the files it writes, its cache key, its retry
policy and whether it runs on a cluster's worker, for whoever runs it (the in-process
executor, ``aesi_lib.steps.executor``, or Prefect, through ``aesi_tasks.prefect_task``).

A cached step writes files named after its content key, which the caller computes once (the
``*_file`` and ``*_files`` functions beside each step) and passes in, so the step's key is that
name, read back from the parameter that holds them (:meth:`Step.cache_key`); a scoring step
that writes no file computes its key from its parameters (``key=``). Its result, a small
value of paths or scores, is kept by the executor under that key.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Retry:
    """How a step that can fail for passing reasons is tried again.

    Attributes
    ----------
    retries : int
        At most this many more tries.
    delays : tuple of float
        Seconds before each retry (the last repeats).
    jitter : float
        The share of a delay Prefect may add or take at random (the in-process executor
        waits the delay itself).
    condition : callable, optional
        Whether an error is worth another try (None: every error is).
    """

    retries: int
    delays: tuple[float, ...] = ()
    jitter: float = 0.0
    condition: Callable[[BaseException], bool] | None = None

    def delay(self, attempt: int) -> float:
        """Seconds before retry ``attempt`` (0 for the first)."""
        return float(self.delays[min(attempt, len(self.delays) - 1)]) if self.delays else 0.0

    def worth(self, error: BaseException) -> bool:
        """Whether ``error`` is worth another try."""
        return self.condition is None or bool(self.condition(error))


@dataclass(frozen=True)
class Step:
    """One step of a run (module docstring).

    Attributes
    ----------
    name : str
        Its name in the log, in ``results.json``'s ``steps`` and in the Prefect UI.
    fn : callable
        What it does.
    files : str, optional
        The parameter that names the files a cached step writes (one path, or a dict of
        paths), all named ``<key>.<suffix>`` by the caller.
    key : callable, optional
        The cache key of a cached step that writes no file, from its parameters by name.
    retry : Retry, optional
        None: a failure is final.
    spread : bool
        Whether it runs on a worker of the run's Dask cluster when the run has one
        (``aesi run --dask``): the parse batches, the encoder batches and the feature build,
        whose memory and time the run's own process need not hold.
    """

    name: str
    fn: Callable[..., Any]
    files: str | None = None
    key: Callable[[Mapping[str, Any]], str] | None = None
    retry: Retry | None = None
    spread: bool = False

    @property
    def cached(self) -> bool:
        """Whether its result is kept under its key for the next run with the same inputs."""
        return self.files is not None or self.key is not None

    def cache_key(self, parameters: Mapping[str, Any],
                  stored: Callable[[str], bool] | None = None) -> str | None:
        """The key of a run of this step with ``parameters`` (by name): the name of the files
        it writes, or ``key``'s; None for a step that is not cached.

        ``stored`` says whether a result is kept under a key. When one of the step's files
        has gone (someone cleaned the project folder) while a result is kept under their
        name, the key is a fresh, unused one, so the step runs again and writes them,
        instead of handing back paths that no longer exist."""
        if self.key is not None:
            return self.key(parameters)
        if self.files is None:
            return None
        value = parameters[self.files]
        files = [Path(f) for f in (value.values() if isinstance(value, dict) else [value])]
        key = files[0].stem
        if all(f.exists() for f in files) or stored is None or not stored(key):
            return key
        return f"{key}-rebuild-{uuid.uuid4().hex[:12]}"


def step(name: str, *, files: str | None = None,
         key: Callable[[Mapping[str, Any]], str] | None = None,
         retry: Retry | None = None, spread: bool = False
         ) -> Callable[[Callable[..., Any]], Step]:
    """Declare the decorated function a :class:`Step`."""
    def declare(fn: Callable[..., Any]) -> Step:
        return Step(name, fn, files, key, retry, spread)
    return declare
