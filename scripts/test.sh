#!/usr/bin/env bash
# Set up if needed, then run the linter and the test suite. Extra arguments go to pytest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo_root/scripts/setup.sh"
cd "$repo_root"
"$repo_root/.venv/bin/ruff" check aesi_lib tasks flows tests benchmarks
exec "$repo_root/.venv/bin/python" -m pytest -q "$@"
