"""What the benchmarks on MUC-4 share: the corpus with its keys, the store of a finished run,
the arguments that name them, and the per-seed rows of a post-solve step. Each check prints
one line naming the script and what is missing, and exits with 2."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from aesi_lib.corpus.sources import Corpus, load_corpus
from aesi_lib.errors import InputError
from aesi_lib.fingerprint import source_commit
from aesi_lib.model.config import ModelConfig
from aesi_lib.model.feature_files import load_features
from aesi_lib.model.features import EntityFeatures
from aesi_lib.model.induction import InductionResult
from aesi_lib.run.config import RunConfig
from aesi_lib.run.experiments import RECORD_COLUMNS, results_table, score_row, summarize
from aesi_lib.run.pipeline import labelled_export, run_induction
from aesi_lib.run.presets import preset
from aesi_lib.steps.executor import Executor
from aesi_lib.steps.graph import Project, feature_steps
from aesi_lib.store import Store

#: Records one scored setting of one seed: (configuration, seed, assignments, changed).
Recorder = Callable[[str, int, pd.DataFrame, float], None]


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


def row_recorder(corpus: Corpus, rows: list[dict[str, Any]]) -> Recorder:
    """A recorder that scores an export as the sweep scores it
    (``aesi_lib.run.experiments.score_row``), appends its row (a sweep's ``results.csv``
    columns with ``changed``, the share the setting moved) to ``rows`` and prints a line."""
    commit = source_commit()

    def record(name: str, seed: int, assignments: pd.DataFrame, changed: float) -> None:
        row = score_row(assignments, corpus.eval_keys, corpus.map_keys)
        rows.append({"configuration": name, "seed": seed, "commit": commit, "config_digest": "",
                     **row, "changed": changed})
        print(f"seed {seed}  {name}: test-mapped {row['tst_test_lenient_f1']:.3f}, dev-mapped "
              f"{row['tst_dev_lenient_f1']:.3f}, DEV {row['dev_dev_lenient_f1']:.3f}, "
              f"changed {changed:.3f}", flush=True)

    return record


def report_rows(rows: list[dict[str, Any]], rows_path: str | None) -> None:
    """Print the summary table of a :func:`row_recorder`'s rows, and write them (with
    ``changed``) to ``rows_path`` as CSV when given."""
    frame = pd.DataFrame(rows)
    print(results_table(summarize(frame)))
    if rows_path:
        frame[[*RECORD_COLUMNS, "changed"]].to_csv(rows_path, index=False)


def post_solve_inputs(
    script: str, description: str, argv: list[str] | None,
) -> tuple[argparse.Namespace, Corpus, RunConfig, pd.DataFrame, EntityFeatures]:
    """What a benchmark of a post-solve step starts from: its arguments (those of
    :func:`seeded_run_parser` and ``--rows``), the MUC-4 corpus with its keys, the default
    preset's ``RunConfig``, and the entity table and features of the project's finished run
    (parse and context vectors from its caches)."""
    parser = seeded_run_parser(description)
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    args = parser.parse_args(argv)
    corpus, config, table, features = default_project_inputs(script, args)
    return args, corpus, config, table, features


def default_project_inputs(script: str, args: argparse.Namespace
                           ) -> tuple[Corpus, RunConfig, pd.DataFrame, EntityFeatures]:
    """The MUC-4 corpus of ``args.muc4_dir`` with its keys, the default preset's
    ``RunConfig``, and the entity table and features of the project ``args.project_dir`` (the
    arguments of :func:`seeded_run_parser`; parse and context vectors from its caches)."""
    corpus = muc4_corpus(script, args.muc4_dir)
    store_path = project_store(script, args.project_dir)
    config = RunConfig.from_dict(preset("default"))
    with Store(store_path, read_only=True) as store:
        doc_ids = store.document_ids()
    # The feature steps of the run's graph, answered from the project's cache when the
    # run's code made them.
    project = Project.at(args.project_dir)
    artifacts = feature_steps(project, doc_ids, config, Executor(project.results))
    features, _ = load_features(artifacts["features"])
    return corpus, config, pd.read_parquet(artifacts["entities"]), features


def solved_seeds(seeds: list[int], features: EntityFeatures, model: ModelConfig
                 ) -> Iterator[tuple[int, InductionResult]]:
    """Each seed with the default solved as ``aesi run`` solves it; after the caller is done
    with a seed, one line gives its time."""
    for seed in seeds:
        started = time.perf_counter()
        yield seed, run_induction(features, dataclasses.replace(model, seed=seed))
        print(f"seed {seed}: {time.perf_counter() - started:.0f} s", flush=True)


def default_exports(seeds: list[int], table: pd.DataFrame, features: EntityFeatures,
                    model: ModelConfig, record: Recorder
                    ) -> Iterator[tuple[int, InductionResult, pd.DataFrame]]:
    """Each seed with the default solved (:func:`solved_seeds`) and exported as ``aesi run``
    exports it (the subject merge applied), after its row is recorded as ``default``: what a
    post-solve step starts from."""
    for seed, result in solved_seeds(seeds, features, model):
        base = labelled_export(table, result.template_labels, result.slot_labels, model)
        record("default", seed, base, 0.0)
        yield seed, result, base


@dataclasses.dataclass(frozen=True)
class SweepScoring:
    """What a script that scores a sweep's exports by the template-filling metric reads: the
    corpus, its texts, the gold templates of TST1+TST2 and DEV, and the exports."""

    corpus: Corpus
    texts: dict[str, str]
    golds: dict[str, Any]
    exports: list[tuple[int, Path]]


def sweep_scoring_parser(description: str) -> argparse.ArgumentParser:
    """A parser with ``--runs`` (a sweep's folder of one configuration's seed exports),
    ``--muc4-dir``, ``--rows`` and ``--table``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--runs", required=True,
                        help="folder of seed-N/assignments.parquet exports of one configuration")
    parser.add_argument("--muc4-dir", help="the MUC-4 folder (default: as aesi run finds it)")
    parser.add_argument("--rows", help="write the per-seed rows here as CSV")
    parser.add_argument("--table", help="write the printed table here as CSV")
    return parser


def sweep_scoring(script: str, args: argparse.Namespace) -> SweepScoring:
    """The :class:`SweepScoring` of the arguments of :func:`sweep_scoring_parser`; stops with
    one line naming the script when the folder holds no export."""
    from aesi_lib.evaluate.template_filling import gold_templates
    from aesi_lib.run.experiments import seed_exports

    corpus = muc4_corpus(script, args.muc4_dir)
    exports = [(seed, Path(path)) for seed, path in seed_exports(args.runs)]
    if not exports:
        _stop(f"{script}: no seed-*/assignments.parquet under {args.runs}")
    texts = {d.doc_id: d.text for d in corpus.documents}
    golds = {"TST1+TST2": gold_templates(corpus.eval_keys, texts),
             "DEV": gold_templates(corpus.map_keys, texts)}
    return SweepScoring(corpus, texts, golds, exports)


def mean_std(values: pd.Series) -> str:
    """``mean ± sample std`` to 3 decimals (the mean alone for one value)."""
    return (f"{values.mean():.3f} ± {values.std(ddof=1):.3f}" if len(values) > 1
            else f"{values.mean():.3f}")

