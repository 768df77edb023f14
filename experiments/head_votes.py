"""Issue 48, a head-level form of levers (a) and (c): every subject mention of a head word
takes the role that most of that head's subject mentions take, corpus-wide.

Templates are tied by predicate, so the subject of *claim*, *say* or *announce* sits in the
template of its verb even when its head is a name that elsewhere is the agent of attacks
(*MRTA*, *FMLN*). Here a head's subject mentions vote: when one role (template, slot) holds at
least the share ρ of the head's subject mentions, and the head has at least n of them, all of
its subject mentions take that role. Objects and obliques keep theirs.

For each seed the default is solved as ``aesi run`` solves it and scored with its own export
(the subject merge applied); the vote is applied to the export's roles, and the run is scored
as the sweep scores it. One diagnostic row leaves the head *mrta* out of the vote at ρ 0.3:
in every seed of the selection split that one head decides the gain (see
docs/experiments/head-votes.md). The per-seed rows go to ``--rows``:

    .venv/bin/python -m experiments.head_votes --project-dir .aesi \
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/head-votes.csv

The project must hold a MUC-4 run of the default (``./scripts/run.sh``).
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model.subject_merge import SUBJECT
from experiments.muc4_inputs import default_exports, post_solve_inputs, report_rows, row_recorder

#: The settings: (least share ρ of the winning role, least subject mentions n, heads left out).
SETTINGS: tuple[tuple[float, int, tuple[str, ...]], ...] = (
    (0.25, 20, ()),
    (0.3, 5, ()),
    (0.3, 20, ()),
    (0.3, 20, ("mrta",)),
    (0.35, 20, ()),
    (0.4, 20, ()),
    (0.5, 20, ()),
)


def setting_name(share: float, least: int, left_out: tuple[str, ...]) -> str:
    """The configuration name of a setting's rows."""
    name = f"subjects take their head's majority role, ρ {share:g}, n {least}"
    return name + (f", without {', '.join(left_out)}" if left_out else "")


def subject_roles(heads: np.ndarray, templates: np.ndarray, slots: np.ndarray, n_classes: int
                  ) -> tuple[np.ndarray, pd.DataFrame, pd.DataFrame]:
    """What a head's vote counts: which mentions are subjects, their (head, template, slot)
    rows, and each (head, template, slot) with its count ``n`` and the head's ``total`` of
    subject mentions.

    Parameters are those of :func:`head_vote`.

    Returns
    -------
    subject : ndarray of shape (E,), bool
    frame : DataFrame with one row per subject mention
    counts : DataFrame with columns head, template, slot, n, total
    """
    templates = np.asarray(templates, dtype=np.int64)
    slots = np.asarray(slots, dtype=np.int64)
    subject = (slots >= 0) & (slots // n_classes == SUBJECT)
    frame = pd.DataFrame({"head": np.asarray(heads)[subject], "template": templates[subject],
                          "slot": slots[subject]})
    counts = frame.value_counts().rename("n").reset_index()
    counts["total"] = counts.groupby("head")["n"].transform("sum")
    return subject, frame, counts


def head_vote(heads: np.ndarray, templates: np.ndarray, slots: np.ndarray, n_classes: int,
              share: float, least: int, left_out: tuple[str, ...] = ()
              ) -> tuple[np.ndarray, np.ndarray]:
    """Each subject mention's role after its head's vote (the module docstring).

    Parameters
    ----------
    heads : ndarray of shape (E,)
        The lowercased head word of every mention.
    templates, slots : ndarray of shape (E,), int
        The roles: template and factored slot (-1 where a mention has none).
    n_classes : int
        Semantic classes per argument position.
    share, least : float, int
        ρ and n.
    left_out : tuple of str
        Heads that do not vote (they keep their roles).

    Returns
    -------
    templates, slots : ndarray of shape (E,), int
    """
    templates = np.asarray(templates, dtype=np.int64)
    slots = np.asarray(slots, dtype=np.int64)
    subject, frame, counts = subject_roles(heads, templates, slots, n_classes)
    # The first row of a head after this sort is its majority role; ties go to the lower
    # (template, slot).
    counts = counts.sort_values(["head", "n", "template", "slot"],
                                ascending=[True, False, True, True])
    winners = counts.drop_duplicates("head").set_index("head")
    winners = winners[(winners["total"] >= least) & (winners["n"] >= share * winners["total"])]
    winners = winners.drop(index=[h for h in left_out if h in winners.index])
    new_templates, new_slots = templates.copy(), slots.copy()
    rows = np.flatnonzero(subject)
    voted = winners.reindex(frame["head"].to_numpy())
    moves = voted["template"].notna().to_numpy()
    new_templates[rows[moves]] = voted["template"].to_numpy()[moves].astype(np.int64)
    new_slots[rows[moves]] = voted["slot"].to_numpy()[moves].astype(np.int64)
    return new_templates, new_slots


def main(argv: list[str] | None = None) -> int:
    args, corpus, config, table, features = post_solve_inputs(
        "head_votes", __doc__.split("\n\n")[0], argv)
    model = config.model
    n_classes = model.n_slots // len(ARGUMENT_POSITIONS)
    rows: list[dict] = []
    record = row_recorder(corpus, rows)

    for seed, _result, base in default_exports(args.seeds, table, features, model, record):
        heads = base["head"].astype(str).str.lower().to_numpy()
        templates, slots = base["template"].to_numpy(), base["slot"].to_numpy()
        for share, least, left_out in SETTINGS:
            new_templates, new_slots = head_vote(heads, templates, slots, n_classes, share,
                                                 least, left_out)
            moved = (new_templates != templates) | (new_slots != slots)
            record(setting_name(share, least, left_out), seed,
                   base.assign(template=new_templates, slot=new_slots), float(np.mean(moved)))

    report_rows(rows, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
