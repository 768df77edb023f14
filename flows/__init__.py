"""Prefect flows composed from ``tasks``: induce (main), update (incremental), extract (slot
filling with an existing schema) and sweep; ``flows.cli`` is the ``aesi`` command line.

Importing this package switches Prefect's telemetry off unless the environment says otherwise
(``PREFECT_SERVER_ANALYTICS_ENABLED=false``, ``DO_NOT_TRACK=1``): nothing here needs a network.
"""

import os

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
