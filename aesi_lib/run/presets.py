"""Named starting configurations of a run (``aesi run --preset NAME``).

``default`` is the best configuration found on DEV, TST1 and TST2 (README, "Results"); the
``reproduction`` presets are the closest working reading of the paper (README, "Results",
lists where they differ from it), kept for comparison; ``tied-cut`` is
the best configuration whose slots are still a normalized cut of W_S. A preset is a
``RunConfig`` as a dict; ``--config`` files and command-line options are merged over it.
"""

from __future__ import annotations

import copy
from typing import Any

_TIED = {"template_unit": "predicate", "slot_unit": "pattern"}

PRESETS: dict[str, dict[str, Any]] = {
    "default": {
        "features": {"type_scheme": "depth:3", "context": True, "event_nouns": True,
                     "event_noun_senses": "abstract", "support_verbs": True,
                     "agentive_modifiers": True, "attribution_verbs": True,
                     "pronoun_arguments": True},
        "model": {"mode": "sc", "n_templates": 20, "n_slots": 36, "slot_model": "factored",
                  "n_init": 8, "similarity": {"context_weight": 0.75, "salience_weight": 0.5},
                  "consensus_members": 11, "consensus_spread": 0.25, "class_scope": "template",
                  **_TIED},
    },
    "tied-cut": {
        "features": {"type_scheme": "depth:4"},
        "model": {"mode": "sc", "n_templates": 20, "n_slots": 12, **_TIED},
    },
    "reproduction": {
        "features": {"type_scheme": "hypernyms"},
        "model": {"mode": "scaled", "constraint_weight": 0.1, "n_templates": 6, "n_slots": 4},
    },
    "reproduction-sc": {
        "features": {"type_scheme": "hypernyms"},
        "model": {"mode": "sc", "n_templates": 6, "n_slots": 4},
    },
    "literal": {
        "features": {"type_scheme": "hypernyms"},
        "model": {"mode": "literal", "n_templates": 6, "n_slots": 4, "max_iter": 3},
    },
}


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``override`` merged in, recursively for nested dicts."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def preset(name: str) -> dict[str, Any]:
    """A copy of the named preset; ValueError naming the choices for an unknown name."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return copy.deepcopy(PRESETS[name])
