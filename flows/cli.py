"""The ``aesi`` command line: the outer shell around the flows and the library.

Subcommands: ``run`` (the main flow), ``update`` (incremental flow), ``extract`` (slot filling
with an existing schema), ``evaluate`` (score an export), ``report`` (schema report of a run),
``sweep`` (configurations × seeds). Errors aesi raises on purpose (``AesiError``) print one line
and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from aesi_lib.errors import AesiError, InputError
from aesi_lib.presets import PRESETS, deep_merge, preset

QUIET_LOGGERS = ("httpx", "httpcore", "gensim", "urllib3", "distributed", "asyncio")


def _prefect_environment(project_dir: str) -> None:
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


# ---------------------------------------------------------------------------------------------
# Options shared by several subcommands
# ---------------------------------------------------------------------------------------------


def _add_config_options(p: argparse.ArgumentParser) -> None:
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


def _add_runner_options(p: argparse.ArgumentParser) -> None:
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


def _run_config(args: argparse.Namespace) -> dict[str, Any]:
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
    from aesi_lib.pipeline import RunConfig

    try:
        RunConfig.from_dict(config)
    except (TypeError, ValueError) as exc:
        raise AesiError(f"bad configuration: {exc}") from exc
    return config


def _with_runner(flow_fn: Any, args: argparse.Namespace) -> Any:
    """The flow with the task runner the options ask for (default: the flow's own)."""
    if getattr(args, "dask_address", None) or getattr(args, "dask", False):
        from flows.common import dask_task_runner

        runner = dask_task_runner(args.dask_address, n_workers=args.dask_workers,
                                  processes=not args.dask_threads)
        if not args.verbose:        # distributed sets its own levels when imported
            logging.getLogger("distributed").setLevel(logging.WARNING)
        return flow_fn.with_options(task_runner=runner)
    return flow_fn


def _check_docs(path: str) -> None:
    """Fail early, with the reader's message, on an unusable --docs."""
    from aesi_lib.corpus.plain import read_plain_documents

    read_plain_documents(path)


def _check_corpus(args: argparse.Namespace) -> None:
    if getattr(args, "docs", None):
        _check_docs(args.docs)
    elif getattr(args, "muc4_dir", None) and not getattr(args, "demo", False):
        from aesi_lib.corpus.muc4 import resolve_muc4_dir

        resolve_muc4_dir(args.muc4_dir)


# ---------------------------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------------------------


def _print_steps(results: dict[str, Any]) -> None:
    print("| step | state | seconds |")
    print("|---|---|---|")
    for name, record in results.get("steps", {}).items():
        print(f"| {name} | {record['state']} | {record['seconds']:.1f} |")


def _print_scores(results: dict[str, Any]) -> None:
    scores = results.get("scores") or {}
    if not scores:
        print("no answer keys: nothing scored")
        return
    print(f"scores on {results.get('evaluated_on', '')}:")
    print("| mapping/matcher | P | R | F1 | TP | FP | FN |")
    print("|---|---|---|---|---|---|---|")
    for name, s in scores.items():
        if isinstance(s, dict):
            print(f"| {name} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | "
                  f"{s['tp']} | {s['fp']} | {s['fn']} |")
    for name, s in scores.items():
        if not isinstance(s, dict):
            print(f"{name}: {s:.3f}")
    _print_bounds({name: s for name, s in scores.items() if isinstance(s, dict)})


def _print_bounds(entries: dict[str, dict[str, Any]]) -> None:
    """What a perfect part would allow (``aesi_lib.evaluate.bounds``), per score entry."""
    rows = [(name, e) for name, e in entries.items() if "template_recall_ceiling" in e]
    if not rows:
        return
    print("bounds (oracles that use the keys; not scores):")
    print("| mapping/matcher | FP from irrelevant messages | recall bound, mapped templates "
          "| F1 if irrelevant messages gave nothing |")
    print("|---|---|---|---|")
    for name, e in rows:
        print(f"| {name} | {e['fp_share_irrelevant']:.0%} | {e['template_recall_ceiling']:.3f} "
              f"| {e['relevance_oracle']['f1']:.3f} |")


def _print_documents(summary: dict[str, Any], limit: int = 10) -> None:
    for doc_id, entry in list(summary.items())[:limit]:
        slots = "; ".join(f"slot {s}: {', '.join(m)}" for s, m in entry["slots"].items())
        print(f"  {doc_id}: {entry['mentions']} mentions, template {entry['template']} "
              f"({slots})")
    if len(summary) > limit:
        print(f"  ... and {len(summary) - limit} more documents")


# ---------------------------------------------------------------------------------------------
# Subcommands
# ---------------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    config = _run_config(args)
    _check_corpus(args)
    _prefect_environment(args.project_dir)
    from flows.induce import induce_flow

    results = _with_runner(induce_flow, args)(
        project_dir=args.project_dir, out_dir=args.out, muc4_dir=args.muc4_dir,
        docs_path=args.docs, demo=args.demo, config=config, parse_batch_size=args.batch_size)
    ingest = results["ingest"]
    print(f"\ncorpus: {results['corpus']} ({results['documents']} documents: "
          f"{ingest['new']} new, {ingest['changed']} changed, {ingest['unchanged']} unchanged; "
          f"{ingest['parsed']} parsed, {ingest['from_parse_cache']} from the parse cache)")
    _print_steps(results)
    print(f"total {results['timings']['total']:.1f} s\n")
    _print_scores(results)
    print(f"\nexport and results.json written to {args.out}")
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    config = _run_config(args)
    _check_docs(args.docs)
    _prefect_environment(args.project_dir)
    from flows.update import update_flow

    results = _with_runner(update_flow, args)(
        docs_path=args.docs, project_dir=args.project_dir, out_dir=args.out, config=config,
        split=args.split, parse_batch_size=args.batch_size, evaluate=args.evaluate)
    ingest = results["ingest"]
    print(f"\nupdate: {ingest['documents']} documents given: {ingest['new']} new, "
          f"{ingest['changed']} changed, {ingest['unchanged']} unchanged; {ingest['parsed']} "
          f"parsed ({ingest['from_parse_cache']} from the parse cache). The store now holds "
          f"{results['documents']} documents.")
    _print_steps(results)
    print(f"total {results['timings']['total']:.1f} s\n")
    print("slots of the documents given:")
    _print_documents(results["new_documents"]["summary"])
    if results.get("scores"):
        print()
        _print_scores(results)
    print(f"\nfull export, new_documents.csv and results.json written to {args.out}")
    return 0


def cmd_extract(args: argparse.Namespace) -> int:
    from flows.extract import read_run

    run = read_run(args.run)
    _check_docs(args.docs)
    _prefect_environment(run["artifacts"].get("project_dir", ".aesi"))
    from flows.extract import extract_flow

    results = _with_runner(extract_flow, args)(
        docs_path=args.docs, run_dir=args.run, out_dir=args.out, split=args.split,
        parse_batch_size=args.batch_size)
    print(f"\nextract: {results['documents']} documents ({results['documents_parsed']} parsed, "
          f"{results['documents_from_parse_cache']} from the parse cache), "
          f"{results['mentions']} mentions filled with the schema of {args.run}")
    _print_documents(results["summary"])
    print(f"\nassignments written to {Path(results['export']['csv']).parent}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from aesi_lib.corpus.muc4 import read_muc4_keys
    from aesi_lib.evaluate import (
        evaluate,
        format_table,
        read_assignments,
        recall_ceiling,
        result_bounds,
    )

    assignments = read_assignments(args.assignments)
    eval_keys = [k for path in args.keys for k in read_muc4_keys(path)]
    map_keys = [k for path in args.map_keys for k in read_muc4_keys(path)] or None
    matchers = ["lenient", "strict"] if args.matcher == "both" else [args.matcher]
    if args.mapping == "both":
        mappings = ["test-mapped"] + (["dev-mapped"] if map_keys else [])
    else:
        mappings = [args.mapping]
    if "dev-mapped" in mappings and not map_keys:
        raise AesiError("dev-mapped needs --map-keys (the DEV key files)")
    out: dict[str, Any] = {}
    rows: dict[str, Any] = {}
    for matcher in matchers:
        for mapping in mappings:
            r = evaluate(assignments, eval_keys, map_keys=map_keys, matcher=matcher,
                         mapping=mapping)
            out[f"{mapping}/{matcher}"] = {**r.to_dict(),
                                           **result_bounds(assignments, eval_keys, r)}
            rows[f"this run ({mapping}, {matcher})"] = r
        out[f"recall_ceiling/{matcher}"] = recall_ceiling(assignments, eval_keys, matcher)
    print(format_table(rows, published=True))
    for matcher in matchers:
        print(f"recall ceiling of the extraction ({matcher}): "
              f"{out[f'recall_ceiling/{matcher}']:.3f}")
    _print_bounds({name: e for name, e in out.items() if isinstance(e, dict)})
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


def _report_keys(args: argparse.Namespace, results: dict[str, Any]
                 ) -> tuple[list[Any] | None, list[Any] | None]:
    """Keys named on the command line, else those of the run's corpus (MUC-4 or demo)."""
    from aesi_lib.corpus.muc4 import read_muc4_keys

    if args.keys:
        eval_keys = [k for path in args.keys for k in read_muc4_keys(path)]
        map_keys = [k for path in args.map_keys for k in read_muc4_keys(path)] or None
        return eval_keys, map_keys
    spec = results.get("corpus_spec") or {}
    if results.get("corpus") not in ("muc4", "demo") or not spec:
        return None, None
    if spec.get("demo") or results.get("corpus") == "demo":
        from aesi_lib.corpus.demo import load_demo_corpus

        return load_demo_corpus().keys, None
    from aesi_lib.corpus.sources import load_corpus

    corpus = load_corpus(spec.get("muc4_dir"), None)
    return corpus.eval_keys, corpus.map_keys


def cmd_report(args: argparse.Namespace) -> int:
    from aesi_lib.evaluate import read_assignments

    run = Path(args.run)
    results_path = run / "results.json"
    if not results_path.is_file():
        raise InputError(results_path, "no results.json here: give --run the --out folder of "
                         "a finished `aesi run`")
    results = json.loads(results_path.read_text())
    assignments = read_assignments(run / "assignments.parquet")
    try:
        from aesi_lib.report import write_schema_report
    except ImportError as exc:
        raise AesiError(f"the report module is not available in this installation ({exc})"
                        ) from exc
    eval_keys, map_keys = _report_keys(args, results)
    out_dir = args.out or str(run / "report")
    seed = args.seed if args.seed is not None else int(results.get("seed", 0) or 0)
    paths = write_schema_report(assignments, out_dir, results=results, eval_keys=eval_keys,
                                map_keys=map_keys, seed=seed)
    for name, path in paths.items():
        print(f"{name}: {path}")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from flows.sweep import load_sweep_spec

    spec = load_sweep_spec(args.configs)
    _check_corpus(args)
    _prefect_environment(args.project_dir)
    from flows.sweep import sweep_flow

    results = _with_runner(sweep_flow, args)(
        spec=spec, seeds=args.seeds, out_dir=args.out, project_dir=args.project_dir,
        muc4_dir=args.muc4_dir, docs_path=args.docs, demo=args.demo,
        parse_batch_size=args.batch_size)
    print()
    print(Path(results["results"]["markdown"]).read_text())
    print(f"{len(results['rows'])} rows appended to {results['results']['parquet']}")
    return 0


# ---------------------------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------------------------


def _add_corpus_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("corpus")
    g.add_argument("--muc4-dir", help="MUC-4 folder (default: $AESI_MUC4_DIR or "
                   "../shared/data/muc4 when present)")
    g.add_argument("--docs", help="your own corpus: a folder of .txt files or a JSONL file "
                   "with id and text")
    g.add_argument("--demo", action="store_true",
                   help="the embedded demo corpus (40 invented messages with a key)")


def _add_project_options(p: argparse.ArgumentParser, out_default: str) -> None:
    p.add_argument("--project-dir", default=".aesi",
                   help="store, parse cache and cached results (default: .aesi)")
    p.add_argument("--out", default=out_default,
                   help=f"export folder (default: {out_default})")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aesi", description="Automatic event schema induction (Sha et al., NAACL 2016), "
        "as a Prefect pipeline of cached steps.")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser(
        "run", help="induce schemas for a corpus and score them",
        description="Run the main flow: parse what changed, entity table and PMI in DuckDB, "
        "features, solve, export the assignments and score them when keys exist. Without "
        "--muc4-dir/--docs/--demo it uses $AESI_MUC4_DIR or ../shared/data/muc4 when present, "
        "else the embedded demo corpus. Steps whose inputs did not change are taken from the "
        "cache, so a killed run resumes where it stopped.")
    _add_corpus_options(run)
    _add_project_options(run, "out")
    _add_config_options(run)
    run.set_defaults(preset="default")
    _add_runner_options(run)
    run.set_defaults(func=cmd_run)

    up = sub.add_parser(
        "update", help="add new documents to a project and refresh the schema",
        description="Incremental flow: parse only the new or changed documents of --docs, "
        "add them to the project's store (a changed document replaces its old rows), refresh "
        "PMI, features and the solve over every stored document, and fill the slots of the "
        "new documents (new_documents.csv). Starts from the configuration of the project's "
        "last `aesi run`; options given here override it.")
    up.add_argument("--docs", required=True,
                    help="the new documents: a folder of .txt files or a JSONL file (id, text)")
    up.add_argument("--split", default="user", help="split name stored with them (default user)")
    up.add_argument("--evaluate", action="store_true",
                    help="also score the refreshed export with the keys of the project's "
                    "corpus (MUC-4 or demo)")
    _add_project_options(up, "out")
    _add_config_options(up)
    _add_runner_options(up)
    up.set_defaults(func=cmd_update)

    ex = sub.add_parser(
        "extract", help="fill the slots of new documents with an existing schema",
        description="Parse the documents of --docs and assign each entity mention to the "
        "template and slot of the run in --run whose members it is most similar to (mean W_T "
        "and W_S similarity), without solving again and without touching the store.")
    ex.add_argument("--docs", required=True,
                    help="the documents: a folder of .txt files or a JSONL file (id, text)")
    ex.add_argument("--run", required=True, help="the --out folder of a finished run")
    ex.add_argument("--out", help="where assignments.csv/.parquet go (default RUN/extracted)")
    ex.add_argument("--split", default="user", help="split name given to the documents")
    _add_runner_options(ex)
    ex.set_defaults(func=cmd_extract)

    ev = sub.add_parser("evaluate", help="score an assignments export against MUC-4 keys",
                        description="Score assignments.csv/.parquet with the protocol of "
                        "docs/evaluation.md.")
    ev.add_argument("--assignments", required=True, help="assignments.csv or .parquet")
    ev.add_argument("--keys", nargs="+", required=True, help="key files of the scored split")
    ev.add_argument("--map-keys", nargs="*", default=[],
                    help="key files the dev-mapped mapping is learned on (DEV)")
    ev.add_argument("--matcher", choices=["lenient", "strict", "both"], default="both")
    ev.add_argument("--mapping", choices=["test-mapped", "dev-mapped", "both"], default="both")
    ev.add_argument("--json", help="also write the scores to this JSON file")
    ev.set_defaults(func=cmd_evaluate)

    rp = sub.add_parser(
        "report", help="write the schema report of a finished run",
        description="Schema tables, plots and an HTML page for the run in --run "
        "(aesi_lib.report). Keys default to those of the run's corpus (MUC-4 or demo).")
    rp.add_argument("--run", required=True, help="the --out folder of a finished run")
    rp.add_argument("--keys", nargs="*", default=[], help="key files of the scored split")
    rp.add_argument("--map-keys", nargs="*", default=[],
                    help="key files the dev-mapped mapping is learned on (DEV)")
    rp.add_argument("--out", help="report folder (default RUN/report)")
    rp.add_argument("--seed", type=int, help="seed of the report's sampling (default: the "
                    "run's seed)")
    rp.set_defaults(func=cmd_report)

    sw = sub.add_parser(
        "sweep", help="run several configurations with several seeds and score them",
        description="For each named configuration of --configs ({\"base\": {...}, "
        "\"configurations\": {name: overrides}}) and each seed: features (cached, shared by "
        "configurations with the same feature options), solve (cached), export and scores. "
        "Rows are appended to OUT/results.parquet and summarised (mean ± std over seeds) in "
        "OUT/results.md. Needs a corpus with answer keys.")
    sw.add_argument("--configs", required=True, help="the sweep JSON file")
    sw.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4],
                    help="seeds (default 0 1 2 3 4)")
    _add_corpus_options(sw)
    _add_project_options(sw, "sweep")
    _add_runner_options(sw)
    sw.set_defaults(func=cmd_sweep)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        for name in QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)
    try:
        return args.func(args)
    except AesiError as exc:
        print(f"aesi: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
