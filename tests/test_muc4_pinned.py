"""Pinned MUC-4 results: the figures the README reports, and what a user of the tool relies on.

Runs only where the corpus is (``../shared/data/muc4`` or ``$AESI_MUC4_DIR``); CI runs it
there. One ``aesi run`` of the default configuration (seed 0) in a temporary project (cold in a
fresh clone; with the repository's parse and context-vector caches when ``./scripts/run.sh``
has filled them), then
on the same project: slot filling of TST1+TST2 with the run's own schema, an update with 10
new documents (which carries on from the default run), then the default again (a nightly full
run after the update: the update's documents and ids kept); and the reproduction preset (seed
0) in a project of its own that reuses the default run's parses.
A change that moves a pinned score fails here until the README moves with it (README,
"Results on MUC-4": the seed-0 figures).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]

#: Seed-0 scores on TST1+TST2 (the selection split) as the README reports them, 3 decimals.
#: Since pronouns are arguments read as their antecedents (R18, issue 67); before it 0.442 /
#: 0.465 / 0.456 / 0.456.
DEFAULT_SEED0 = {"test-mapped/lenient": 0.461, "dev-mapped/lenient": 0.483,
                 "test-mapped/strict": 0.447, "dev-mapped/strict": 0.473}
#: The seed-0 template-filling micro-F1 (TST1+TST2, map learned on DEV): 0.3568 since an
#: incident's sentences that name new victims or targets start another template; 0.3438 since
#: the map learns sub-types from the sentences' triggers; 0.3339 since bare pronouns fill no role;
#: 0.3329 since a description is written with its *of* complement and hyphenated words whole;
#: 0.3219 before that, with R18; 0.3143 before R18.
DEFAULT_SEED0_TEMPLATE_FILLING = 0.357
REPRODUCTION_SEED0 = {"test-mapped/lenient": 0.157, "dev-mapped/lenient": 0.133}

pytestmark = [pytest.mark.muc4, pytest.mark.slow]


def _aesi(args: list[str], cwd: Path, log: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"PYTHONPATH": str(REPO), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                "DO_NOT_TRACK": "1", "PREFECT_HOME": str(cwd / "prefect-home")})
    with open(log, "w") as fh:
        proc = subprocess.run([sys.executable, "-m", "aesi_cli", *args], cwd=cwd, env=env,
                              stdout=fh, stderr=subprocess.STDOUT, timeout=1200)
    assert proc.returncode == 0, log.read_text()[-4000:]


def _results(out: Path) -> dict[str, Any]:
    return json.loads((out / "results.json").read_text())


#: The repository's own project folder (``./scripts/run.sh`` fills it): its content-addressed
#: caches of parses and context vectors, when present, seed the test's project, so that on a
#: machine that has run the main job the pinned runs parse and embed nothing.
REPO_PROJECT = REPO / ".aesi"
SHARED_CACHES = ("parse-cache", "context-vectors")


def _seed_caches(project: Path) -> list[str]:
    seeded = []
    for name in SHARED_CACHES:
        if (REPO_PROJECT / name).is_dir():
            shutil.copytree(REPO_PROJECT / name, project / name)
            seeded.append(name)
    return seeded


@pytest.fixture(scope="module")
def default_run(muc4_dir: Path, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("muc4-pinned")
    project, out = root / "project", root / "out"
    _seed_caches(project)
    _aesi(["run", "--muc4-dir", str(muc4_dir), "--project-dir", str(project), "--out",
           str(out), "--seed", "0"], root, root / "run.log")
    return {"root": root, "project": project, "out": out, "muc4": muc4_dir}


def _f1s(results: dict[str, Any], names) -> dict[str, float]:
    return {name: round(results["scores"][name]["f1"], 3) for name in names}


def test_default_seed0_scores_are_the_readmes(default_run):
    results = _results(default_run["out"])
    assert results["corpus"] == "muc4" and results["evaluated_on"] == "TST1+TST2"
    assert _f1s(results, DEFAULT_SEED0) == DEFAULT_SEED0


def test_every_mention_and_event_filler_is_the_messages_own_text(default_run):
    """``mention`` is exactly ``text[start_char:end_char]`` of the message as the file has it,
    for every row of the export and every evidence mention of ``events.jsonl``."""
    from aesi_lib.corpus.sources import load_corpus

    originals = {d.doc_id: d.original for d in load_corpus(str(default_run["muc4"])).documents}
    export = pd.read_parquet(default_run["out"] / "assignments.parquet")
    sliced = [originals[d][a:b] for d, a, b in zip(export["doc_id"], export["start_char"],
                                                    export["end_char"], strict=True)]
    assert (export["mention"] == sliced).all()
    assert export["mention"].str.contains("\n").sum() > 1000     # line breaks kept
    evidence = 0
    with open(default_run["out"] / "events.jsonl", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            for incident in record["incidents"]:
                for role in incident["roles"]:
                    for entity in role["entities"]:
                        for m in entity["mentions"]:
                            text = originals[record["doc_id"]][m["start_char"]:m["end_char"]]
                            assert text == m["mention"]
                            evidence += 1
    assert evidence == len(pd.read_parquet(default_run["out"] / "events.parquet"))


def test_events_come_from_event_templates_and_score_the_readmes_template_filling(default_run):
    """Only event templates yield incidents, at most a few a message, and the events score
    the README's seed-0 template-filling figure (TST1+TST2, map learned on DEV)."""
    schema = json.loads((default_run["out"] / "schema.json").read_text())
    kinds = {t["template"]: t["kind"] for t in schema["templates"]}
    events = pd.read_parquet(default_run["out"] / "events.parquet")
    assert {kinds[t] for t in events["template"]} == {"event"}
    assert set(kinds.values()) == {"event", "background", "discourse"}
    export = pd.read_parquet(default_run["out"] / "assignments.parquet")
    per_document = len(events[["doc_id", "incident"]].drop_duplicates()) / export[
        "doc_id"].nunique()
    assert per_document <= 2
    filling = _results(default_run["out"])["template_filling"]
    assert round(filling["micro"]["f1"], 3) == DEFAULT_SEED0_TEMPLATE_FILLING


def test_extract_gives_the_training_mentions_their_induced_labels(default_run):
    """``aesi extract`` applies the run's own rule: re-extracting TST1+TST2 with the run's
    schema gives back (at least 99 % of) the induced labels and the same F1."""
    from aesi_lib.corpus.sources import load_corpus
    from aesi_lib.evaluate import score_grid

    corpus = load_corpus(str(default_run["muc4"]), None)
    tst = [d for d in corpus.documents if d.split in ("tst1", "tst2")]
    docs = default_run["root"] / "tst.jsonl"
    docs.write_text("".join(json.dumps({"id": d.doc_id, "text": d.text}) + "\n" for d in tst))
    out = default_run["root"] / "extracted"
    _aesi(["extract", "--docs", str(docs), "--run", str(default_run["out"]), "--out", str(out)],
          default_run["root"], default_run["root"] / "extract.log")
    extracted = pd.read_parquet(out / "assignments.parquet")
    run = pd.read_parquet(default_run["out"] / "assignments.parquet")
    run = run[run["doc_id"].isin({d.doc_id for d in tst})]
    # Not the mention: it is the slice of the text as given, here the messages' bodies, in
    # the run the message as the file has it (other line breaks).
    key = ["doc_id", "sent_id", "head", "predicate", "dep"]
    both = extracted.drop_duplicates(key).merge(run.drop_duplicates(key), on=key,
                                                suffixes=("", "_run"))
    assert len(both) >= 0.99 * len(run)
    assert (both["template"] == both["template_run"]).mean() >= 0.99
    assert (both["slot"] == both["slot_run"]).mean() >= 0.99
    f1 = score_grid(extracted, corpus.eval_keys, bounds=False).cell("test-mapped").result.f1
    assert round(f1, 3) == DEFAULT_SEED0["test-mapped/lenient"]


def test_reproduction_seed0_scores_are_the_readmes(default_run):
    # A project of its own (the corpus alone, whatever the other tests add to the default
    # run's project), with the default run's parse cache.
    project, out = default_run["root"] / "reproduction-project", default_run["root"] / "repro"
    shutil.copytree(default_run["project"] / "parse-cache", project / "parse-cache")
    _aesi(["run", "--muc4-dir", str(default_run["muc4"]), "--project-dir", str(project),
           "--out", str(out), "--preset", "reproduction", "--seed", "0"],
          default_run["root"], default_run["root"] / "reproduction.log")
    results = _results(out)
    assert results["documents_parsed"] == 0          # the default run's parses are reused
    assert _f1s(results, REPRODUCTION_SEED0) == REPRODUCTION_SEED0


def test_update_with_ten_documents_keeps_the_ids(default_run):
    from aesi_lib.corpus.muc4 import read_muc4_messages

    mixed = default_run["muc4"] / "tst4" / "tst4-muc4.mixed-case"
    new = read_muc4_messages(mixed, "new")[:10]
    inbox = default_run["root"] / "new.jsonl"
    inbox.write_text("".join(json.dumps({"id": f"NEW-{d.doc_id}", "text": d.text}) + "\n"
                             for d in new))
    out = default_run["root"] / "update"
    _aesi(["update", "--docs", str(inbox), "--project-dir", str(default_run["project"]),
           "--out", str(out), "--evaluate"], default_run["root"],
          default_run["root"] / "update.log")
    results = _results(out)
    assert results["documents_parsed"] == 10
    carried = results["solve"]["carried"]
    assert carried["previous_mentions"] > 80_000 and carried["new_mentions"] > 0
    # The schema is kept (issue 50's target: at least 99 %): nothing is solved again.
    assert carried["template_kept_share"] == 1.0
    assert carried["slot_kept_share"] == 1.0
    assert "solve" not in results["steps"] and results["steps"]["place"]["state"] == "Completed"
    # The scores of the documents it had do not move.
    assert _f1s(results, DEFAULT_SEED0) == DEFAULT_SEED0


def test_a_full_run_after_the_update_keeps_its_ids_and_documents(default_run):
    """The nightly full run after an update: the update's documents stay in the export, and
    the update's schema is kept: no label moves (aesi_lib.run.carry_plan)."""
    out = default_run["root"] / "full-after-update"
    _aesi(["run", "--muc4-dir", str(default_run["muc4"]), "--project-dir",
           str(default_run["project"]), "--out", str(out), "--seed", "0"],
          default_run["root"], default_run["root"] / "full-after-update.log")
    results = _results(out)
    assert results["documents"] == 1710 and results["documents_added_by_updates"] == 10
    export = pd.read_parquet(out / "assignments.parquet")
    assert export["doc_id"].str.startswith("NEW-").sum() > 0
    ids = results["ids"]
    assert ids["previous_mentions"] > 87_000
    assert ids["template_kept_share"] == ids["slot_kept_share"] == 1.0
    assert "solve" not in results["steps"] and results["steps"]["place"]["state"] == "Completed"
    # Counted on the exports: nothing moved, and the scores are the update's.
    assert results["labels"]["label_moved"] == 0
    assert results["labels"]["shared_mentions"] == len(export)
    assert _f1s(results, DEFAULT_SEED0) == DEFAULT_SEED0
