"""What the benchmarks on MUC-4 share: the corpus with its keys, the store of a finished run
and the arguments that name them. Each check prints one line naming the script and what is
missing, and exits with 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aesi_lib.corpus.sources import Corpus, load_corpus
from aesi_lib.errors import InputError


def seeded_run_parser(description: str) -> argparse.ArgumentParser:
    """A parser with ``--project-dir`` (a project holding a MUC-4 run of the default),
    ``--muc4-dir`` and ``--seeds``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--project-dir", default=".aesi",
                        help="a project holding a MUC-4 run of the default (default: .aesi)")
    parser.add_argument("--muc4-dir", help="the MUC-4 folder (default: as aesi run finds it)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    return parser


def muc4_corpus(script: str, muc4_dir: str | None, eval_keys: bool = True) -> Corpus:
    """The MUC-4 corpus as ``aesi run`` finds it (or at ``muc4_dir``), with its DEV keys and,
    with ``eval_keys``, those of TST1+TST2."""
    try:
        corpus = load_corpus(muc4_dir)
    except InputError as exc:
        _stop(f"{script}: {exc}")
    if corpus.name != "muc4" or not corpus.map_keys or (eval_keys and not corpus.eval_keys):
        _stop(f"{script}: needs the MUC-4 corpus with its {'keys' if eval_keys else 'DEV keys'}")
    return corpus


def project_store(script: str, project_dir: str | Path) -> Path:
    """The store of the project ``project_dir`` (a finished ``./scripts/run.sh``)."""
    path = Path(project_dir) / "aesi.duckdb"
    if not path.is_file():
        _stop(f"{script}: {path}: no project store; run ./scripts/run.sh first")
    return path


def _stop(message: str) -> None:
    print(message, file=sys.stderr)
    raise SystemExit(2)
