"""The ``aesi`` command line: the outer shell around the flows and the library."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from aesi_lib.errors import AesiError


def _prefect_environment(project_dir: str) -> None:
    """Offline, telemetry-free Prefect whose cached results live in the project folder.

    Must run before ``prefect`` is imported.
    """
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_LOCAL_STORAGE_PATH",
                          str(Path(project_dir).resolve() / "prefect-results"))
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO")


def _run_config(args: argparse.Namespace) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if args.config:
        config = json.loads(Path(args.config).read_text())
    model = config.setdefault("model", {})
    for arg, key in (("templates", "n_templates"), ("slots", "n_slots"), ("mode", "mode"),
                     ("weight", "constraint_weight"), ("init", "init"), ("seed", "seed"),
                     ("max_iter", "max_iter")):
        value = getattr(args, arg)
        if value is not None:
            model[key] = value
    parser = config.setdefault("parser", {})
    for arg, key in (("parser", "backend"), ("casing", "casing"), ("stanza_dir", "stanza_dir")):
        value = getattr(args, arg)
        if value is not None:
            parser[key] = value
    features = config.setdefault("features", {})
    for arg, key in (("type_scheme", "type_scheme"), ("pmi", "pmi_variant")):
        value = getattr(args, arg)
        if value is not None:
            features[key] = value
    if args.vectors:
        config["vectors_path"] = args.vectors
    if args.wordnet:
        config["wordnet_path"] = args.wordnet
    return config


def _print_scores(results: dict[str, Any]) -> None:
    scores = results.get("scores") or {}
    print(f"\ncorpus: {results['corpus']} ({results['documents']} documents, "
          f"{results['documents_parsed']} parsed this run, "
          f"{results['documents_unchanged']} unchanged)")
    if not scores:
        print("no answer keys: nothing scored")
        return
    print(f"scores on {results['evaluated_on']}:")
    print("| mapping/matcher | P | R | F1 | TP | FP | FN |")
    print("|---|---|---|---|---|---|---|")
    for name, s in scores.items():
        if isinstance(s, dict):
            print(f"| {name} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | "
                  f"{s['tp']} | {s['fp']} | {s['fn']} |")
    for name, s in scores.items():
        if not isinstance(s, dict):
            print(f"{name}: {s:.3f}")


def cmd_run(args: argparse.Namespace) -> int:
    _prefect_environment(args.project_dir)
    from flows.induce import induce_flow

    results = induce_flow(project_dir=args.project_dir, out_dir=args.out,
                          muc4_dir=args.muc4_dir, docs_path=args.docs,
                          config=_run_config(args))
    _print_scores(results)
    print(f"\nexport and results.json written to {args.out}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from aesi_lib.corpus.muc4 import read_muc4_keys
    from aesi_lib.evaluate import evaluate, read_assignments, recall_ceiling

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
    print("| mapping/matcher | P | R | F1 | TP | FP | FN |")
    print("|---|---|---|---|---|---|---|")
    for matcher in matchers:
        for mapping in mappings:
            r = evaluate(assignments, eval_keys, map_keys=map_keys, matcher=matcher,
                         mapping=mapping)
            out[f"{mapping}/{matcher}"] = r.to_dict()
            print(f"| {mapping}/{matcher} | {r.precision:.3f} | {r.recall:.3f} | {r.f1:.3f} | "
                  f"{r.tp} | {r.fp} | {r.fn} |")
        out[f"recall_ceiling/{matcher}"] = recall_ceiling(assignments, eval_keys, matcher)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aesi", description="Automatic event schema induction (Sha et al., NAACL 2016).")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="induce schemas for a corpus and score them",
                         description="Run the Prefect flow: parse what changed, build features, "
                         "solve, export assignments and score them when keys exist. Without "
                         "--muc4-dir/--docs it uses ../shared/data/muc4 (or $AESI_MUC4_DIR) "
                         "when present, else the embedded demo corpus.")
    run.add_argument("--muc4-dir", help="MUC-4 folder (default: $AESI_MUC4_DIR or "
                     "../shared/data/muc4 when present)")
    run.add_argument("--docs", help="your own corpus: a folder of .txt files or a JSONL file "
                     "with id and text")
    run.add_argument("--project-dir", default=".aesi",
                     help="store, parse cache and cached results (default: .aesi)")
    run.add_argument("--out", default="out", help="export folder (default: out)")
    run.add_argument("--config", help="JSON file with a RunConfig (options below override it)")
    run.add_argument("--templates", type=int, help="|T|, number of templates")
    run.add_argument("--slots", type=int, help="|S|, number of slots")
    run.add_argument("--mode", choices=["sc", "literal", "scaled"],
                     help="sc: independent cuts (-SC); literal: the appendix's AMP as written; "
                     "scaled: AMP with a constraint weight")
    run.add_argument("--weight", type=float, help="constraint weight of the scaled mode")
    run.add_argument("--init", choices=["random", "sc"], help="AMP initialisation")
    run.add_argument("--max-iter", type=int, help="AMP iteration cap")
    run.add_argument("--seed", type=int, help="random seed")
    run.add_argument("--parser", choices=["spacy", "stanza"], help="parser backend")
    run.add_argument("--casing", help="casing strategy (asis, lower, truecase, auto)")
    run.add_argument("--stanza-dir", help="Stanza model folder")
    run.add_argument("--type-scheme", help="semantic types: hypernyms, lexname or depth:N")
    run.add_argument("--pmi", choices=["pmi", "npmi", "none"], help="PMI variant in W_T")
    run.add_argument("--vectors", help="word vectors file (word2vec, GloVe or gensim .kv)")
    run.add_argument("--wordnet", help="WordNet database folder")
    run.set_defaults(func=cmd_run)

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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except AesiError as exc:
        print(f"aesi: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
