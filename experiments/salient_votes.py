"""Issue 48's lever (a) as a head vote into the event template: the subjects of a claim, a
report or a statement take the attack template's agent role of their head word, in the
documents that report an attack.

The head vote (docs/experiments/head-votes.md) gave each head's subject mentions the role
most of them take over the corpus; for a head such as *fmln* that is a role of *say*, not of
*attack*. Here the vote looks only at the event template, found without the keys: the template
whose mentions' predicates have the highest mean salience (``aesi_lib.model.salience``: how
much more the corpus uses a predicate than WordNet's sense-tagged corpora do; on MUC-4 the
template of *attack*, *kill*, *murder*). A head with at least n subject mentions that has at
least the share ρ of them in one subject role of that template gives that role to its other
subject mentions, in the documents that hold at least k mentions of the template. Objects and
obliques keep theirs. Diagnostic rows leave the head *mrta* out. One setting, "any more
salient template", lets a head vote for the most salient of the templates where it holds the
share ρ, when that template is more salient than the mention's own.

For each seed the default is solved as ``aesi run`` solves it and exported with its subject
merge; the vote is applied to the export's roles, and the run is scored as the sweep scores
it. The per-seed rows go to ``--rows``:

    .venv/bin/python -m experiments.salient_votes --project-dir .aesi \
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/salient-votes.csv

The project must hold a MUC-4 run of the default (``./scripts/run.sh``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import pandas as pd

from aesi_lib.entities.positions import ARGUMENT_POSITIONS
from aesi_lib.model.salience import predicate_salience
from experiments.head_votes import subject_roles
from experiments.muc4_inputs import default_exports, post_solve_inputs, report_rows, row_recorder

#: Least subject mentions of a head that votes.
LEAST_SUBJECTS = 20


@dataclass(frozen=True)
class Setting:
    """ρ, k, the heads left out, and whether any template more salient than the mention's
    own may win (else only the most salient template)."""

    share: float
    least_in_document: int
    left_out: tuple[str, ...] = ()
    any_more_salient: bool = False

    @property
    def name(self) -> str:
        where = ("the most salient of its templates" if self.any_more_salient
                 else "the event template")
        name = (f"subjects take their head's role in {where}, ρ {self.share:g}, "
                f"k {self.least_in_document}")
        return name + (f", without {', '.join(self.left_out)}" if self.left_out else "")


SETTINGS: tuple[Setting, ...] = (
    Setting(0.1, 3),
    Setting(0.15, 3),
    Setting(0.2, 3),
    Setting(0.25, 3),
    Setting(0.2, 1),
    Setting(0.2, 5),
    Setting(0.15, 3, ("mrta",)),
    Setting(0.2, 3, ("mrta",)),
    Setting(0.2, 3, (), True),
    Setting(0.2, 3, ("mrta",), True),
)


def template_salience(templates: np.ndarray, salience: np.ndarray, n_templates: int
                      ) -> np.ndarray:
    """The mean predicate salience of each template's mentions, shape (n_templates,); 0 for a
    template with none.

    Parameters
    ----------
    templates : ndarray of shape (E,), int
    salience : ndarray of shape (E,)
        The salience of each mention's predicate.
    n_templates : int
    """
    templates = np.asarray(templates, dtype=np.int64)
    total = np.bincount(templates, weights=salience, minlength=n_templates)
    count = np.bincount(templates, minlength=n_templates)
    return total / np.maximum(count, 1)


def salient_vote(heads: np.ndarray, documents: np.ndarray, templates: np.ndarray,
                 slots: np.ndarray, n_classes: int, salience: np.ndarray, setting: Setting,
                 least: int = LEAST_SUBJECTS) -> tuple[np.ndarray, np.ndarray]:
    """Each subject mention's role after the vote of :data:`Setting` (the module docstring).

    Parameters
    ----------
    heads, documents : ndarray of shape (E,)
        The lowercased head word and the document of every mention.
    templates, slots : ndarray of shape (E,), int
        The roles (-1 where a mention has none).
    n_classes : int
    salience : ndarray of shape (|T|,)
        Each template's salience (:func:`template_salience`).
    setting : Setting
    least : int
        n, the least subject mentions of a head that votes.

    Returns
    -------
    templates, slots : ndarray of shape (E,), int
    """
    templates = np.asarray(templates, dtype=np.int64)
    slots = np.asarray(slots, dtype=np.int64)
    documents = np.asarray(documents)
    subject, frame, counts = subject_roles(heads, templates, slots, n_classes)
    counts = counts[(counts["total"] >= least) & (counts["n"] >= setting.share * counts["total"])]
    counts = counts[~counts["head"].isin(setting.left_out)].copy()
    if not setting.any_more_salient:
        counts = counts[counts["template"] == int(np.argmax(salience))].copy()
    counts["salience"] = salience[counts["template"].to_numpy()]
    # A head's first row is its most salient role, then its commonest; ties go to the lower
    # (template, slot).
    winners = (counts.sort_values(["head", "salience", "n", "template", "slot"],
                                  ascending=[True, False, False, True, True])
               .drop_duplicates("head").set_index("head"))
    rows = np.flatnonzero(subject)
    voted = winners.reindex(frame["head"].to_numpy())
    moves = np.array(voted["template"].notna(), dtype=bool)
    won = voted["template"].fillna(0).to_numpy().astype(np.int64)
    moves &= salience[won] > salience[templates[rows]]
    in_document = pd.Series(1, index=pd.MultiIndex.from_arrays([documents, templates]))
    in_document = in_document.groupby(level=[0, 1]).sum()
    held = in_document.reindex(pd.MultiIndex.from_arrays([documents[rows], won])).fillna(0)
    moves &= held.to_numpy() >= setting.least_in_document
    new_templates, new_slots = templates.copy(), slots.copy()
    new_templates[rows[moves]] = won[moves]
    new_slots[rows[moves]] = voted["slot"].to_numpy()[moves].astype(np.int64)
    return new_templates, new_slots


def main(argv: list[str] | None = None) -> int:
    args, corpus, config, table, features = post_solve_inputs(
        "salient_votes", __doc__.split("\n\n")[0], argv)
    model = config.model
    n_classes = model.n_slots // len(ARGUMENT_POSITIONS)
    mention_salience = predicate_salience(features.predicate_ids,
                                          features.predicate_tagged_counts)[features.predicate_ids]
    rows: list[dict] = []
    record = row_recorder(corpus, rows)

    for seed, _result, base in default_exports(args.seeds, table, features, model, record):
        heads = base["head"].astype(str).str.lower().to_numpy()
        documents = base["doc_id"].to_numpy()
        templates, slots = base["template"].to_numpy(), base["slot"].to_numpy()
        salience = template_salience(templates, mention_salience, model.n_templates)
        for setting in SETTINGS:
            new_templates, new_slots = salient_vote(heads, documents, templates, slots,
                                                    n_classes, salience, setting)
            moved = (new_templates != templates) | (new_slots != slots)
            record(setting.name, seed, base.assign(template=new_templates, slot=new_slots),
                   float(np.mean(moved)))

    report_rows(rows, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
