"""What the benchmarks of solve variants share (``head_roles.py``, ``predicate_documents.py``,
``position_classes.py``, ``pattern_units.py``): a library function replaced inside a block,
and the default's seeds scored beside each setting's, on the features of a finished MUC-4
run of the default."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pandas as pd
from encoder_variants import DefaultInputs, score_variants

from aesi_lib.run.experiments import RECORD_COLUMNS, results_table, summarize

#: A setting: its name, and what makes the block in which the solve sees it.
Setting = tuple[str, Callable[[], AbstractContextManager[Any]]]


@contextlib.contextmanager
def replaced(owner: Any, name: str, value: Any) -> Iterator[None]:
    """``owner.name`` is ``value`` inside the block, and what it was after it."""
    original = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, original)


def score_settings(inputs: DefaultInputs, settings: Iterable[Setting], seeds: list[int],
                   rows_path: str | None) -> pd.DataFrame:
    """The default solved for every seed, then each setting inside its block, all on the
    default's features and scored as the sweep scores them
    (``encoder_variants.score_variants``); prints the summary table and writes the per-seed
    rows (a sweep's ``results.csv`` columns) to ``rows_path`` when given."""
    frames = [score_variants(inputs, {"default": inputs.features}, seeds, None)]
    for name, block in settings:
        with block():
            frames.append(score_variants(inputs, {name: inputs.features}, seeds, None))
    rows = pd.concat(frames, ignore_index=True)
    print(results_table(summarize(rows)))
    if rows_path:
        rows[list(RECORD_COLUMNS)].to_csv(rows_path, index=False)
    return rows
