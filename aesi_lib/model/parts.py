"""The parts of the model that an experiment may replace, passed in rather than patched.

:class:`ModelParts` holds one function per replaceable part, each the library's own by
default. :func:`aesi_lib.model.induction.induce` takes one, and so does
:func:`aesi_lib.model.extract.fill_slots`, so that a solve and the extraction that places new
mentions into its schema see the same parts. The product passes none (the defaults); the
studies of ``experiments/`` pass their variants (``experiments/solve_variants.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from aesi_lib.model.factored_slots import semantic_classes_by_template
from aesi_lib.model.similarity import TermsOf, head_class_terms, template_terms
from aesi_lib.model.units import UnitNames, label_units, unit_names


@dataclass(frozen=True)
class ModelParts:
    """The replaceable parts of a solve and of the extraction that follows it.

    Attributes
    ----------
    template_terms : callable
        The weighted terms of W_T (Eq. 1), with the signature of
        :func:`aesi_lib.model.similarity.template_terms`: the solve's template graph and the
        template scores of new mentions.
    class_terms : callable
        The weighted terms of W_H (:func:`aesi_lib.model.similarity.head_class_terms`): the
        semantic classes of factored slots and the class scores of new mentions.
    label_units : callable
        ``(features, config) -> (units_t, units_s)``, the units the solve ties
        (:func:`aesi_lib.model.units.label_units`).
    unit_names : callable
        ``(features, vocab, config) -> UnitNames``, the same partition by name, which the
        extraction reads (:func:`aesi_lib.model.units.unit_names`); a variant of the units
        replaces both.
    classes_by_template : callable
        The class cut within each template under ``class_scope="template"``, with the
        arguments of :func:`aesi_lib.model.factored_slots.semantic_classes_by_template`.
    """

    template_terms: TermsOf = template_terms
    class_terms: TermsOf = head_class_terms
    label_units: Callable[..., tuple[Any, Any]] = label_units
    unit_names: Callable[..., UnitNames] = unit_names
    classes_by_template: Callable[..., np.ndarray] = semantic_classes_by_template


DEFAULT_PARTS = ModelParts()
"""The library's own parts: what every product path solves and extracts with."""
