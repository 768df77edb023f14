"""Prefect flows composed from ``tasks``: induce (main), update, evaluate, sweep."""
