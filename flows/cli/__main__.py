"""``python -m flows.cli``: the ``aesi`` command."""

import sys

from flows.cli import main

sys.exit(main())
