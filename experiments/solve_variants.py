"""What the benchmarks of solve variants share (``head_roles.py``, ``predicate_documents.py``,
``position_classes.py``, ``pattern_units.py``): each setting is a variant of the model's parts
(``aesi_lib.model.parts.ModelParts``), passed to the solve, and the default's seeds are scored
beside each setting's, on the features of a finished MUC-4 run of the default."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pandas as pd

from aesi_lib.model.parts import DEFAULT_PARTS, ModelParts
from aesi_lib.run.experiments import RECORD_COLUMNS, results_table, summarize
from experiments.encoder_variants import DefaultInputs, score_variants

#: A setting: its name, and what makes the parts the solve runs with under it.
Setting = tuple[str, Callable[[], ModelParts]]


def score_settings(inputs: DefaultInputs, settings: Iterable[Setting], seeds: list[int],
                   rows_path: str | None) -> pd.DataFrame:
    """The default solved for every seed, then each setting's parts, all on the default's
    features and scored as the sweep scores them (``encoder_variants.score_variants``);
    prints the summary table and writes the per-seed rows (a sweep's ``results.csv``
    columns) to ``rows_path`` when given."""
    frames = [score_variants(inputs, {"default": inputs.features}, seeds, None, DEFAULT_PARTS)]
    for name, parts in settings:
        frames.append(score_variants(inputs, {name: inputs.features}, seeds, None, parts()))
    rows = pd.concat(frames, ignore_index=True)
    print(results_table(summarize(rows)))
    if rows_path:
        rows[list(RECORD_COLUMNS)].to_csv(rows_path, index=False)
    return rows
