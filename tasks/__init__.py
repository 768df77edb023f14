"""Prefect tasks: thin wrappers around ``aesi_lib`` with cache keys, retries and result paths.

Importing this package switches Prefect's telemetry off unless the environment says otherwise.
"""

import os

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
