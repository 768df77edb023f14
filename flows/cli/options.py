"""Options shared by several subcommands, and turning them into a run configuration, a task
runner and early checks of the corpus; the environment Prefect needs before it is imported."""

from __future__ import annotations

import argparse
import json
import logging
import os
from pathlib import Path
from typing import Any

from aesi_lib.errors import AesiError, InputError
from aesi_lib.run.presets import PRESETS, deep_merge, preset


def prefect_environment(project_dir: str) -> None:
    """Offline, telemetry-free Prefect whose cached results live in the project folder.

    Must run before ``prefect`` is imported. Values already in the environment win.
    """
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_LOCAL_STORAGE_PATH",
                          str(Path(project_dir).expanduser().resolve() / "prefect-results"))
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO")
    # The temporary API server needs more than the default 20 s on a busy small machine.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


def add_config_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model, parser and feature options (override --config)")
    g.add_argument("--preset", choices=sorted(PRESETS),
                   help="starting configuration: default (the best found on DEV/TST1/TST2), "
                   "tied-cut (the best with slots cut from W_S), reproduction (the paper's "
                   "model), reproduction-sc, literal; --config and the options below override "
                   "it (run: default 'default')")
    g.add_argument("--config", help="JSON file with a RunConfig (options below override it)")
    g.add_argument("--templates", type=int, help="|T|, number of templates")
    g.add_argument("--slots", type=int, help="|S|, number of slots")
    g.add_argument("--mode", choices=["sc", "literal", "scaled"],
                   help="sc: independent cuts (-SC); literal: the appendix's AMP as written; "
                   "scaled: AMP with a constraint weight")
    g.add_argument("--weight", type=float, help="constraint weight of the scaled mode")
    g.add_argument("--slot-model", choices=["cut", "factored"],
                   help="cut: slots are the normalized cut of W_S (the paper); factored: "
                   "argument position x semantic class of the head (needs --mode sc and "
                   "--slots a multiple of 4)")
    g.add_argument("--init", choices=["random", "sc"], help="AMP initialisation")
    g.add_argument("--max-iter", type=int, help="AMP iteration cap")
    g.add_argument("--seed", type=int, help="random seed")
    g.add_argument("--parser", choices=["spacy", "stanza"], help="parser backend")
    g.add_argument("--casing", help="casing strategy (asis, lower, truecase, auto)")
    g.add_argument("--stanza-dir", help="Stanza model folder")
    g.add_argument("--type-scheme", help="semantic types: hypernyms, lexname or depth:N")
    g.add_argument("--pmi", choices=["pmi", "npmi", "none"], help="PMI variant in W_T")
    g.add_argument("--vectors", help="word vectors file (word2vec, GloVe or gensim .kv)")
    g.add_argument("--wordnet", help="WordNet database folder")


def add_runner_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("execution")
    g.add_argument("--dask", action="store_true",
                   help="parse on a temporary local Dask cluster (prefect-dask DaskTaskRunner)")
    g.add_argument("--dask-address", metavar="ADDR",
                   help="parse on the Dask cluster at ADDR (e.g. tcp://10.0.0.5:8786); its "
                   "workers need aesi installed and the project folder on a shared path")
    g.add_argument("--dask-workers", type=int, default=2,
                   help="workers of the local cluster of --dask (default 2)")
    g.add_argument("--dask-threads", action="store_true",
                   help="local cluster workers as threads of this process instead of processes")
    g.add_argument("--batch-size", type=int, default=50,
                   help="documents per mapped parse task (default 50)")


def add_corpus_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("corpus")
    g.add_argument("--muc4-dir", help="MUC-4 folder (default: $AESI_MUC4_DIR or "
                   "../shared/data/muc4 when present)")
    g.add_argument("--docs", help="your own corpus: a folder of .txt files or a JSONL file "
                   "with id and text")
    g.add_argument("--demo", action="store_true",
                   help="the embedded demo corpus (40 invented messages with a key)")


def add_project_options(p: argparse.ArgumentParser, out_default: str) -> None:
    p.add_argument("--project-dir", default=".aesi",
                   help="store, parse cache and cached results (default: .aesi)")
    p.add_argument("--out", default=out_default,
                   help=f"export folder (default: {out_default})")


def run_config(args: argparse.Namespace) -> dict[str, Any]:
    """The RunConfig overrides named on the command line (and in --config)."""
    config: dict[str, Any] = {}
    if getattr(args, "preset", None):
        config = preset(args.preset)
    if getattr(args, "config", None):
        path = Path(args.config)
        if not path.is_file():
            raise InputError(path, "config file not found")
        try:
            config = deep_merge(config, json.loads(path.read_text()))
        except json.JSONDecodeError as exc:
            raise InputError(path, f"not valid JSON ({exc})") from exc
    sections = {
        "model": (("templates", "n_templates"), ("slots", "n_slots"), ("mode", "mode"),
                  ("weight", "constraint_weight"), ("init", "init"), ("seed", "seed"),
                  ("max_iter", "max_iter"), ("slot_model", "slot_model")),
        "parser": (("parser", "backend"), ("casing", "casing"), ("stanza_dir", "stanza_dir")),
        "features": (("type_scheme", "type_scheme"), ("pmi", "pmi_variant")),
    }
    for section, pairs in sections.items():
        for arg, key in pairs:
            value = getattr(args, arg, None)
            if value is not None:
                config.setdefault(section, {})[key] = value
    if getattr(args, "vectors", None):
        config["vectors_path"] = args.vectors
    if getattr(args, "wordnet", None):
        config["wordnet_path"] = args.wordnet
    from aesi_lib.run.config import RunConfig

    try:
        RunConfig.from_dict(config)
    except (TypeError, ValueError) as exc:
        raise AesiError(f"bad configuration: {exc}") from exc
    return config


def with_runner(flow_fn: Any, args: argparse.Namespace) -> Any:
    """The flow with the task runner the options ask for (default: the flow's own)."""
    if getattr(args, "dask_address", None) or getattr(args, "dask", False):
        from flows.common import dask_task_runner

        runner = dask_task_runner(args.dask_address, n_workers=args.dask_workers,
                                  processes=not args.dask_threads)
        if not args.verbose:        # distributed sets its own levels when imported
            logging.getLogger("distributed").setLevel(logging.WARNING)
        return flow_fn.with_options(task_runner=runner)
    return flow_fn


def check_docs(path: str) -> None:
    """Fail early, with the reader's message, on an unusable --docs."""
    from aesi_lib.corpus.plain import read_plain_documents

    read_plain_documents(path)


def check_corpus(args: argparse.Namespace) -> None:
    if getattr(args, "docs", None):
        check_docs(args.docs)
    elif getattr(args, "muc4_dir", None) and not getattr(args, "demo", False):
        from aesi_lib.corpus.muc4 import resolve_muc4_dir

        resolve_muc4_dir(args.muc4_dir)
