"""experiments/template_splits.py reads the rule's own split among its configurations, the
reading without it, and only roles of the metric."""

from __future__ import annotations

from aesi_lib.evaluate.incident_map import SPLIT_ROLES
from aesi_lib.evaluate.template_filling import ROLES
from experiments import template_splits


def test_the_configurations_hold_the_rule_and_the_reading_before_it():
    configurations = template_splits.CONFIGURATIONS
    assert SPLIT_ROLES in configurations.values()
    assert () in configurations.values()
    assert all(set(roles) <= set(ROLES) for roles in configurations.values())
    assert len(set(configurations.values())) == len(configurations)
