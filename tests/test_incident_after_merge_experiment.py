"""experiments/incident_after_merge.py: the incident step's settings and their names."""

from __future__ import annotations

from experiments import incident_after_merge


def test_every_step_has_its_own_name():
    names = [incident_after_merge.step_name(k, s) for k, s in incident_after_merge.STEPS]
    assert len(set(names)) == len(names)
    assert incident_after_merge.step_name(1.2, True).startswith("incident step (subjects, κ 1.2")


def test_the_steps_reuse_the_incident_levers_step():
    from experiments import incident_levers

    assert incident_after_merge.incident_templates is incident_levers.incident_templates
