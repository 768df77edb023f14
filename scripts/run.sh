#!/usr/bin/env bash
# Set up if needed, then run the main job: the full MUC-4 induction and evaluation when the
# corpus is present (../shared/data/muc4 or $AESI_MUC4_DIR), else the embedded demo corpus.
# Extra arguments go to `aesi run`.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo_root/scripts/setup.sh"
cd "$repo_root"
exec "$repo_root/.venv/bin/aesi" run "$@"
