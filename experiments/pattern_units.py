"""Template units of (predicate, argument position) instead of predicates, measured.

Issue 48's lever (a) asks that a mention's template follow the incident its passage reports.
Of the 512 gold entities of the selection split (seed 0, test-mapped lenient), 160 sit only in
templates the mapping does not use, above all the subjects of *claim*, *report* and *arrest*.
Under the default's predicate tying (``model.template_unit=predicate``) every mention of a
predicate shares one template, so the subject of *claim* cannot join the attack template
while its object stays elsewhere. This benchmark ties the template labels by a finer unit
and solves the default with it, on the default's own features (the salience term and every
other term still see predicates):

* ``pattern``: each (predicate, argument position) pair is a unit of its own;
* ``subject apart``: each predicate's subjects are one unit, its other mentions another.

The default runs first as the reference. The per-seed rows go to ``--rows`` (the columns of a
sweep's ``results.csv``), the record of docs/experiments/pattern-units.md::

    .venv/bin/python -m experiments.pattern_units --project-dir .aesi \\
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/pattern-units.csv
"""

from __future__ import annotations

import functools

import numpy as np

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model.config import ModelConfig
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.parts import ModelParts
from aesi_lib.model.units import label_units
from experiments.encoder_variants import default_inputs
from experiments.muc4_inputs import seeded_run_parser
from experiments.solve_variants import score_settings

SUBJECT = ARGUMENT_POSITIONS.index("subject")
#: What each setting keeps of a mention's argument position in its template unit.
UNIT_POSITIONS = {"pattern": "position", "subject apart": "subject"}


def pattern_units(predicate_ids: np.ndarray, positions: np.ndarray, keep: str) -> np.ndarray:
    """Template units of (predicate, position) (``keep="position"``) or of (predicate, is it a
    subject) (``keep="subject"``), numbered 0..U-1 in sorted order, shape (E,)."""
    predicate_ids = np.asarray(predicate_ids, dtype=np.int64)
    positions = np.asarray(positions, dtype=np.int64)
    if keep == "position":
        part = positions
    elif keep == "subject":
        part = (positions == SUBJECT).astype(np.int64)
    else:
        raise ValueError(f"keep must be 'position' or 'subject', got {keep!r}")
    codes = predicate_ids * len(ARGUMENT_POSITIONS) + part
    return np.unique(codes, return_inverse=True)[1].reshape(-1).astype(np.int64)


def template_units_by(keep: str) -> ModelParts:
    """The model's parts with the solve's template labels tied by :func:`pattern_units` (the
    extraction's unit names are not measured here)."""
    library_units = label_units

    def finer(features: EntityFeatures, config: ModelConfig
              ) -> tuple[np.ndarray | None, np.ndarray | None]:
        units_t, units_s = library_units(features, config)
        if units_t is None:
            return units_t, units_s
        return pattern_units(features.predicate_ids, features.argument_positions, keep), units_s

    return ModelParts(label_units=finer)


def main(argv: list[str] | None = None) -> int:
    parser = seeded_run_parser(__doc__.splitlines()[0])
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    args = parser.parse_args(argv)
    inputs = default_inputs("pattern_units.py", args)
    features = inputs.features
    for name, keep in UNIT_POSITIONS.items():
        units = pattern_units(features.predicate_ids, features.argument_positions, keep)
        print(f"{name}: {int(units.max()) + 1} template units", flush=True)
    score_settings(inputs, [(f"template units: {name}", functools.partial(template_units_by, keep))
                            for name, keep in UNIT_POSITIONS.items()], args.seeds, args.rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
