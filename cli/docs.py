"""``aesi docs``: write the generated regions of the documentation pages anew, or check them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aesi_lib.errors import InputError


def add_docs_command(sub: argparse._SubParsersAction) -> None:
    """The ``docs`` subcommand."""
    docs = sub.add_parser(
        "docs", help="write the generated parts of docs/ (configuration, experiment tables)",
        description="Write anew every region of the Markdown pages under --dir that is "
        "marked <!-- aesi:generated KIND ... --> ... <!-- aesi:end -->: the configuration "
        "reference and the presets from the code, and each experiment's results table from "
        "the rows recorded beside its page. With --check, write nothing and exit 1 when a "
        "page is not current.")
    docs.add_argument("--dir", default="docs", help="the documentation folder (default docs)")
    docs.add_argument("--check", action="store_true",
                      help="only check: exit 1 and name the pages whose regions are stale")
    docs.set_defaults(func=cmd_docs)


def cmd_docs(args: argparse.Namespace) -> int:
    from aesi_lib.docs import renderers
    from aesi_lib.docs.regions import generate

    folder = Path(args.dir)
    if not folder.is_dir():
        raise InputError(folder, "no such documentation folder (give --dir)")
    stale = generate(folder, renderers(), write=not args.check)
    if args.check:
        for page in stale:
            print(f"aesi: {page}: generated regions are not current; run `aesi docs`",
                  file=sys.stderr)
        return 1 if stale else 0
    for page in stale:
        print(f"wrote {page}")
    return 0
