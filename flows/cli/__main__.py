"""``python -m aesi_flows.cli``: the ``aesi`` command."""

import sys

from aesi_flows.cli import main

sys.exit(main())
