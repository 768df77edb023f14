"""A whole run, as plain functions: its settings, the named presets, the pipeline steps and the
sweep bookkeeping.

- :mod:`~aesi_lib.run.config`: ``RunConfig`` (parser, features, model, resources);
- :mod:`~aesi_lib.run.presets`: the named starting configurations (``default``, ...);
- :mod:`~aesi_lib.run.pipeline`: ingest → entity table and PMI → features → induction →
  export → scores, each step usable from a notebook (the Prefect tasks wrap them);
- :mod:`~aesi_lib.run.experiments`: sweeps over configurations × seeds and their table.
"""
