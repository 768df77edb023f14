"""Prefect flows composed from ``aesi_tasks`` (installed and imported as ``aesi_flows``; the
folder is ``flows/``): induce (main), update (incremental), extract (slot filling with an
existing schema) and sweep; ``aesi_cli`` is the ``aesi`` command line.

Importing this package changes no setting. Prefect's telemetry is switched off
(``PREFECT_SERVER_ANALYTICS_ENABLED=false``, ``DO_NOT_TRACK=1``: nothing here needs a network)
by whoever starts the flows, before Prefect is imported: the ``aesi`` command line
(``aesi_cli.main``), a deployment's ``job_variables`` (``prefect.yaml``), or the caller's
own environment (a notebook, the tests' ``conftest.py``).
"""
