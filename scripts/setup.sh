#!/usr/bin/env bash
# Idempotent set-up shared by scripts/run.sh and scripts/test.sh:
#   1. Debian's WordNet database (wordnet-base) when /usr/share/wordnet is missing;
#   2. a virtual environment in .venv with aesi and its pinned dependencies.
# A second call with nothing changed does nothing but two checks.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo_root/.venv"
python_bin="${AESI_PYTHON:-python3}"
# Optional dependency groups of pyproject.toml to install: dev (pytest, ruff, scikit-learn),
# stanza (the Stanza parser backend with the CPU build of torch) and context (sentence vectors
# from all-MiniLM-L6-v2 for features.context, on the same torch).
extras="${AESI_EXTRAS:-dev,stanza,context}"

log() { printf '[aesi setup] %s\n' "$*" >&2; }

# pip's lines that say nothing to act on: an index or find-links location of the machine's pip
# configuration that lacks a package ("WARNING: Location 'file:///...' is ignored: it is
# neither a file nor a directory"), one line per package looked up: 205 of the 440 lines of a
# first ./scripts/run.sh. Every other line, errors first of all, goes through.
# Also setuptools' note at every editable install of a package whose folders are installed
# under other names (cli/, flows/, tasks/ as aesi_cli, aesi_flows, aesi_tasks): "Editable
# installation ... Please be careful with folders in your working directory with the same name
# as your package", framed by lines of "!!" and "*"; it is information, not a fault.
PIP_NOISE="^WARNING: Location '[^']*' is ignored"
PIP_NOISE+="|BuildBackendWarning: Editable installation\\.|^[[:space:]]*(!!|\\*+)?[[:space:]]*\$"
PIP_NOISE+="|Please be careful with folders in your working directory with the same"
PIP_NOISE+="|name as your package as they may take precedence during imports"
PIP_NOISE+="|with strategy, WheelFile\\(wheel_path"

# Run a pip command ("$@") quietly (-q) with its stderr filtered of $PIP_NOISE; pip's exit
# status is the function's.
quiet_pip() {
    local status=0
    { "$@" -q 2>&1 1>&3 3>&- | { grep -Ev "$PIP_NOISE" || true; } >&2; } 3>&1 || status=$?
    return "$status"
}

install_wordnet() {
    if [ -f /usr/share/wordnet/data.noun ] || [ -n "${AESI_SKIP_APT:-}" ]; then
        return 0
    fi
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            log "WordNet is missing and this user cannot run apt-get: install the Debian package"
            log "'wordnet-base' (or NLTK's own wordnet corpus); aesi falls back to coarse types without it."
            return 0
        fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        log "WordNet is missing and apt-get is not available: install WordNet 3.0 yourself"
        log "(Debian package wordnet-base, or NLTK's wordnet corpus)."
        return 0
    fi
    log "installing Debian package wordnet-base"
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wordnet-base >/dev/null
}

install_venv() {
    local stamp="$venv/.aesi-installed"
    local want
    want="$( (cat "$repo_root/pyproject.toml"; echo "$extras") | sha256sum | cut -d' ' -f1)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/aesi" ]; then
        return 0
    fi
    if ! "$python_bin" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        log "aesi needs Python >= 3.11 (found: $("$python_bin" --version 2>&1)); set AESI_PYTHON"
        exit 1
    fi
    if [ ! -x "$venv/bin/python" ]; then
        log "creating $venv"
        "$python_bin" -m venv "$venv"
    fi
    log "installing aesi and its pinned dependencies into .venv (first time only, a few minutes)"
    quiet_pip "$venv/bin/python" -m pip install --upgrade pip
    # The CPU build of torch first, so that Stanza's dependency on torch does not pull a
    # multi-GB CUDA build.
    if [[ ",$extras," == *",stanza,"* || ",$extras," == *",context,"* ]]; then
        quiet_pip "$venv/bin/python" -m pip install "torch==2.13.0"
    fi
    quiet_pip "$venv/bin/python" -m pip install -e "$repo_root[$extras]"
    echo "$want" > "$stamp"
}

# Sourced (tests/test_scripts.py), the script only defines its functions.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    install_wordnet
    install_venv
fi
