"""The generated parts of the documentation site (``docs/``, built with MkDocs).

A page of ``docs/`` is written by hand, except between region markers, whose content
``aesi docs`` regenerates from the code or from recorded rows, so that the page cannot drift
from what it describes:

* :mod:`aesi_lib.docs.regions` finds and rewrites the regions of a page;
* :mod:`aesi_lib.docs.configuration` writes the configuration reference from the JSON schema
  of a run's configuration (``aesi config --schema``) and the presets;
* :mod:`aesi_lib.docs.experiments` writes an experiment's results table from its recorded
  rows (one row per configuration and seed, or a table recorded as it was measured).
"""

from __future__ import annotations

from aesi_lib.docs.regions import Renderer


def renderers() -> dict[str, Renderer]:
    """The region kinds ``aesi docs`` writes, by name."""
    from aesi_lib.docs.configuration import render_configuration, render_presets
    from aesi_lib.docs.experiments import render_results

    return {"configuration": render_configuration, "presets": render_presets,
            "results": render_results}
