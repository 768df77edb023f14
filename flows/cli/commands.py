"""The subcommands: ``run``, ``update``, ``extract``, ``evaluate``, ``report``, ``sweep``.

Each checks its options and paths first, then sets up Prefect's environment and calls a flow
(or, for ``evaluate`` and ``report``, the library directly) and prints what it did.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from aesi_lib.errors import AesiError, InputError
from flows.cli.options import check_corpus, check_docs, prefect_environment, run_config, with_runner
from flows.cli.printing import print_bounds, print_documents, print_scores, print_steps


def cmd_run(args: argparse.Namespace) -> int:
    config = run_config(args)
    check_corpus(args)
    prefect_environment(args.project_dir)
    from flows.induce import induce_flow

    results = with_runner(induce_flow, args)(
        project_dir=args.project_dir, out_dir=args.out, muc4_dir=args.muc4_dir,
        docs_path=args.docs, demo=args.demo, config=config, parse_batch_size=args.batch_size)
    ingest = results["ingest"]
    print(f"\ncorpus: {results['corpus']} ({results['documents']} documents: "
          f"{ingest['new']} new, {ingest['changed']} changed, {ingest['unchanged']} unchanged; "
          f"{ingest['parsed']} parsed, {ingest['from_parse_cache']} from the parse cache)")
    print_steps(results)
    print(f"total {results['timings']['total']:.1f} s\n")
    print_scores(results)
    print(f"\nexport and results.json written to {args.out}")
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    config = run_config(args)
    check_docs(args.docs)
    prefect_environment(args.project_dir)
    from flows.update import update_flow

    results = with_runner(update_flow, args)(
        docs_path=args.docs, project_dir=args.project_dir, out_dir=args.out, config=config,
        split=args.split, parse_batch_size=args.batch_size, evaluate=args.evaluate)
    ingest = results["ingest"]
    print(f"\nupdate: {ingest['documents']} documents given: {ingest['new']} new, "
          f"{ingest['changed']} changed, {ingest['unchanged']} unchanged; {ingest['parsed']} "
          f"parsed ({ingest['from_parse_cache']} from the parse cache). The store now holds "
          f"{results['documents']} documents.")
    print_steps(results)
    print(f"total {results['timings']['total']:.1f} s\n")
    print("slots of the documents given:")
    print_documents(results["new_documents"]["summary"])
    if results.get("scores"):
        print()
        print_scores(results)
    print(f"\nfull export, new_documents.csv and results.json written to {args.out}")
    return 0


def cmd_extract(args: argparse.Namespace) -> int:
    from flows.extract import read_run

    run = read_run(args.run)
    check_docs(args.docs)
    prefect_environment(run["artifacts"].get("project_dir", ".aesi"))
    from flows.extract import extract_flow

    results = with_runner(extract_flow, args)(
        docs_path=args.docs, run_dir=args.run, out_dir=args.out, split=args.split,
        parse_batch_size=args.batch_size)
    print(f"\nextract: {results['documents']} documents ({results['documents_parsed']} parsed, "
          f"{results['documents_from_parse_cache']} from the parse cache), "
          f"{results['mentions']} mentions filled with the schema of {args.run}")
    print_documents(results["summary"])
    print(f"\nassignments written to {Path(results['export']['csv']).parent}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from aesi_lib.corpus.muc4_keys import read_muc4_keys
    from aesi_lib.evaluate import format_table, read_assignments, score_grid

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
    grid = score_grid(assignments, eval_keys, map_keys, matchers=matchers, modes=mappings)
    rows = {f"this run ({mode}, {matcher})": cell.result
            for (mode, matcher), cell in grid.cells.items()}
    print(format_table(rows, published=True))
    for matcher, ceiling in grid.ceilings.items():
        print(f"recall ceiling of the extraction ({matcher}): {ceiling:.3f}")
    out = grid.to_dict()
    print_bounds({name: e for name, e in out.items() if isinstance(e, dict)})
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


def _report_keys(args: argparse.Namespace, results: dict[str, Any]
                 ) -> tuple[list[Any] | None, list[Any] | None]:
    """Keys named on the command line, else those of the run's corpus (MUC-4 or demo)."""
    from aesi_lib.corpus.muc4_keys import read_muc4_keys

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
    check_corpus(args)
    prefect_environment(args.project_dir)
    from flows.sweep import sweep_flow

    results = with_runner(sweep_flow, args)(
        spec=spec, seeds=args.seeds, out_dir=args.out, project_dir=args.project_dir,
        muc4_dir=args.muc4_dir, docs_path=args.docs, demo=args.demo,
        parse_batch_size=args.batch_size)
    print()
    print(Path(results["results"]["markdown"]).read_text())
    print(f"{len(results['rows'])} rows appended to {results['results']['parquet']}")
    return 0
