"""The subcommands: ``run``, ``update``, ``extract``, ``evaluate``, ``report``, ``sweep``,
``delete`` and ``store rebuild`` / ``store prune``.

Each checks its options and paths first (the folders it writes, the project's store, the
Prefect API: :mod:`aesi_cli.environment`), then sets up Prefect's environment and calls a flow
(or, for ``evaluate``, ``report``, ``delete`` and ``store prune``, the library directly) and
prints what it did.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aesi_cli.environment import (
    check_api,
    check_configured_api,
    check_file_writable,
    check_store,
    check_writable,
    flow_runner,
    prefect_environment,
    store_path,
)
from aesi_cli.options import (
    check_corpus,
    check_docs,
    check_runner,
    reading,
    run_config,
)
from aesi_cli.printing import (
    print_annotation_scores,
    print_bounds,
    print_documents,
    print_label_changes,
    print_scores,
    print_steps,
    print_template_filling,
)
from aesi_lib.errors import AesiError, InputError, StoreDamagedError

KEEP_RUNS_DEFAULT = 3
"""``aesi_lib.store.database.DEFAULT_KEEP_RUNS``, for the help (without importing the store)."""


@contextlib.contextmanager
def writing_project(args: argparse.Namespace, command: str, store: bool = True,
                    flow: bool = True) -> Iterator[None]:
    """The project lock of ``--project-dir`` for the rest of the command
    (``aesi_lib.project_lock``), then (``store``) the store checked: readable to its last row.
    Another aesi process in the project stops this one at once with one line, or with
    ``--wait`` this one waits for it. A command that runs a ``flow`` first sets up Prefect's
    environment and checks the configured Prefect API, so that an API that does not answer
    fails before the lock file (and the project folder) is made."""
    from aesi_lib.project_lock import project_lock

    if flow:
        prefect_environment()
        check_configured_api()
    with project_lock(args.project_dir, command, wait=args.wait,
                      on_wait=_waiting_message(args)):
        if store:
            check_store(args.project_dir)
        yield


def _waiting_message(args: argparse.Namespace) -> Callable[[str], None]:
    def waiting(holder: str) -> None:
        print(f"aesi: waiting for the other aesi process in {args.project_dir} ({holder}) "
              "to finish", file=sys.stderr, flush=True)

    return waiting


@contextlib.contextmanager
def claimed_project(args: argparse.Namespace, command: str) -> Iterator[None]:
    """The whole command's claim on ``--project-dir``, before the checks of its options and
    its corpus (which may take seconds): an existing project's lock is taken at once and held
    to the end (:func:`writing_project` takes it again, which a holder does at once), so that
    of two writers started at the same moment the second stops at once, or with ``--wait``
    waits; a project folder that does not exist yet (or that this user cannot write, which
    the command's checks report) is only checked, so that a command that stops on bad input
    creates nothing."""
    from aesi_lib.project_lock import check_not_in_use, project_lock

    folder = Path(args.project_dir).expanduser()
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        if not args.wait:
            check_not_in_use(args.project_dir)
        yield
        return
    with project_lock(args.project_dir, command, wait=args.wait,
                      on_wait=_waiting_message(args)):
        yield


def cmd_run(args: argparse.Namespace) -> int:
    with claimed_project(args, "aesi run"):
        return _cmd_run_claimed(args)


def _cmd_run_claimed(args: argparse.Namespace) -> int:
    if args.keep_runs < 0:
        raise AesiError(f"--keep-runs must be 0 or more, not {args.keep_runs}")
    if args.fresh and args.resolve:
        raise AesiError("--fresh solves from the seed, --resolve from the last solution: "
                        "give one of them")
    config = run_config(args)
    check_corpus(args)
    check_runner(args)
    check_writable(args.project_dir, "--project-dir")
    check_writable(args.out, "--out")
    from aesi_lib.corpus.sources import choose_corpus

    print(f"corpus: {choose_corpus(args.muc4_dir, args.docs, args.demo).description}",
          flush=True)
    with writing_project(args, "aesi run"):
        return _run(args, config)


def _run(args: argparse.Namespace, config: dict[str, Any]) -> int:
    with flow_runner(args, "aesi_flows.induce", "induce_flow") as induce_flow:
        results = induce_flow(
            project_dir=args.project_dir, out_dir=args.out, muc4_dir=args.muc4_dir,
            docs_path=args.docs, demo=args.demo, config=config,
            parse_batch_size=args.batch_size, fresh=args.fresh, resolve=args.resolve,
            keep_runs=args.keep_runs, **reading(args))
    ingest = results["ingest"]
    print(f"\ncorpus: {results['corpus']} ({results['documents']} documents: "
          f"{ingest['new']} new, {ingest['changed']} changed, {ingest['unchanged']} unchanged; "
          f"{ingest['parsed']} parsed, {ingest['from_parse_cache']} from the parse cache)")
    print_steps(results)
    print(f"total {results['timings']['total']:.1f} s\n")
    print_scores(results)
    print_label_changes(results)
    print(f"\nexport and results.json written to {args.out}")
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    with claimed_project(args, "aesi update"):
        return _cmd_update_claimed(args)


def _cmd_update_claimed(args: argparse.Namespace) -> int:
    config = run_config(args)
    check_runner(args)
    if args.move_done and args.docs and _empty_inbox(Path(args.docs)):
        print(f"update: no documents in {args.docs}: nothing to do")
        return 0
    if args.docs:
        check_docs(args.docs, **reading(args))
    elif args.move_done:
        raise AesiError("--move-done moves the files of --docs aside: give --docs")
    check_writable(args.project_dir, "--project-dir")
    check_writable(args.out, "--out")
    with writing_project(args, "aesi update"):
        return _update(args, config)


def _empty_inbox(folder: Path) -> bool:
    """An existing folder without ``.txt`` files: with ``--move-done`` (an inbox that a
    schedule empties) it means nothing new, as for the scheduled update."""
    return folder.is_dir() and not any(p.is_file() and p.suffix.lower() == ".txt"
                                       for p in folder.iterdir())


def _update(args: argparse.Namespace, config: dict[str, Any]) -> int:
    with flow_runner(args, "aesi_flows.update", "update_flow") as update_flow:
        results = update_flow(
            docs_path=args.docs, project_dir=args.project_dir, out_dir=args.out, config=config,
            split=args.split, parse_batch_size=args.batch_size, evaluate=args.evaluate,
            resolve=args.resolve, consume=args.move_done, **reading(args))
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
    print_label_changes(results)
    print(f"\nfull export, new_documents.csv and results.json written to {args.out}")
    moved = results.get("moved_to")
    if moved and moved["files"]:
        print(f"the {len(moved['files'])} files read from {args.docs} moved to "
              f"{moved['folder']}")
    return 0


def cmd_extract(args: argparse.Namespace) -> int:
    from aesi_flows.extract import read_run

    run = read_run(args.run)
    check_docs(args.docs, **reading(args))
    check_runner(args)
    project_dir = args.project_dir or run["artifacts"].get("project_dir", ".aesi")
    check_writable(project_dir, "--project-dir" if args.project_dir
                   else "the run's project folder (parse cache)")
    check_writable(args.out or str(Path(args.run) / "extracted"), "--out")
    prefect_environment()
    with flow_runner(args, "aesi_flows.extract", "extract_flow") as extract_flow:
        results = extract_flow(
            docs_path=args.docs, run_dir=args.run, out_dir=args.out, split=args.split,
            parse_batch_size=args.batch_size, project_dir=args.project_dir, **reading(args))
    print(f"\nextract: {results['documents']} documents ({results['documents_parsed']} parsed, "
          f"{results['documents_from_parse_cache']} from the parse cache), "
          f"{results['mentions']} mentions filled with the schema of {args.run}")
    print_documents(results["summary"])
    print(f"\nassignments written to {Path(results['export']['csv']).parent}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from aesi_lib.corpus.muc4_keys import read_muc4_keys
    from aesi_lib.evaluate import format_table, read_assignments, score_grid

    if args.json:
        check_writable(Path(args.json).parent, "the folder of --json")
        check_file_writable(args.json, "--json")
    assignments = read_assignments(args.assignments)
    if args.annotations:
        return evaluate_annotations(args, assignments)
    eval_keys = [k for path in args.keys for k in read_muc4_keys(path)]
    map_keys = [k for path in args.map_keys for k in read_muc4_keys(path)] or None
    check_key_overlap(args.assignments, assignments, eval_keys, "--keys")
    if map_keys:
        check_key_overlap(args.assignments, assignments, map_keys, "--map-keys")
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
    if map_keys:
        from aesi_lib.evaluate.incident_map import template_filling
        from aesi_lib.run.pipeline import document_event_rows, run_reading

        texts = muc4_texts(assignments)
        # The run's events, by the rule every run writes them with (the machine's WordNet).
        events = document_event_rows(assignments, run_reading(assignments, None))
        filling = template_filling(events, assignments, eval_keys, map_keys, texts)
        print_template_filling(filling)
        if texts is None:
            print("(the MUC-4 texts were not found: every key string counts as gold, where GTT "
                  "drops strings the text does not hold; set AESI_MUC4_DIR)")
        out = {**out, "template_filling": filling}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


def muc4_texts(assignments: Any) -> dict[str, str] | None:
    """The texts of the MUC-4 messages of an export, when the corpus is found as ``aesi run``
    finds it and holds all of them; else None."""
    from aesi_lib.corpus.muc4 import load_muc4_corpus, resolve_muc4_dir

    folder = resolve_muc4_dir(None)
    if folder is None:
        return None
    texts = {d.doc_id: d.text for split in load_muc4_corpus(folder) for d in split.documents}
    wanted = set(assignments["doc_id"].astype(str))
    return texts if wanted <= set(texts) else None


def evaluate_annotations(args: argparse.Namespace, assignments: Any) -> int:
    """``aesi evaluate --annotations``: the run's cells and the two baselines against the
    arguments of a span-annotated corpus (``aesi_lib.evaluate.annotations``)."""
    from aesi_lib.evaluate.annotations import read_annotations, score_annotations

    needed = {"start_char", "end_char", "dep", "predicate", "mention"} - set(assignments.columns)
    if needed:
        raise InputError(args.assignments, f"--annotations needs the mentions' spans: missing "
                         f"column(s) {sorted(needed)} (an export of aesi run has them)")
    gold = read_annotations(args.annotations)
    annotated = {a.doc_id for a in gold}
    exported = set(assignments["doc_id"].astype(str))
    if not annotated & exported:
        raise InputError(args.annotations, f"none of its {len(annotated)} documents is in "
                         f"{args.assignments} (it names e.g. {min(annotated, default='none')}, "
                         f"the export e.g. {min(exported, default='none')})")
    missing = annotated - exported
    if missing:
        print(f"warning: {len(missing)} of the {len(annotated)} annotated documents have no "
              "mention in the export; their arguments count as missed", file=sys.stderr)
    scores = score_annotations(assignments, gold, least_gold=args.least_gold)
    print_annotation_scores(scores)
    if args.json:
        Path(args.json).write_text(json.dumps(scores, indent=1))
    return 0


def check_key_overlap(path: str, assignments: Any, keys: list[Any], option: str) -> None:
    """Warn (stderr) when some key messages of ``option`` have no document in the export, and
    fail when none has: the keys are of another split or corpus, and every score would be 0.

    Raises
    ------
    InputError
        No key message has a document in the export (names the file and example ids).
    """
    from aesi_lib.evaluate.gold import key_message_ids

    ids = key_message_ids(keys)
    exported = set(assignments["doc_id"].astype(str))
    missing = [i for i in ids if i not in exported]
    if not ids or not missing:
        return
    if len(missing) == len(ids):
        example = min(exported) if exported else "none"
        raise InputError(path, f"none of the {len(ids)} messages of the {option} files has a "
                         f"document in this export (keys name e.g. {ids[0]}, the export e.g. "
                         f"{example}): keys of another split or corpus?")
    print(f"aesi: warning: {len(missing)} of the {len(ids)} messages of the {option} files "
          f"have no document in {path} (e.g. {', '.join(missing[:3])}); they are scored as "
          "documents with nothing extracted", file=sys.stderr)


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


def _run_events(run: Path) -> tuple[Any, dict[int, str]]:
    """A run folder's events (``events.parquet``) and template kinds (``schema.json``); None
    and {} for a folder written before runs had them."""
    import pandas as pd

    events = run / "events.parquet"
    schema = run / "schema.json"
    kinds: dict[int, str] = {}
    if schema.is_file():
        try:
            kinds = {int(t["template"]): str(t["kind"])
                     for t in json.loads(schema.read_text())["templates"] if "kind" in t}
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(schema, f"not a run's schema file: {exc}") from exc
    if not events.is_file():
        return None, kinds
    frame = pd.read_parquet(events)
    return (frame if "entity_text" in frame.columns else None), kinds


def cmd_report(args: argparse.Namespace) -> int:
    from aesi_lib.evaluate import read_assignments

    run = Path(args.run)
    results_path = run / "results.json"
    if not results_path.is_file():
        raise InputError(results_path, "no results.json here: give --run the --out folder of "
                         "a finished `aesi run`")
    results = json.loads(results_path.read_text())
    check_writable(args.out or str(run / "report"), "--out")
    assignments = read_assignments(run / "assignments.parquet")
    try:
        from aesi_lib.report import write_schema_report
    except ImportError as exc:
        raise AesiError(f"the report module is not available in this installation ({exc})"
                        ) from exc
    eval_keys, map_keys = _report_keys(args, results)
    out_dir = args.out or str(run / "report")
    seed = args.seed if args.seed is not None else int(results.get("seed", 0) or 0)
    events, kinds = _run_events(run)
    paths = write_schema_report(assignments, out_dir, results=results, eval_keys=eval_keys,
                                map_keys=map_keys, seed=seed, events=events, kinds=kinds)
    for name, path in paths.items():
        print(f"{name}: {path}")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    with claimed_project(args, "aesi sweep"):
        return _cmd_sweep_claimed(args)


def _cmd_sweep_claimed(args: argparse.Namespace) -> int:
    from aesi_flows.sweep import load_sweep_spec

    spec = load_sweep_spec(args.configs)
    check_corpus(args)
    check_runner(args)
    check_writable(args.project_dir, "--project-dir")
    check_writable(args.out, "--out")
    with writing_project(args, "aesi sweep"):
        return _sweep(args, spec)


def _sweep(args: argparse.Namespace, spec: dict[str, Any]) -> int:
    with flow_runner(args, "aesi_flows.sweep", "sweep_flow") as sweep_flow:
        results = sweep_flow(
            spec=spec, seeds=args.seeds, out_dir=args.out, project_dir=args.project_dir,
            muc4_dir=args.muc4_dir, docs_path=args.docs, demo=args.demo,
            parse_batch_size=args.batch_size)
    print()
    print(Path(results["results"]["markdown"]).read_text())
    print(f"{len(results['rows'])} rows appended to {results['results']['parquet']}")
    return 0


def _existing_store(project_dir: str) -> Path:
    """The project's store file, which must exist (it is checked under the project lock:
    :func:`writing_project`)."""
    db = store_path(project_dir)
    if not db.exists():
        raise InputError(db, "no project store here: give --project-dir the folder of an "
                         "`aesi run`")
    check_writable(project_dir, "--project-dir")
    return db


def cmd_delete(args: argparse.Namespace) -> int:
    if not args.doc_ids and not args.split:
        raise AesiError("name the documents to delete (ids) or --split")
    db = _existing_store(args.project_dir)
    with writing_project(args, "aesi delete", flow=False):
        return _delete(args, db)


def _delete(args: argparse.Namespace, db: Path) -> int:
    from aesi_lib.store import Store

    with Store(db) as store:
        removed = store.delete_documents(args.doc_ids, args.split or [])
        left = len(store.document_ids())
    print(f"deleted {removed['documents']} documents ({removed['sentences']} sentences, "
          f"{removed['tokens']} tokens, {removed['entities']} entities) from {db}; "
          f"{left} documents left. Their parses stay in the parse cache; the next `aesi "
          "update` or `aesi run` solves without them (a run whose corpus holds them adds them "
          "again).")
    return 0


def cmd_store_prune(args: argparse.Namespace) -> int:
    keep = KEEP_RUNS_DEFAULT if args.keep is None else args.keep
    if keep < 0:
        raise AesiError(f"--keep must be 0 or more, not {keep}")
    db = _existing_store(args.project_dir)
    with writing_project(args, "aesi store prune", flow=False):
        return _prune(db, keep)


def _prune(db: Path, keep: int) -> int:
    from aesi_lib.store import Store

    with Store(db) as store:
        pruned = store.prune_runs(keep)
        left = int(store.runs()["assignments"].sum())
    print(f"deleted {pruned['rows_deleted']} assignment rows of {len(pruned['runs_pruned'])} "
          f"older runs; {left} rows of the {len(pruned['runs_kept'])} newest runs stay in {db} "
          "(later runs reuse the freed space)")
    return 0


def cmd_store_rebuild(args: argparse.Namespace) -> int:
    check_runner(args)
    check_writable(args.project_dir, "--project-dir")
    with writing_project(args, "aesi store rebuild", store=False):     # it may be damaged
        return _rebuild(args)


def _rebuild(args: argparse.Namespace) -> int:
    from aesi_lib.store import Store
    from aesi_lib.store.database import journal_path, read_journal, recovery_hint

    db = store_path(args.project_dir)
    journal = journal_path(db)
    pending = journal.with_name(journal.name + ".rebuilding")   # a rebuild under way
    moved = None
    if db.exists():
        try:
            with Store(db, read_only=True) as store:
                store.check_readable()
            damaged = False
        except StoreDamagedError:
            damaged = True
        if not damaged and not pending.exists():
            print(f"{db} is readable: nothing to rebuild")
            return 0
        if damaged:
            if not pending.exists() and not journal.exists():
                raise StoreDamagedError(db, f"the project database is damaged and there is "
                                        f"nothing to rebuild it from. {recovery_hint(db)}.")
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
            moved = db.with_name(f"{db.name}.damaged-{stamp}")
            db.replace(moved)
            wal = db.with_name(db.name + ".wal")
            if wal.exists():
                wal.replace(moved.with_name(moved.name + ".wal"))
    if not pending.exists():
        if not journal.exists():
            raise InputError(journal, "no document journal to rebuild the store from: rerun "
                             "`aesi run` with the project's corpus (parses come from the "
                             "parse cache) and `aesi update --docs` for documents added later")
        read_journal(journal)                   # a malformed journal fails before anything
        journal.replace(pending)
    documents = len(read_journal(pending))
    if moved:
        print(f"moved the damaged database aside: {moved}")
    with flow_runner(args, "aesi_flows.rebuild",
                     "rebuild_store_flow") as rebuild_store_flow:
        results = rebuild_store_flow(
            project_dir=args.project_dir, journal=str(pending),
            parse_batch_size=args.batch_size)
    pending.unlink()
    ingest = results["ingest"]
    print(f"\nrebuilt {db}: {documents} documents stored again ({ingest['parsed']} parsed, "
          f"{ingest['from_parse_cache']} from the parse cache). The records of earlier runs "
          "were in the damaged file: each run's --out folder keeps its results.json and export.")
    return 0


DEFAULT_WORK_POOL = "aesi-local"


def cmd_worker(args: argparse.Namespace) -> int:
    """Replace this process with ``prefect worker start --pool POOL``, SIGINT at its default.

    Prefect's worker turns its first SIGTERM into a SIGINT to itself; a process started in
    the background by a non-interactive shell inherits SIGINT as ignored, and such a worker
    ran on after SIGTERM. An ignored signal stays ignored across ``exec``, so it is reset
    here first."""
    import signal

    from prefect.settings import get_current_settings

    from aesi_lib.errors import ApiUnreachableError

    url = get_current_settings().api.url
    if not url:
        raise AesiError("aesi worker runs the deployments of a Prefect server: set "
                        "PREFECT_API_URL to it (e.g. http://127.0.0.1:4200/api; README, "
                        "\"Scheduled runs\")")
    try:
        check_api(url)
    except ApiUnreachableError:
        raise AesiError(f"the Prefect API at {url} is unreachable: start that server "
                        "(`prefect server start`) or point PREFECT_API_URL at the one the "
                        "deployments are on") from None
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    argv = [sys.executable, "-m", "prefect", "worker", "start", "--pool", args.pool]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, argv)
    return 0        # not reached: execv replaces the process
