"""The set-up script's pip output: quiet, without the index warnings of the machine's pip
configuration, with pip's errors and exit status kept. The script is sourced (it then only
defines its functions); nothing is installed."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# A stand-in for pip: what it was given on stdout, two lines of the index noise, setuptools'
# note on an editable install and an error on stderr, and the exit status 3 of a failed
# install.
NOISE = ("WARNING: Location 'file:///opt/pypi-more/simple/{}/' is ignored: it is neither a "
         "file nor a directory.")
EDITABLE_NOTE = (
    "  /tmp/x/setuptools/command/editable_wheel.py:354: BuildBackendWarning: Editable "
    "installation.", "  !!", "  ", "          ****************", "          Please be careful "
    "with folders in your working directory with the same", "          name as your package as "
    "they may take precedence during imports.", "          ****************", "  ", "  !!",
    "    with strategy, WheelFile(wheel_path, 'w') as wheel_obj:")
FAKE_PIP = "\n".join([
    "fake_pip() {",
    '    echo "args: $*"',
    *(f'    echo "{NOISE.format(name)}" >&2' for name in ("six", "numpy")),
    *(f'    echo "{line}" >&2' for line in EDITABLE_NOTE),
    '    echo "ERROR: Could not find a version that satisfies the requirement '
    'nonexistent==1.0" >&2',
    "    return 3",
    "}"])


def _quiet_pip(command: str) -> subprocess.CompletedProcess[str]:
    script = (f"set -euo pipefail\nsource {REPO / 'scripts' / 'setup.sh'}\n{FAKE_PIP}\n"
              f"{command}")
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)


def test_pip_runs_quietly_without_the_index_warnings_and_keeps_its_errors():
    done = _quiet_pip("status=0; quiet_pip fake_pip install torch || status=$?\n"
                      "echo \"status $status\"")
    assert done.stdout == "args: install torch -q\nstatus 3\n"
    assert done.stderr == ("ERROR: Could not find a version that satisfies the requirement "
                           "nonexistent==1.0\n")


def test_a_failing_pip_stops_the_set_up():
    done = _quiet_pip("quiet_pip fake_pip install x\necho 'not reached'")
    assert done.returncode == 3
    assert "not reached" not in done.stdout


def test_sourcing_the_set_up_installs_nothing():
    done = _quiet_pip("echo sourced")
    assert done.returncode == 0 and done.stdout == "sourced\n" and done.stderr == ""
