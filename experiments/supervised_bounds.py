"""How far issue 48's levers could go if the keys chose the changes: the template moves and
slot merges that DEV's keys pick, greedily, and a document filter learned from them, scored
on TST1+TST2.

Every unsupervised form of lever (a) measured so far moves the mentions of some predicates,
patterns or head words into the event templates, everywhere or in the documents of the event,
and every form of lever (c) joins slots of a mapped template. Here DEV's keys choose such
changes themselves: at each step the one candidate that raises DEV's lenient F1 most, under the
mapping learned on DEV from the default's export, is made, until none raises it by
:data:`LEAST_GAIN` or 40 are made. A rule that sees no keys is not expected to choose better
than 1,300 keyed messages do, so what these changes give on TST1+TST2 is a yardstick of what a
family of levers can give there (greedy, so not a proof). The families:

- **predicates**: every mention of a predicate outside the templates the DEV mapping uses
  moves into one of them; it keeps its argument position and takes its head word's class in
  that template (the position's commonest class when the head has no mention there), a
  cheaper stand-in for the incident step's "nearest classes", which choose by W_H;
- **patterns**: the same for the mentions of one (predicate, argument position);
- **patterns in event documents**: the same, only in the documents that hold at least
  :data:`EVENT_DOCUMENT_MENTIONS` mentions of the template moved into (the incident forms of
  lever (a): a claim's subject in a document about an attack);
- **head words**: the same for the mentions of one (head word, argument position) (the form of
  the head votes);
- **slot merges**: every mention of a role slot of a mapped template moves into a mapped slot
  of the same template (lever (c)'s joins, any position and class);
- **predicates and slot merges**: both kinds in one search;
- **predicates, chosen on TST1+TST2**: the contrast, in-sample: the keys of the scored split
  choose, which shows how far the selection split alone can be fitted and what DEV then does.

The template moves never touch a mention of a mapped template, so they and the slot merges
change disjoint mentions.

Lever (b), document relevance, gets its own rows: a logistic regression on the TF-IDF of the
documents' words and word pairs, trained on whether DEV's keys give a message a relevant
incident (:func:`relevance_scores`). The mentions of a document whose score is below τ
predict nothing. τ is chosen on DEV, on scores out of 5 folds, as the τ of :data:`TAUS` that
gives DEV the highest F1 under the DEV mapping (:func:`filtered_f1`); rows at three fixed τ
show the neighbourhood.

Rows are recorded after up to 5, 10, 20 and 40 changes (fewer where the search stops). The
roles of a moved mention go through the export's own subject merge, and every row is scored as
the sweep scores it (the mapping learned again on DEV). ``DEV, mapped on DEV itself`` is
in-sample for every family but the last.

    .venv/bin/python -m experiments.supervised_bounds --project-dir .aesi \
        --seeds 0 1 2 3 4 5 6 7 8 9 --rows docs/experiments/supervised-bounds.csv

The project must hold a MUC-4 run of the default (``./scripts/run.sh``).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from aesi_lib.entities.positions import ARGUMENT_POSITIONS, argument_positions
from aesi_lib.evaluate.assignments import role_shape
from aesi_lib.evaluate.counting import count_message_slot, f1_score
from aesi_lib.evaluate.gold import GOLD_SLOTS, Gold, extract_gold, relevant_message_ids
from aesi_lib.evaluate.split import SplitIndex
from aesi_lib.model.config import ModelConfig
from aesi_lib.run.pipeline import labelled_export
from experiments.muc4_inputs import default_exports, post_solve_inputs, report_rows, row_recorder

#: The numbers of changes after which a row is recorded.
RECORDED_STEPS = (5, 10, 20, 40)
#: A document is an event document of a template when it holds at least this many of its
#: mentions (the incident step's and the salient votes' k).
EVENT_DOCUMENT_MENTIONS = 3
#: The thresholds τ of the relevance filter that DEV may choose from.
TAUS = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
#: The fixed τ of the relevance rows beside the one DEV chooses.
SHOWN_TAUS = (0.2, 0.3, 0.4)
#: Folds of the out-of-fold relevance scores of DEV.
RELEVANCE_FOLDS = 5
#: A change must raise the chooser's F1 by at least this much to be made.
LEAST_GAIN = 1e-4

Role = tuple[int, int]
#: One change: (mention rows, their new roles).
Change = tuple[np.ndarray, list[Role]]


class CellScorer:
    """TP / FP / FN of a split under a fixed role-to-gold-slot map, kept per (message, gold
    slot) so that a change of some mentions' roles is scored by recounting only the cells it
    touches. Each cell is counted by ``count_message_slot``, the direct reading of the
    protocol.

    Parameters
    ----------
    gold : dict
        ``extract_gold`` of the choosing split.
    role_slots : mapping of (template, slot) to set of str
        The gold slots each role feeds (the mapping).
    documents, heads : ndarray of shape (E,)
        Each mention's message and lowercased head word.
    roles : list of (int, int)
        Each mention's role.
    """

    def __init__(self, gold: Gold, role_slots: Mapping[Role, set[str]], documents: np.ndarray,
                 heads: np.ndarray, roles: list[Role]) -> None:
        self.gold, self.role_slots = gold, role_slots
        self.documents, self.heads, self.roles = documents, heads, list(roles)
        self.guesses: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for i in np.flatnonzero(np.isin(documents, list(gold))):
            for g in role_slots.get(self.roles[i], ()):
                self.guesses[(documents[i], g)][heads[i]] += 1
        self.cells = {(d, g): self._count(d, g, self.guesses[(d, g)])
                      for d in gold for g in GOLD_SLOTS}
        self.totals = np.sum(list(self.cells.values()), axis=0)

    def _count(self, document: str, gold_slot: str, guesses: Counter) -> np.ndarray:
        counts = count_message_slot([h for h, n in guesses.items() if n > 0],
                                    self.gold[document][gold_slot])
        return np.array([counts.tp, counts.fp, counts.fn])

    def f1(self, totals: np.ndarray | None = None) -> float:
        return float(f1_score(*(self.totals if totals is None else totals)))

    def _differences(self, change: Change) -> dict[tuple[str, str], Counter]:
        rows, new_roles = change
        out: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for i, new in zip(rows, new_roles, strict=True):
            if self.documents[i] not in self.gold:
                continue
            for g in self.role_slots.get(self.roles[i], ()):
                out[(self.documents[i], g)][self.heads[i]] -= 1
            for g in self.role_slots.get(new, ()):
                out[(self.documents[i], g)][self.heads[i]] += 1
        return out

    def gain(self, change: Change) -> float:
        """The F1 the change would give, minus the present F1."""
        totals = self.totals.copy()
        for cell, difference in self._differences(change).items():
            guesses = self.guesses[cell].copy()
            guesses.update(difference)
            totals += self._count(*cell, guesses) - self.cells[cell]
        return self.f1(totals) - self.f1()

    def apply(self, change: Change) -> None:
        """Make the change."""
        for cell, difference in self._differences(change).items():
            self.guesses[cell].update(difference)
            counts = self._count(*cell, self.guesses[cell])
            self.totals += counts - self.cells[cell]
            self.cells[cell] = counts
        for i, new in zip(*change, strict=True):
            self.roles[i] = new


def greedy_changes(scorer: CellScorer, candidates: Mapping[str, Change], steps: int
                   ) -> list[str]:
    """The names of the changes made, in order: at each step the candidate with the largest
    gain (ties: the first name in sorted order), while it gains at least :data:`LEAST_GAIN`.

    Only the candidates that gain on the starting labels are considered again, an
    approximation that keeps a step to a few hundred recounts: a candidate that would gain
    only after others are made is never made.
    """
    pool = sorted(name for name, change in candidates.items()
                  if scorer.gain(change) >= LEAST_GAIN)
    made: list[str] = []
    while len(made) < steps and pool:
        gains = [scorer.gain(candidates[name]) for name in pool]
        best = int(np.argmax(gains))
        if gains[best] < LEAST_GAIN:
            break
        name = pool.pop(best)
        scorer.apply(candidates[name])
        made.append(name)
    return made


@dataclass(frozen=True)
class Labels:
    """One seed's labels: the cut's templates and classes, and the export's role slots."""

    templates: np.ndarray
    cut_slots: np.ndarray
    role_slots: np.ndarray


def class_tables(labels: Labels, heads: np.ndarray, positions: np.ndarray, template: int,
                 n_classes: int) -> tuple[pd.Series, np.ndarray]:
    """What a mention moved into ``template`` takes there: each head word's commonest class in
    it (ties: the lower class), and each argument position's commonest class.

    Parameters
    ----------
    labels : Labels
    heads, positions : ndarray of shape (E,)
    template : int
    n_classes : int
        Classes per position (|S| / 4).

    Returns
    -------
    by_head : Series
        Class by head word.
    by_position : ndarray of shape (len(ARGUMENT_POSITIONS),)
    """
    inside = labels.templates == template
    classes = labels.cut_slots[inside] % n_classes
    counts = (pd.DataFrame({"head": heads[inside], "cls": classes})
              .value_counts().reset_index(name="n")
              .sort_values(["head", "n", "cls"], ascending=[True, False, True]))
    by_head = counts.drop_duplicates("head").set_index("head")["cls"]
    by_position = np.zeros(len(ARGUMENT_POSITIONS), dtype=np.int64)
    for position in range(len(ARGUMENT_POSITIONS)):
        held = classes[positions[inside] == position]
        if len(held):
            by_position[position] = int(np.bincount(held).argmax())
    return by_head, by_position


def nearest_class_slots(tables: tuple[pd.Series, np.ndarray], heads: np.ndarray,
                        positions: np.ndarray, n_classes: int) -> np.ndarray:
    """The cut slot each mention takes in a template (:func:`class_tables` of it): its own
    argument position crossed with its head word's class there, or the position's commonest
    class when the head has no mention there."""
    by_head, by_position = tables
    chosen = by_head.reindex(heads).to_numpy()
    fallback = by_position[positions]
    chosen = np.where(pd.isna(chosen), fallback, chosen).astype(np.int64)
    return positions * n_classes + chosen


def unit_candidates(units: np.ndarray, labels: Labels, heads: np.ndarray,
                    positions: np.ndarray, targets: Iterable[int], n_classes: int,
                    merge: Mapping[Role, int], allowed: Mapping[int, np.ndarray] | None = None,
                    suffix: str = "") -> dict[str, tuple[Change, np.ndarray]]:
    """Each (unit, target template) move of a template-move family: the change in role slots
    (for the search) and the new cut slots (for the export).

    Parameters
    ----------
    units : ndarray of shape (E,)
        Each mention's unit (its predicate, pattern or head word and position).
    labels : Labels
    heads, positions : ndarray of shape (E,)
    targets : iterable of int
        The templates the mapping uses. Mentions already in one of them never move.
    n_classes : int
    merge : mapping of (template, cut slot) to role slot
        The export's subject merge (a cut slot not in it is its own role).
    allowed : mapping of int to ndarray of shape (E,), bool, optional
        For each target template, the mentions that may move into it (default: all).
    suffix : str
        Added to each unit in the names.

    Returns
    -------
    dict
        ``"unit<suffix> -> template"`` to ((rows, new roles), new cut slots of the rows).
    """
    out = {}
    targets = sorted(targets)
    order = np.argsort(units, kind="stable")
    bounds = np.flatnonzero(np.r_[True, units[order][1:] != units[order][:-1], True])
    groups = {units[order[a]]: order[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)}
    outside = ~np.isin(labels.templates, targets)
    for template in targets:
        movable = outside if allowed is None else outside & allowed[template]
        tables = class_tables(labels, heads, positions, template, n_classes)
        for unit, rows in groups.items():
            rows = rows[movable[rows]]
            if not len(rows):
                continue
            cut = nearest_class_slots(tables, heads[rows], positions[rows], n_classes)
            roles = [(template, merge.get((template, s), s)) for s in cut.tolist()]
            out[f"{unit}{suffix} -> {template}"] = ((rows, roles), cut)
    return out


def event_documents(templates: np.ndarray, documents: np.ndarray, targets: Iterable[int],
                    least: int = EVENT_DOCUMENT_MENTIONS) -> dict[int, np.ndarray]:
    """For each target template, the mentions of the documents that hold at least ``least`` of
    its mentions, shape (E,) each."""
    out = {}
    for template in targets:
        held = pd.Series(templates == template).groupby(documents).transform("sum")
        out[template] = held.to_numpy() >= least
    return out


def merge_candidates(labels: Labels, targets: Iterable[int], mapped: Iterable[Role]
                     ) -> dict[str, Change]:
    """Each slot merge of the slot merges family: every mention of a role slot of a mapped
    template moves into a mapped role slot of the same template."""
    out = {}
    mapped = sorted(set(mapped))
    for template in targets:
        inside = np.flatnonzero(labels.templates == template)
        for slot in np.unique(labels.role_slots[inside]).tolist():
            rows = inside[labels.role_slots[inside] == slot]
            for t, into in mapped:
                if t == template and into != slot:
                    out[f"slot {template}:{slot} -> {template}:{into}"] = (
                        rows, [(template, into)] * len(rows))
    return out


def relevance_scores(texts: Sequence[str], train: np.ndarray, relevant: np.ndarray,
                     folds: int = RELEVANCE_FOLDS) -> np.ndarray:
    """Each document's score of relevance from a classifier trained on keyed documents.

    A logistic regression (C = 10) on the sublinear TF-IDF of words and word pairs seen in at
    least 3 training documents. The training documents get their score from the folds that do
    not hold them (stratified, in order, no shuffling); the others from the model of all of
    them.

    Parameters
    ----------
    texts : sequence of str
        Every document's text.
    train : ndarray of shape (n_documents,), bool
        The keyed documents the classifier learns from.
    relevant : ndarray of shape (n_documents,), bool
        Whether the keys give a document a relevant incident (read for ``train`` only).
    folds : int

    Returns
    -------
    ndarray of shape (n_documents,)
        Scores in [0, 1].
    """
    texts = np.asarray(texts, dtype=object)
    rows = np.flatnonzero(train)

    def fitted(fit_rows: np.ndarray) -> tuple[TfidfVectorizer, LogisticRegression]:
        vectorizer = TfidfVectorizer(min_df=3, sublinear_tf=True, ngram_range=(1, 2))
        model = LogisticRegression(C=10.0, max_iter=2000)
        model.fit(vectorizer.fit_transform(texts[fit_rows]), relevant[fit_rows])
        return vectorizer, model

    scores = np.zeros(len(texts))
    vectorizer, model = fitted(rows)
    scores[~train] = model.predict_proba(vectorizer.transform(texts[~train]))[:, 1]
    for fit, held in StratifiedKFold(folds).split(rows, relevant[rows]):
        vectorizer, model = fitted(rows[fit])
        scores[rows[held]] = model.predict_proba(vectorizer.transform(texts[rows[held]]))[:, 1]
    return scores


def filtered_f1(per_message: pd.DataFrame, kept: Mapping[str, bool]) -> float:
    """F1 when the messages not ``kept`` predict nothing: their true positives become misses
    and their false positives go.

    Parameters
    ----------
    per_message : DataFrame
        ``SplitIndex.per_message``: ``doc_id``, ``tp``, ``fp``, ``fn`` per message and slot.
    kept : mapping of str to bool
        Whether each message is kept (a message not in it is kept).
    """
    counts = per_message.groupby("doc_id")[["tp", "fp", "fn"]].sum()
    keep = np.array([bool(kept.get(d, True)) for d in counts.index])
    tp, fp = counts["tp"][keep].sum(), counts["fp"][keep].sum()
    fn = counts["fn"].sum() + counts["tp"][~keep].sum()
    return float(f1_score(tp, fp, fn))


@dataclass(frozen=True)
class Family:
    """One family of changes (the kinds of :func:`family_candidates` it draws on), and whether
    the keys of the scored split choose them instead of DEV's."""

    name: str
    kinds: tuple[str, ...]
    in_sample: bool = False


FAMILIES = (
    Family("predicates", ("predicates",)),
    Family("patterns", ("patterns",)),
    Family("patterns in event documents", ("event-document patterns",)),
    Family("head words", ("heads",)),
    Family("slot merges", ("merges",)),
    Family("predicates and slot merges", ("predicates", "merges")),
    Family("predicates, chosen on TST1+TST2", ("predicates",), in_sample=True),
)


def family_candidates(table: pd.DataFrame, heads: np.ndarray, documents: np.ndarray,
                      labels: Labels, targets: list[int], role_gold: Mapping[Role, set[str]],
                      n_classes: int) -> tuple[dict[str, dict], dict[str, Change]]:
    """Every kind's candidates: the template moves (by kind, as :func:`unit_candidates`) and
    the slot merges (:func:`merge_candidates`). ``heads`` and ``documents`` are each mention's
    lowercased head word and message."""
    positions = argument_positions(table["dep"].astype(str).tolist())
    predicates = table["predicate"].astype(str).to_numpy().astype(str)
    names = np.array(ARGUMENT_POSITIONS)[positions]
    patterns = np.char.add(np.char.add(predicates, ":"), names)
    head_positions = np.char.add(np.char.add(np.char.add("head ", heads.astype(str)), ":"), names)
    cut_roles = zip(labels.templates.tolist(), labels.cut_slots.tolist(), strict=True)
    merge = dict(zip(cut_roles, labels.role_slots.tolist(), strict=True))
    common = (labels, heads, positions, targets, n_classes, merge)
    moves = {
        "predicates": unit_candidates(predicates, *common),
        "patterns": unit_candidates(patterns, *common),
        "event-document patterns": unit_candidates(
            patterns, *common, allowed=event_documents(labels.templates, documents, targets),
            suffix=" in event documents"),
        "heads": unit_candidates(head_positions, *common),
    }
    return moves, merge_candidates(labels, targets, role_gold)


def export_after(base: pd.DataFrame, labels: Labels,
                 moves: Mapping[str, tuple[Change, np.ndarray]], merges: Mapping[str, Change],
                 made: Sequence[str], model: ModelConfig, table: pd.DataFrame) -> pd.DataFrame:
    """The export after the changes ``made``, in order: template moves change the cut's labels
    and go through the export's own subject merge; slot merges then change role slots."""
    templates, cut_slots = labels.templates.copy(), labels.cut_slots.copy()
    for name in made:
        if name in moves:
            (rows, roles), cut = moves[name]
            templates[rows] = roles[0][0]
            cut_slots[rows] = cut
    export = labelled_export(table, templates, cut_slots, model)
    slots = export["slot"].to_numpy().copy()
    for name in made:
        if name in merges:
            rows, roles = merges[name]
            slots[rows] = roles[0][1]
    return export.assign(slot=slots)


def main(argv: list[str] | None = None) -> int:
    args, corpus, config, table, features = post_solve_inputs(
        "supervised_bounds", __doc__.split("\n\n")[0], argv)
    model = config.model
    n_classes = model.n_slots // len(ARGUMENT_POSITIONS)
    heads = table["head"].astype(str).str.strip().str.lower().to_numpy()
    documents = table["doc_id"].astype(str).to_numpy()
    dev_gold, tst_gold = extract_gold(corpus.map_keys), extract_gold(corpus.eval_keys)
    texts = {d.doc_id: d.text for d in corpus.documents}
    names = sorted(texts)
    relevance = dict(zip(names, relevance_scores(
        [texts[d] for d in names], np.isin(names, list(dev_gold)),
        np.isin(names, list(relevant_message_ids(corpus.map_keys)))), strict=True))
    rows: list[dict] = []
    record = row_recorder(corpus, rows)

    for seed, result, base in default_exports(args.seeds, table, features, model, record):
        templates = np.asarray(result.template_labels, dtype=np.int64)
        cut_slots = np.asarray(result.slot_labels, dtype=np.int64)
        labels = Labels(templates, cut_slots, base["slot"].to_numpy().astype(np.int64))
        dev_split = SplitIndex(base, corpus.map_keys, "lenient", role_shape(base))
        mapping = dev_split.learn_mapping()
        role_gold: dict[Role, set[str]] = defaultdict(set)
        for t, s, g in mapping:
            role_gold[(t, s)].add(g)
        targets = sorted({t for t, _, _ in mapping})
        moves, merges = family_candidates(table, heads, documents, labels, targets, role_gold,
                                          n_classes)
        template_moves = {name: move for kind in moves.values() for name, move in kind.items()}
        roles = list(zip(templates.tolist(), labels.role_slots.tolist(), strict=True))
        for family in FAMILIES:
            candidates: dict[str, Change] = {}
            for kind in family.kinds:
                candidates.update(merges if kind == "merges"
                                  else {k: v[0] for k, v in moves[kind].items()})
            scorer = CellScorer(tst_gold if family.in_sample else dev_gold, role_gold,
                                documents, heads, roles)
            made = greedy_changes(scorer, candidates, max(RECORDED_STEPS))
            print(f"seed {seed}  {family.name}: {', '.join(made[:10])}"
                  f"{' ...' if len(made) > 10 else ''}", flush=True)
            for steps in RECORDED_STEPS:
                export = export_after(base, labels, template_moves, merges, made[:steps], model,
                                      table)
                changed = float(np.mean(
                    (export["template"].to_numpy() != base["template"].to_numpy())
                    | (export["slot"].to_numpy() != base["slot"].to_numpy())))
                record(f"{family.name}, up to {steps} changes chosen on "
                       f"{'TST1+TST2' if family.in_sample else 'DEV'}'s keys", seed, export,
                       changed)
        dev_messages = dev_split.per_message(mapping)
        chosen = max(TAUS, key=lambda tau: (filtered_f1(
            dev_messages, {d: relevance[d] >= tau for d in dev_gold}), -tau))
        print(f"seed {seed}  relevance: τ {chosen:g} chosen on DEV", flush=True)
        for tau, name in [(chosen, "τ chosen on DEV"), *((t, f"τ {t:g}") for t in SHOWN_TAUS)]:
            kept = np.array([relevance[d] >= tau for d in base["doc_id"]])
            record(f"relevance, a classifier trained on DEV's keys, {name}", seed, base[kept],
                   float(np.mean([relevance[d] < tau for d in names])))

    report_rows(rows, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
