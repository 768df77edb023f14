"""experiments/pattern_units.py: finer template units, reaching the solve only inside their
block."""

from __future__ import annotations

import numpy as np

from aesi_lib.model.config import ModelConfig
from aesi_lib.model.parts import DEFAULT_PARTS
from aesi_lib.model.units import label_units
from experiments import pattern_units
from tests.test_position_classes_experiment import _features


def test_units_part_a_predicate_by_position_or_by_subject():
    predicates = np.array([0, 0, 0, 0, 1, 1])
    positions = np.array([0, 1, 2, 0, 1, 3])
    assert pattern_units.pattern_units(predicates, positions, "position").tolist() == [
        0, 1, 2, 0, 3, 4]
    assert pattern_units.pattern_units(predicates, positions, "subject").tolist() == [
        1, 0, 0, 1, 2, 2]


def test_the_units_are_the_parts_it_passes_and_the_librarys_stay():
    features = _features()
    config = ModelConfig(template_unit="predicate")
    parts = pattern_units.template_units_by("position")
    plain, _ = label_units(features, config)
    finer, _ = parts.label_units(features, config)
    untied, _ = parts.label_units(features, ModelConfig(template_unit="mention"))
    assert parts.class_terms is DEFAULT_PARTS.class_terms
    assert len(set(plain)) == 1 and len(set(finer)) == 2       # subjects and objects apart
    assert untied is None                                      # a mention-level cut stays one
