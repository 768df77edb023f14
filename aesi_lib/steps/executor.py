"""Running a step: its cache, its retries and its log name, the same for whoever runs it.

:func:`run_step` runs a step (``aesi_lib.steps.declaration.Step``) in this thread: a cached
step is answered from a :class:`ResultStore` when it holds the result of the step's key
(``Step.cache_key``) and its result is kept there when it runs; a failure is tried again as
the step's retry policy says. The in-process executor of the flows
(``aesi_flows.in_process``) and the Prefect task of a step (``aesi_tasks.prefect_task``, which
leaves the retries to Prefect) both call it, with the project's store, so a run made in
process and one made under a Prefect server share one cache.
"""

from __future__ import annotations

import inspect
import logging
import pickle
import time
from pathlib import Path
from typing import Any

from aesi_lib.files import replacing
from aesi_lib.steps.declaration import Step
from aesi_lib.steps.logs import RUNNING_STEP

COMPLETED = "Completed"
CACHED = "Cached"

log = logging.getLogger("aesi")


class ResultStore:
    """The results of cached steps in ``folder``: one file a key, ``<key>.pickle``, written
    whole (a temporary file renamed), so a result that exists is complete.

    A result is a small value (paths of the files a step wrote, scores), never the arrays
    themselves."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.pickle"

    def exists(self, key: str) -> bool:
        """Whether a result is kept under ``key``."""
        return self._path(key).is_file()

    def read(self, key: str) -> Any:
        """The result kept under ``key``."""
        return pickle.loads(self._path(key).read_bytes())

    def write(self, key: str, value: Any) -> None:
        """Keep ``value`` under ``key``."""
        with replacing(self._path(key), unique=True) as partial:
            partial.write_bytes(pickle.dumps(value))


def run_step(step: Step, args: tuple[Any, ...], kwargs: dict[str, Any],
             store: ResultStore | None = None, name: str | None = None,
             retries: bool = True) -> tuple[Any, str]:
    """Run ``step`` on ``args`` and ``kwargs`` in this thread; its value and its state
    (:data:`COMPLETED`, or :data:`CACHED` when ``store`` held the result of its key).

    Parameters
    ----------
    step : Step
    args, kwargs : its arguments.
    store : where a cached step's results are kept (None: none is kept or read).
    name : the step's name in the log (default: the step's name; a flow that runs one step
        several times names each run).
    retries : try a failure again as the step's retry policy says (False: whoever calls
        this retries, as Prefect does).

    Raises
    ------
    Exception
        The step's last error, once its retries are spent or its condition refuses one.
    """
    bound = inspect.signature(step.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    token = RUNNING_STEP.set(name or step.name)
    try:
        key = (step.cache_key(dict(bound.arguments), store.exists)
               if store is not None else None)
        if key is not None and store.exists(key):
            return store.read(key), CACHED
        retry = step.retry if retries else None
        attempt = 0
        while True:
            try:
                value = step.fn(*bound.args, **bound.kwargs)
                break
            except Exception as error:
                if retry is None or attempt >= retry.retries or not retry.worth(error):
                    raise
                delay = retry.delay(attempt)
                attempt += 1
                log.warning("%s failed (%s: %s); retry %d of %d in %.0f s",
                            name or step.name, type(error).__name__, error, attempt,
                            retry.retries, delay)
                time.sleep(delay)
        if key is not None:
            store.write(key, value)
        return value, COMPLETED
    finally:
        RUNNING_STEP.reset(token)
