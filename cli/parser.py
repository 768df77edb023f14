"""The ``aesi`` argument parser: one subparser per command, with its help."""

from __future__ import annotations

import argparse

from aesi_cli.commands import (
    cmd_evaluate,
    cmd_extract,
    cmd_report,
    cmd_run,
    cmd_sweep,
    cmd_update,
)
from aesi_cli.options import (
    ConfigHelpFormatter,
    add_config_options,
    add_corpus_options,
    add_project_options,
    add_reading_options,
    add_runner_options,
    add_wait_option,
    cmd_config,
)
from aesi_lib import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aesi", description="Automatic event schema induction (Sha et al., NAACL 2016), "
        "as a Prefect pipeline of cached steps.")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser(
        "run", help="induce schemas for a corpus and score them",
        formatter_class=ConfigHelpFormatter,
        description="Run the main flow: parse what changed, entity table and PMI in DuckDB, "
        "features, solve, export the assignments and score them when keys exist. Without "
        "--muc4-dir/--docs/--demo it uses $AESI_MUC4_DIR or ../shared/data/muc4 when present, "
        "else the embedded demo corpus. Steps whose inputs did not change are taken from the "
        "cache, so a killed run resumes where it stopped.")
    add_corpus_options(run)
    add_project_options(run, "out")
    add_config_options(run, base="preset")
    run.set_defaults(preset="default")
    add_runner_options(run)
    run.set_defaults(func=cmd_run)

    up = sub.add_parser(
        "update", help="add new documents to a project and refresh the schema",
        formatter_class=ConfigHelpFormatter,
        description="Incremental flow: parse only the new or changed documents of --docs, "
        "add them to the project's store (a changed document replaces its old rows), refresh "
        "PMI and features, and place the new mentions into the project's schema (the old "
        "ones keep their template and slot; --resolve solves again instead), writing the "
        "full export and the new documents' rows (new_documents.csv). Without --docs, "
        "solves the stored documents again (after `aesi delete`). Starts from the "
        "configuration of the project's last `aesi run`; options given here override it.")
    up.add_argument("--docs",
                    help="the new documents: a folder of .txt files or a JSONL file (id, text); "
                    "leave out to solve the stored documents again")
    add_reading_options(up)
    up.add_argument("--split", default="user", help="split name stored with them (default user)")
    up.add_argument("--resolve", action="store_true",
                    help="solve again over every stored document (warm-started from the last "
                    "solution, ids carried), instead of keeping the schema: by default the "
                    "mentions of the last solution keep their template and slot and the new "
                    "ones are placed into it, as aesi extract places them")
    up.add_argument("--move-done", action="store_true",
                    help="once the update is done, move the files read from --docs (a "
                    "folder's .txt files, or the file) into done/<UTC time>/ beside them, as "
                    "the scheduled update does with its inbox: the next update of the same "
                    "--docs finds it empty, and a --docs folder without .txt files is then "
                    "nothing to do (exit 0)")
    up.add_argument("--evaluate", action="store_true",
                    help="also score the refreshed export with the keys of the project's "
                    "corpus (MUC-4 or demo)")
    add_project_options(up, "out")
    add_config_options(up, base="project")
    add_runner_options(up)
    up.set_defaults(func=cmd_update)

    ex = sub.add_parser(
        "extract", help="fill the slots of new documents with an existing schema",
        description="Parse the documents of --docs and label each entity mention by the "
        "rule of the run in --run: a mention of a unit the run has seen (its predicate, its "
        "head word, its pattern) takes that unit's template and slot; the mentions of an "
        "unseen unit are placed together, in the template and slot whose members they are "
        "most similar to (mean W_T and W_S/W_H similarity, context vectors embedded as in "
        "the run), without solving again and without touching the store; the export says "
        "which rule chose each label (template_rule, slot_rule).")
    ex.add_argument("--docs", required=True,
                    help="the documents: a folder of .txt files or a JSONL file (id, text)")
    add_reading_options(ex)
    ex.add_argument("--run", required=True, help="the --out folder of a finished run")
    ex.add_argument("--out", help="where assignments.csv/.parquet go (default RUN/extracted)")
    ex.add_argument("--project-dir",
                    help="project folder whose parse cache, vector cache and Prefect state the "
                    "extraction uses (default: the run's own, as its results.json names it); "
                    "its store is never written")
    ex.add_argument("--split", default="user", help="split name given to the documents")
    add_runner_options(ex)
    ex.set_defaults(func=cmd_extract)

    ev = sub.add_parser("evaluate", help="score an assignments export against MUC-4 keys or "
                        "any span-annotated corpus",
                        description="Score assignments.csv/.parquet with the protocol of "
                        "docs/evaluation.md (--keys), or against the arguments of a "
                        "span-annotated corpus (--annotations; docs/annotations.md).")
    ev.add_argument("--assignments", required=True, help="assignments.csv or .parquet")
    gold = ev.add_mutually_exclusive_group(required=True)
    gold.add_argument("--keys", nargs="+", help="MUC-4 key files of the scored split")
    gold.add_argument("--annotations",
                      help="a JSONL file of the documents' arguments: id, and arguments with "
                      "role, start, end (docs/annotations.md); the roles are mapped to the "
                      "run's cells on one half of its documents and scored on the other, both "
                      "ways")
    ev.add_argument("--least-gold", type=int, default=0,
                    help="with --annotations: the macro average takes the roles with at least "
                    "this many gold entities (default: every role)")
    ev.add_argument("--map-keys", nargs="*", default=[],
                    help="key files the dev-mapped mapping is learned on (DEV)")
    ev.add_argument("--matcher", choices=["lenient", "strict", "both"], default="both",
                    help="how a guess (a head word) matches a gold entity: lenient (it equals "
                    "any word of the gold string before its first 'of'), strict (it equals the "
                    "last of those words, the head), or both, one row each (default: both)")
    ev.add_argument("--mapping", choices=["test-mapped", "dev-mapped", "both"], default="both",
                    help="where the mapping of learned roles to gold slots is learned: "
                    "test-mapped (on the scored keys, the paper's protocol), dev-mapped (on "
                    "--map-keys, applied unchanged), or both: test-mapped, and dev-mapped when "
                    "--map-keys is given (default: both)")
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
        description="For each named configuration of --configs ({\"base\": PRESET or "
        "{...}, \"configurations\": {name: overrides}}: each configuration is the base, a "
        "preset such as \"default\" or a configuration, with its overrides) and each seed: "
        "features (cached, shared by configurations with the same feature options), solve "
        "(cached), export and scores. "
        "Rows are appended to OUT/results.parquet and summarised (mean ± std over seeds) in "
        "OUT/results.md. Needs a corpus with answer keys.")
    sw.add_argument("--configs", required=True, help="the sweep JSON file")
    sw.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4],
                    help="seeds (default 0 1 2 3 4)")
    add_corpus_options(sw)
    add_project_options(sw, "sweep")
    add_runner_options(sw)
    sw.set_defaults(func=cmd_sweep)

    cf = sub.add_parser(
        "config", help="print the configuration the options name, or its JSON schema",
        formatter_class=ConfigHelpFormatter,
        description="Resolve --preset, --config, the named options and --set as `aesi run` "
        "would, check them (exit 2 with one line naming the key when a value is bad) and "
        "print the complete configuration as JSON: a file for --config. With --schema, print "
        "the JSON schema of such a file instead (every key with its type, default, range and "
        "choices).")
    cf.add_argument("--schema", action="store_true",
                    help="print the JSON schema of a --config file instead")
    add_config_options(cf, base="preset")
    cf.set_defaults(preset="default", func=cmd_config)

    # Store maintenance: delete, store rebuild / prune, and run's --keep-runs.
    from aesi_cli.commands import (
        KEEP_RUNS_DEFAULT,
        cmd_delete,
        cmd_store_prune,
        cmd_store_rebuild,
    )

    run.add_argument("--fresh", action="store_true",
                     help="solve from the seed with new template and slot ids (by default a "
                     "run under another configuration solves from its seed and numbers its "
                     "clusters after the project's last run or update, and a run under the "
                     "same one keeps that schema: its mentions keep their labels, new ones "
                     "are placed into it)")
    run.add_argument("--resolve", action="store_true",
                     help="under the configuration of the project's last run or update, solve "
                     "again warm-started from it (ids carried) instead of keeping its schema; "
                     "the run prints how many labels moved")
    run.add_argument("--keep-runs", type=int, metavar="N", default=KEEP_RUNS_DEFAULT,
                     help="keep the assignment rows of the N newest runs in the store and "
                     f"delete older runs' (default {KEEP_RUNS_DEFAULT})")
    de = sub.add_parser(
        "delete", help="remove documents from the project's store",
        description="Delete the named documents, or every document of --split, from the "
        "store: their sentences, tokens and entities go too, in one transaction (nothing is "
        "deleted when an id or split is unknown). Their parses stay in the parse cache; the "
        "assignments of recorded runs stay. The next `aesi update` solves without them.")
    de.add_argument("doc_ids", nargs="*", metavar="DOC_ID", help="ids of documents to delete")
    de.add_argument("--split", nargs="+", metavar="SPLIT",
                    help="delete every document of these splits")
    de.add_argument("--project-dir", default=".aesi", help="project folder (default: .aesi)")
    add_wait_option(de)
    de.set_defaults(func=cmd_delete)
    st = sub.add_parser("store", help="rebuild a damaged store, or prune old runs' rows",
                        description="Maintenance of the project's DuckDB store.")
    store_sub = st.add_subparsers(dest="store_command", required=True, metavar="ACTION")
    rb = store_sub.add_parser(
        "rebuild", help="rebuild a damaged store from its document journal",
        description="When the store (PROJECT/aesi.duckdb) cannot be read, move it aside "
        "(aesi.duckdb.damaged-TIME) and store again every document of its journal "
        "(PROJECT/aesi.documents.jsonl, kept beside the store: ids, splits, texts), parsed "
        "through the parse cache (nothing is parsed again when the parser is unchanged). The "
        "records of past runs were in the damaged file and are not rebuilt. An interrupted "
        "rebuild resumes when run again; a readable store is left alone.")
    rb.add_argument("--project-dir", default=".aesi", help="project folder (default: .aesi)")
    add_wait_option(rb)
    add_runner_options(rb)
    rb.set_defaults(func=cmd_store_rebuild)
    pr = store_sub.add_parser(
        "prune", help="delete the assignment rows of old runs",
        description="Keep the assignment rows of the --keep newest runs and delete the "
        "others' (`aesi run` does this itself after recording a run: --keep-runs). The runs' "
        "own rows (configuration, results) stay.")
    pr.add_argument("--project-dir", default=".aesi", help="project folder (default: .aesi)")
    add_wait_option(pr)
    pr.add_argument("--keep", type=int, metavar="N",
                    help=f"runs whose rows stay (default {KEEP_RUNS_DEFAULT})")
    pr.set_defaults(func=cmd_store_prune)
    from aesi_cli.commands import DEFAULT_WORK_POOL, cmd_worker

    wk = sub.add_parser(
        "worker", help="run the deployments' Prefect worker (stops on one SIGTERM)",
        description="`prefect worker start --pool POOL` in place of this command, with SIGINT "
        "at its default. Prefect's worker stops on SIGTERM by sending itself SIGINT, which a "
        "process started in the background by a non-interactive shell (`&` in a script) "
        "inherits as ignored; such a worker would not stop. Needs PREFECT_API_URL (see the "
        "README, \"Scheduled runs\").")
    wk.add_argument("--pool", default=DEFAULT_WORK_POOL,
                    help=f"work pool (default {DEFAULT_WORK_POOL}, as in prefect.yaml)")
    wk.set_defaults(func=cmd_worker)
    from aesi_cli.docs import add_docs_command

    add_docs_command(sub)
    return parser
