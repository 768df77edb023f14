"""The entity rules that reach arguments the verb rules leave out (issue 67), on both corpora
of selection: CASIE's development half scored by ``aesi evaluate --annotations`` and MUC-4's
TST1+TST2. R18 (pronouns) is in the default since; this measures the default against the
default without it. R17 (noun modifiers) and R19 (numbers) were measured by this module at
commit 5291fcb, where each was an option (``--variants noun_modifiers number_arguments``
there), and removed (docs/experiments/reach-rules.md).

For each variant and seed: one ``aesi run`` of CASIE-dev and its scores against the
annotations (cross-fitted halves; aesi's cells and the (predicate, position) baseline, single-
and multi-slot mappings; the recall ceilings; what no mention reaches), and one ``aesi run``
of MUC-4 (its ``results.json`` scores and template filling). Each variant has one project per
corpus, so its seeds share the parse cache, the entity rows and the context vectors.

Usage::

    .venv/bin/python -m experiments.reach_rules --out reach [--seeds 0 1 2 3 4] \
        [--variants default without_pronoun_arguments] \
        [--casie ../shared/data/casie/casie-dev.jsonl] [--muc4-dir ../shared/data/muc4]

Writes ``OUT/rows.csv`` (one row per variant, corpus and seed) and prints the mean ± standard
deviation over the seeds per variant as Markdown.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
#: Each variant: the ``--set`` options it adds to the default preset.
VARIANTS: dict[str, list[str]] = {
    "default": [],
    "without_pronoun_arguments": ["features.pronoun_arguments=false"],
}
#: The roles whose recall ceiling the table shows.
CEILING_ROLES = ("Victim", "Attacker", "Vulnerable_System", "Compromised-Data")
#: The issue's macro average: the roles with at least this many gold entities.
LEAST_GOLD = 100
MUC4_SCORES = ("test-mapped/lenient", "dev-mapped/lenient", "test-mapped/strict",
               "dev-mapped/strict")


def aesi(args: list[str], log: Path) -> None:
    """One ``aesi`` command of this interpreter's installation; its output in ``log``."""
    with log.open("w") as fh:
        done = subprocess.run([sys.executable, "-m", "aesi_cli", *args], stdout=fh,
                              stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        raise SystemExit(f"aesi {' '.join(args[:1])} failed; see {log}")


def settings(variant: str) -> list[str]:
    return [a for option in VARIANTS[variant] for a in ("--set", option)]


def macro(summary: dict[str, Any]) -> float:
    """The mean F1 of the roles with at least :data:`LEAST_GOLD` gold entities."""
    return float(np.mean([r["f1"] for r in summary["roles"].values()
                          if r["r_den"] >= LEAST_GOLD]))


def annotation_macros(scores: dict[str, Any]) -> dict[str, float]:
    """The macro-F1s of an ``aesi evaluate --annotations`` JSON: aesi's cells and the
    (predicate, position) baseline, single- and multi-slot
    (``aesi_single_macro``, ..., ``predicate_multi_macro``)."""
    return {f"{name}_{mapping}_macro": macro(scores[f"{system}/{mapping}"])
            for system, name in (("aesi", "aesi"), ("predicate+position", "predicate"))
            for mapping in ("single", "multi")}


def run_seed(work: Path, corpus: str, corpus_args: list[str], variant: str, seed: int
             ) -> tuple[Path, Path]:
    """One ``aesi run`` of a corpus for one variant and seed, in the variant's project of
    that corpus; the variant's folder and the run's export folder."""
    root = work / corpus / variant
    root.mkdir(parents=True, exist_ok=True)
    out = root / f"out-{seed}"
    aesi(["run", *corpus_args, "--project-dir", str(root / "project"), "--out", str(out),
          "--seed", str(seed), *settings(variant)], root / f"run-{seed}.log")
    return root, out


def casie_row(work: Path, variant: str, seed: int, casie: Path) -> dict[str, Any]:
    """Run and score CASIE-dev for one variant and seed."""
    root, out = run_seed(work, "casie", ["--docs", str(casie)], variant, seed)
    aesi(["evaluate", "--assignments", str(out / "assignments.parquet"), "--annotations",
          str(casie), "--json", str(out / "annotations.json")], root / f"evaluate-{seed}.log")
    scores = json.loads((out / "annotations.json").read_text())
    row: dict[str, Any] = {"corpus": "casie-dev", "variant": variant, "seed": seed,
                           "mentions": len(pd.read_parquet(out / "assignments.parquet",
                                                           columns=["doc_id"])),
                           **annotation_macros(scores)}
    row.update({f"ceiling_{role}": scores["ceiling"][role] for role in CEILING_ROLES})
    for missed in scores["missed"]:
        key = f"missed_{missed['kind']}"
        row[key] = row.get(key, 0) + int(missed["entities"])
    return row


def muc4_row(work: Path, variant: str, seed: int, muc4: Path) -> dict[str, Any]:
    """Run and score MUC-4 for one variant and seed."""
    _, out = run_seed(work, "muc4", ["--muc4-dir", str(muc4)], variant, seed)
    results = json.loads((out / "results.json").read_text())
    row: dict[str, Any] = {"corpus": "muc4", "variant": variant, "seed": seed}
    row.update({key: results["scores"][key]["f1"] for key in MUC4_SCORES})
    row["template_filling"] = results["template_filling"]["micro"]["f1"]
    return row


def table(rows: pd.DataFrame, corpus: str, columns: list[str]) -> str:
    """Mean ± standard deviation over the seeds, per variant, as Markdown; a count that is
    the same in every seed (the mentions) as that count."""
    part = rows[rows["corpus"] == corpus]
    lines = ["| variant | seeds | " + " | ".join(columns) + " |",
             "|---" * (len(columns) + 2) + "|"]
    for variant, group in part.groupby("variant", sort=False):
        cells = [f"{int(group[c].iloc[0]):,}" if _one_count(group[c])
                 else f"{group[c].mean():.3f} ± {group[c].std(ddof=0):.3f}" for c in columns]
        lines.append(f"| {variant} | {len(group)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _one_count(values: pd.Series) -> bool:
    return bool(values.nunique() == 1 and (values % 1 == 0).all() and values.iloc[0] > 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="work folder (projects, rows)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--casie", type=Path, default=SHARED / "casie" / "casie-dev.jsonl")
    ap.add_argument("--muc4-dir", type=Path, default=SHARED / "muc4")
    ap.add_argument("--corpora", nargs="+", default=["casie-dev", "muc4"],
                    choices=["casie-dev", "muc4"])
    args = ap.parse_args(argv)
    for path in ([args.casie] if "casie-dev" in args.corpora else []) + (
            [args.muc4_dir] if "muc4" in args.corpora else []):
        if not path.exists():
            ap.error(f"{path}: not found")
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for variant in args.variants:
        for seed in args.seeds:
            if "casie-dev" in args.corpora:
                rows.append(casie_row(args.out, variant, seed, args.casie))
            if "muc4" in args.corpora:
                rows.append(muc4_row(args.out, variant, seed, args.muc4_dir))
            print(f"{variant} seed {seed} done", flush=True)
            pd.DataFrame(rows).to_csv(args.out / "rows.csv", index=False)
    frame = pd.DataFrame(rows)
    if "casie-dev" in args.corpora:
        print(table(frame, "casie-dev", ["mentions", "aesi_single_macro", "aesi_multi_macro",
                                         "predicate_single_macro", "predicate_multi_macro",
                                         *[f"ceiling_{r}" for r in CEILING_ROLES]]))
    if "muc4" in args.corpora:
        print(table(frame, "muc4", [*MUC4_SCORES, "template_filling"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
