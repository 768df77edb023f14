"""Prefect tasks: thin wrappers around ``aesi_lib`` with cache keys, retries and result paths."""
