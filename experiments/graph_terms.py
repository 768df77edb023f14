"""How much of the paper's slot graph W_S (Eq. 2) each delta term links, on a stored corpus.

Prints, for the entity table of a project (an earlier ``aesi run``), the share of all ordered
mention pairs that δ(same dependency) links, the size of the largest dependency clique, and the
share that δ(types share one) links under each typing scheme (the paper's direct hypernyms,
supersenses, depth-3 and depth-4 ancestors). Counts come from group sizes, never from an
|E|×|E| matrix: Σ_g n_g² for a label, and Σ_{a,b} n_a n_b S[a, b] over distinct type sets.

    .venv/bin/python -m experiments.graph_terms --project-dir .aesi
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from aesi_lib.markdown import markdown_table
from aesi_lib.model.features import FeatureOptions, build_features
from aesi_lib.model.type_sets import type_set_groups
from aesi_lib.run import pipeline
from aesi_lib.run.config import RunConfig
from aesi_lib.store import Store

SCHEMES = ("hypernyms", "lexname", "depth:3", "depth:4")


def type_pair_share(types) -> float:
    """Share of ordered mention pairs whose heads share a semantic type."""
    groups, S = type_set_groups(types)
    sizes = np.bincount(groups).astype(np.float64)
    linked = float(sizes @ (S @ sizes))
    return linked / float(sizes.sum()) ** 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project-dir", default=".aesi",
                        help="project folder of an earlier aesi run (default .aesi)")
    args = parser.parse_args(argv)
    db = Path(args.project_dir) / "aesi.duckdb"
    if not db.is_file():
        print(f"{db}: no store here; run `aesi run --project-dir {args.project_dir}` first",
              file=sys.stderr)
        return 2
    with Store(db, read_only=True) as store:
        table = store.entity_table()
    n = len(table)
    dep_sizes = table["dep"].value_counts()
    rows = [("δ(same dependency)", f"{float((dep_sizes ** 2).sum()) / n ** 2:.1%}",
             f"largest clique: {dep_sizes.index[0]} ({dep_sizes.iloc[0]:,} mentions)")]
    vectors, wordnet = pipeline.load_lexicon(RunConfig())
    empty_pmi = pd.DataFrame({"word1": [], "word2": [], "pmi": []})
    for scheme in SCHEMES:
        features, vocab = build_features(table, empty_pmi, vectors, wordnet,
                                         FeatureOptions(type_scheme=scheme))
        rows.append((f"δ(types share one), {scheme}", f"{type_pair_share(features.types):.2%}",
                     f"{len(vocab.types):,} types"))
    print(f"{n:,} mentions, {table['head_lemma'].nunique():,} head lemmas, "
          f"{table['predicate'].nunique():,} predicates")
    print(markdown_table(["term", "mention pairs linked", "note"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
