#!/usr/bin/env bash
# Set up if needed, then run the linter and the test suite. Extra arguments go to pytest (after
# ours, so that e.g. `-n 0` runs the suite in one process).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo_root/scripts/setup.sh"
cd "$repo_root"
"$repo_root/.venv/bin/ruff" check aesi_lib cli tasks flows tests benchmarks experiments
# The documentation: its generated regions current (the configuration reference, the
# experiments' tables), then the site built with every link and page checked.
"$repo_root/.venv/bin/aesi" docs --check
site_dir="$(mktemp -d)"
NO_MKDOCS_2_WARNING=1 "$repo_root/.venv/bin/mkdocs" build --strict --quiet --site-dir "$site_dir"
rm -rf "$site_dir"
# Two pytest-xdist workers, one module each at a time: the MUC-4 module (one shared run and
# the commands that continue it) stays in one process while the other modules run beside it
# (README, "Quick start": 661 s -> 384 s on 2 cores with the caches of ./scripts/run.sh).
workers=$(( $(nproc) >= 2 ? 2 : 1 ))
exec "$repo_root/.venv/bin/python" -m pytest -q -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
