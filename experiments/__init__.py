"""The studies behind the experiment pages (``docs/experiments``) and the tables of
``docs/results.md``: each module is a script, run from the repository root as
``python -m experiments.NAME`` (its ``--help`` says what it takes), whose printed rows or
written CSV the pages show. They read finished runs and sweeps (``aesi run``, ``aesi sweep``)
and pass their variants to the library as parameters (``aesi_lib.model.parts``, the entity
rules, the options of the map); nothing here is part of the product. ``benchmarks/`` keeps
the speed, memory and scale measurements.
"""
