"""``python -m aesi_cli``: the ``aesi`` command."""

import sys

from aesi_cli import main

sys.exit(main())
