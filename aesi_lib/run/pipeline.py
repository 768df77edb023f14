"""The functions the steps of a run call (``aesi_lib.steps``, composed in
``aesi_lib.steps.graph``): the entity rules and lexicon of a configuration, the solve, the
export, the placement and filling of new mentions, the events and what a person reads, the
evaluation. Every function here is usable from a notebook.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.corpus.types import KeyTemplate
from aesi_lib.entities.entity_table import document_mention_ids
from aesi_lib.entities.rules import DEFAULT_RULES, EntityRules
from aesi_lib.events.kinds import TemplateKind
from aesi_lib.events.schema import EventSchema
from aesi_lib.files import writing
from aesi_lib.model.carry import PreviousLabels, label_changes
from aesi_lib.model.config import ModelConfig
from aesi_lib.model.features import EntityFeatures, FeatureVocabulary, build_features
from aesi_lib.model.induction import InductionResult, induce
from aesi_lib.model.parts import DEFAULT_PARTS, ModelParts
from aesi_lib.model.solution_files import SolutionLabels
from aesi_lib.model.subject_merge import SUBJECT_MERGE_COSINE, merged_slots, subject_merge_table
from aesi_lib.run.config import RunConfig
from aesi_lib.run.reading import RunReading, load_reading, save_reading
from aesi_lib.run.roles import Role, template_name, template_roles

log = logging.getLogger("aesi")

#: The export (evaluation.md's columns, then the mention's character span in its document).
EXPORT_COLUMNS = ["doc_id", "sent_id", "entity_id", "head", "mention", "predicate", "dep",
                  "template", "slot", "start_char", "end_char", "phrase", "proper"]


def entity_rules(config: RunConfig) -> EntityRules:
    """The entity rules of a run's configuration: the defaults, with R12's event-noun lexicon
    when ``features.event_nouns`` (WordNet from ``wordnet_path``, or NLTK's or the system's;
    its senses as ``features.event_noun_senses`` chooses),
    R14 when ``features.support_verbs``, R15 when
    ``features.agentive_modifiers`` and R16 when ``features.attribution_verbs``.
    Ingest, ``aesi update`` and ``aesi extract`` all take their rules from here.

    Without ``wordnet_path`` and without a WordNet on the machine, R12 is left out with a
    warning (no head has a semantic type then either, :func:`load_lexicon`); the store records
    which rules made its rows, so installing WordNet later re-extracts them.

    Raises
    ------
    ResourceMissingError
        With ``features.event_nouns`` and a ``wordnet_path`` that holds no WordNet.
    """
    rules = dataclasses.replace(DEFAULT_RULES, **config.features.entity_rule_switches())
    if not config.features.event_nouns:
        return rules
    from aesi_lib.entities.event_nouns import EventNounLexicon

    wordnet = optional_wordnet(config.wordnet_path,
                               "entity rule R12 (features.event_nouns) is left out")
    if wordnet is None:
        return rules
    return dataclasses.replace(
        rules, event_nouns=EventNounLexicon(wordnet, config.features.event_noun_senses))


def load_lexicon(config: RunConfig) -> tuple[Any, Any]:
    """Word vectors and WordNet (None with a warning when WordNet is not installed:
    :func:`optional_wordnet`)."""
    from aesi_lib.lexicon.vectors import load_vectors

    vectors = load_vectors(config.vectors_path)
    wordnet = optional_wordnet(
        config.wordnet_path, "no head has a semantic type and no predicate is salient "
        "(model.similarity.salience_weight adds nothing)")
    return vectors, wordnet


def optional_wordnet(wordnet_path: str | None, without: str) -> Any:
    """WordNet from ``wordnet_path``, else NLTK's or the system's
    (:func:`aesi_lib.lexicon.wordnet.load_wordnet`); None when no path is given and the
    machine has none, with the warning ``WordNet unavailable, <without>: <why>``.

    Parameters
    ----------
    wordnet_path : the run's ``wordnet_path``, or None for the machine's WordNet.
    without : what the run goes without when there is none (for the warning).

    Raises
    ------
    ResourceMissingError
        ``wordnet_path`` is given and holds no WordNet: a path the user chose never falls
        back.
    """
    from aesi_lib.errors import ResourceMissingError
    from aesi_lib.lexicon.wordnet import load_wordnet

    try:
        return load_wordnet(wordnet_path)
    except ResourceMissingError as exc:
        if wordnet_path:
            raise
        log.warning("WordNet unavailable, %s: %s", without, exc)
        return None


def run_induction(features: EntityFeatures, config: RunConfig | ModelConfig,
                  progress: Callable[[int, dict[str, Any]], None] | None = None,
                  previous: PreviousLabels | None = None,
                  on_stage: Callable[[str, int, int], None] | None = None,
                  parts: ModelParts = DEFAULT_PARTS) -> InductionResult:
    """:func:`aesi_lib.model.induction.induce` under the run's model configuration (a whole
    ``RunConfig`` or its ``ModelConfig``); ``previous`` warm-starts it from an earlier
    solution's labels (``aesi_lib.model.carry``, whose ``carry_ids`` then carries their ids);
    ``on_stage`` is told as each part of the solve starts; ``parts``: an experiment's variant
    of the model's parts (``aesi_lib.model.parts``)."""
    model = config.model if isinstance(config, RunConfig) else config
    return induce(features, model, progress=progress, previous=previous, on_stage=on_stage,
                  parts=parts)


def assignments_frame(table: pd.DataFrame, result: InductionResult) -> pd.DataFrame:
    """The export (evaluation.md) of a solve: :func:`labelled_export` of its labels."""
    return labelled_export(table, result.template_labels, result.slot_labels, result.config)


def labelled_export(table: pd.DataFrame, templates: np.ndarray, slots: np.ndarray,
                    model: ModelConfig, kept_roles: np.ndarray | None = None
                    ) -> pd.DataFrame:
    """The export (evaluation.md): one row per entity mention of ``table`` (in its order) with
    its template and its role's slot (:func:`role_slots` of the cut's ``slots``, under the
    :func:`role_table` of these labels, or ``kept_roles``: the table an update kept from the
    solution it placed into, ``SolutionLabels.role_table``)."""
    templates = np.asarray(templates, dtype=np.int64)
    frame = table[["doc_id", "sent_id", "head", "mention", "predicate", "dep",
                   "start_char", "end_char", "phrase", "proper"]].copy()
    frame["entity_id"] = document_mention_ids(table)
    frame["template"] = templates
    roles = kept_roles if kept_roles is not None else role_table(
        templates, slots, table["predicate"].to_numpy(), model)
    frame["slot"] = role_slots(templates, slots, roles)
    return frame[EXPORT_COLUMNS]


def role_table(templates: np.ndarray, slots: np.ndarray, predicates: np.ndarray,
               model: ModelConfig, threshold: float = SUBJECT_MERGE_COSINE
               ) -> np.ndarray | None:
    """The slot of each (template, cut slot) pair's role in a labelled corpus: under factored
    slots, the subject slots merged by their predicate profiles at the least cosine
    ``threshold`` (``aesi_lib.model.subject_merge``); None (every slot its own role) for cut
    slots."""
    if model.slot_model != "factored":
        return None
    return subject_merge_table(templates, slots, predicates, model.n_templates, model.n_slots,
                               threshold)


def solution_role_table(labels: SolutionLabels, features: EntityFeatures,
                        vocabulary: FeatureVocabulary, model: ModelConfig) -> np.ndarray | None:
    """The :func:`role_table` a solution's export used: the one it kept from the solution an
    update placed into (``labels.role_table``), else that of its own labels over its
    mentions' predicates (``features``, ``vocabulary``: the features it was solved or placed
    on)."""
    if labels.role_table is not None:
        return labels.role_table
    predicates = np.asarray(vocabulary.predicates, dtype=object)[features.predicate_ids]
    return role_table(labels.template, labels.slot, predicates, model)


def role_slots(templates: np.ndarray, slots: np.ndarray, table: np.ndarray | None
               ) -> np.ndarray:
    """The role slot of each mention under a :func:`role_table` (the cut's slot with None)."""
    slots = np.asarray(slots, dtype=np.int64)
    return slots if table is None else merged_slots(templates, slots, table)


def fill_documents(entities: pd.DataFrame, train: EntityFeatures,
                   train_vocab: FeatureVocabulary, labels: SolutionLabels, config: RunConfig,
                   sentences: pd.DataFrame | None = None,
                   context_cache: str | Path | None = None, roles: bool = True
                   ) -> pd.DataFrame:
    """The export of new documents filled with a finished run's schema, by the run's own rule
    (:func:`aesi_lib.model.extract.fill_slots`): ``aesi extract``'s and the Python API's.

    Parameters
    ----------
    entities : DataFrame
        The new documents' entity table
        (:func:`aesi_lib.entities.entity_table.unstored_entity_table`).
    train, train_vocab : EntityFeatures, FeatureVocabulary
        The run's features.
    labels : SolutionLabels
        The run's templates and slots.
    config : RunConfig
        The run's configuration.
    sentences : DataFrame, optional
        The new documents' sentence rows (``aesi_lib.store.database.parse_frames``); needed
        with ``features.context``, whose vectors come from the function the run used.
    context_cache : path, optional
        The per-document vector cache (a temporary folder when None).
    roles : bool
        The ``slot`` column holds each mention's role slot, under the :func:`role_table` of
        the run's labels (True), or the cut's slot, what a labels file stores (False).

    Returns
    -------
    DataFrame
        :data:`EXPORT_COLUMNS` with each label's similarity score (``template_score``,
        ``slot_score``, of the cut's slot) and the rule that chose it (``template_rule``,
        ``slot_rule``: ``unit``, a unit the run has seen, or ``similarity``).

    Raises
    ------
    ValueError
        When the documents hold no entity mention, or the run uses context vectors and no
        sentences are given.
    """
    from aesi_lib.model.extract import fill_slots

    if entities.empty:
        raise ValueError("the new documents hold no entity mentions: nothing to fill")
    vectors, wordnet = load_lexicon(config)
    empty_pmi = pd.DataFrame({"word1": [], "word2": [], "pmi": []})
    new, new_vocab = build_features(entities, empty_pmi, vectors, wordnet, config.features)
    if config.features.context:
        from aesi_lib.lexicon.encoder import run_encoder
        from aesi_lib.lexicon.mention_context import mention_context_vectors

        if sentences is None:
            raise ValueError("the run uses context vectors: the new documents' sentences are "
                             "needed")
        with contextlib.ExitStack() as stack:
            cache = context_cache or stack.enter_context(tempfile.TemporaryDirectory())
            context = mention_context_vectors(
                entities, sentences, run_encoder(config.features, config.vectors_path), cache)
        new = dataclasses.replace(new, **context.feature_arrays())
    fill = fill_slots(train, train_vocab, labels.template, labels.slot, new, new_vocab,
                      config.model)
    slot = fill.slot
    if roles:
        # The roles of the run's own corpus, not of these documents.
        slot = role_slots(fill.template, fill.slot,
                          solution_role_table(labels, train, train_vocab, config.model))
    rows = np.arange(len(entities))
    frame = entities.assign(entity_id=document_mention_ids(entities), template=fill.template,
                            slot=slot)[EXPORT_COLUMNS]
    return frame.assign(
        template_score=fill.template_scores[rows, fill.template],
        slot_score=fill.slot_scores[rows, fill.slot],
        template_rule=np.where(fill.template_known, "unit", "similarity"),
        slot_rule=np.where(fill.slot_known, "unit", "similarity"))


def place_new_mentions(table: pd.DataFrame, previous: PreviousLabels,
                       train: EntityFeatures, train_vocab: FeatureVocabulary,
                       train_labels: SolutionLabels, config: RunConfig,
                       sentences: pd.DataFrame | None = None,
                       context_cache: str | Path | None = None
                       ) -> tuple[SolutionLabels, dict[str, int]]:
    """An update that keeps the schema: the mentions the previous solution had keep their
    template and slot, and the others (of new or changed documents) are placed into it by the
    rule of ``aesi extract`` (:func:`fill_documents`), without solving again.

    Parameters
    ----------
    table : DataFrame
        The current entity table (every stored document), in model order.
    previous : PreviousLabels
        The previous solution's labels of ``table``'s mentions
        (:func:`aesi_lib.model.carry.previous_labels`; -1 for a mention it did not have).
    train, train_vocab, train_labels
        The previous solution's features and labels, of its own entity table.
    config : RunConfig
        The configuration of both (the same digest: another one solves again).
    sentences : DataFrame, optional
        The sentence rows of the documents of the new mentions (needed with
        ``features.context``).
    context_cache : path, optional
        The per-document vector cache.

    Returns
    -------
    labels : SolutionLabels
        Of every mention of ``table``; a consensus member's template of a new mention is the
        template it was placed in; the role table is the previous solution's (its own, or the
        one it kept), so that the export gives every old mention its role slot again.
    counts : dict
        How many previous mentions kept their ids (all of them), counted as the ids step
        counts them (:func:`aesi_lib.model.carry.label_changes`).
    """
    known = previous.known
    template = previous.template.copy()
    slot = previous.slot.copy()
    members = None if previous.template_members is None else previous.template_members.copy()
    if (~known).any():
        new = table.loc[~known].reset_index(drop=True)
        filled = fill_documents(new, train, train_vocab, train_labels, config,
                                sentences=sentences, context_cache=context_cache, roles=False)
        template[~known] = filled["template"].to_numpy()
        slot[~known] = filled["slot"].to_numpy()
        if members is not None:
            members[:, ~known] = filled["template"].to_numpy()
    roles = solution_role_table(train_labels, train, train_vocab, config.model)
    return (SolutionLabels(template, slot, members, roles),
            label_changes(template, slot, previous))


def write_export(assignments: pd.DataFrame, out_dir: str | Path, name: str = "assignments"
                 ) -> dict[str, str]:
    """Write ``<name>.csv`` and ``<name>.parquet`` in ``out_dir``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    csv_path, parquet_path = out / f"{name}.csv", out / f"{name}.parquet"
    with writing(csv_path):
        assignments.to_csv(csv_path, index=False)
    with writing(parquet_path):
        assignments.to_parquet(parquet_path, index=False)
    return {"csv": str(csv_path), "parquet": str(parquet_path)}


def write_schema(assignments: pd.DataFrame, out_dir: str | Path,
                 roles: list[Role] | None = None,
                 kinds: dict[int, TemplateKind] | None = None) -> dict[str, str]:
    """``schema.json`` (:func:`aesi_lib.run.outputs.schema_summary`: every template and slot
    with its role, and each template's kind with its evidence) and ``schema.md``
    (:func:`aesi_lib.run.outputs.schema_markdown`: the roles as a person reads them) in
    ``out_dir``; returns ``{"schema", "schema_md"}``."""
    from aesi_lib.run.outputs import schema_markdown, schema_summary

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    schema = schema_summary(assignments, roles=roles, kinds=kinds)
    with writing(out / "schema.json"):
        (out / "schema.json").write_text(json.dumps(schema, indent=1))
    with writing(out / "schema.md"):
        (out / "schema.md").write_text(schema_markdown(schema), encoding="utf-8")
    return {"schema": str(out / "schema.json"), "schema_md": str(out / "schema.md")}


def run_schema(assignments: pd.DataFrame) -> tuple[list[Role], dict[int, str]]:
    """The roles (:func:`aesi_lib.run.roles.template_roles`) and the template names
    (:func:`aesi_lib.run.roles.template_name`) of a run's export: what its schema files and
    the events of its documents, and of new documents filled with it, read."""
    names = {int(t): template_name(rows["predicate"])
             for t, rows in assignments.groupby("template")}
    return template_roles(assignments), names


def run_event_schema(assignments: pd.DataFrame, wordnet_path: str | None) -> EventSchema:
    """The event schema (:func:`aesi_lib.events.schema.event_schema`) of a run's whole
    export, with the run's WordNet (None with a warning when the machine has none: then every
    template is an event template)."""
    from aesi_lib.events.schema import event_schema

    wordnet = optional_wordnet(wordnet_path, "every template counts as an event template "
                               "and names keep their titles")
    return event_schema(assignments, wordnet)


def run_reading(run_export: pd.DataFrame, wordnet_path: str | None) -> RunReading:
    """What the events and the schema files read of the run whose whole export is
    ``run_export`` (``aesi_lib.run.reading``): its event schema (:func:`run_event_schema`,
    with the run's WordNet), roles and template names (:func:`run_schema`)."""
    from aesi_lib.events.schema import completed_export

    roles, names = run_schema(completed_export(run_export))
    return RunReading(run_event_schema(run_export, wordnet_path), roles, names)


def kept_run_reading(path: str | None, run_export_path: str, wordnet_path: str | None
                     ) -> RunReading:
    """The reading a run's ``events`` step kept at ``path`` (``save_events``), with the
    title test of the run's WordNet; :func:`run_reading` of its export at
    ``run_export_path`` when there is none (a run made before readings were kept)."""
    if path and Path(path).is_file():
        wordnet = optional_wordnet(wordnet_path, "names keep their titles")
        return load_reading(path, wordnet.is_person_noun if wordnet is not None else None)
    return run_reading(pd.read_parquet(run_export_path), wordnet_path)


def document_event_rows(assignments: pd.DataFrame, reading: RunReading) -> pd.DataFrame:
    """The incidents of the documents of ``assignments`` (``aesi_lib.events.incidents``),
    read with the event schema, roles and template names of a run (:func:`run_reading` of
    its whole export: ``assignments`` itself for a run's own documents)."""
    from aesi_lib.events.incidents import event_rows

    return event_rows(assignments, reading.events, reading.roles, reading.names)


def write_events(rows: pd.DataFrame, out_dir: str | Path, name: str = "events"
                 ) -> dict[str, str]:
    """The event rows of :func:`document_event_rows` as ``<name>.jsonl`` and
    ``<name>.parquet`` in ``out_dir``."""
    from aesi_lib.events.incidents import write_events as write_event_files

    return write_event_files(rows, out_dir, name)


def save_events(rows: pd.DataFrame, reading: RunReading, files: dict[str, str]) -> None:
    """Keep a run's event rows (``files["rows"]``, parquet) and its reading
    (``files["reading"]``, JSON: ``aesi_lib.run.reading``) for :func:`load_events`."""
    Path(files["rows"]).parent.mkdir(parents=True, exist_ok=True)
    with writing(files["rows"]):
        rows.to_parquet(files["rows"], index=False)
    save_reading(reading, files["reading"])


def load_events(files: dict[str, str]) -> tuple[pd.DataFrame, RunReading]:
    """The event rows and the reading :func:`save_events` kept (without the title test,
    which the files a person reads do not need)."""
    return pd.read_parquet(files["rows"]), load_reading(files["reading"])


def write_readable(assignments: pd.DataFrame, rows: pd.DataFrame, reading: RunReading,
                   out_dir: str | Path) -> dict[str, str]:
    """Everything a person reads beside a run's export: :func:`write_schema` of
    ``assignments`` with the roles and template kinds of its ``reading``, and
    :func:`write_events` of its event ``rows``; returns the paths (``schema``, ``schema_md``,
    ``events``, ``events_parquet``)."""
    paths = write_schema(assignments, out_dir, roles=reading.roles,
                         kinds=reading.events.kinds)
    written = write_events(rows, out_dir)
    return {**paths, "events": written["jsonl"], "events_parquet": written["parquet"]}


def evaluate_assignments(assignments: pd.DataFrame, eval_keys: Sequence[KeyTemplate],
                         map_keys: Sequence[KeyTemplate] | None = None
                         ) -> dict[str, Any]:
    """The score grid of ``aesi_lib.evaluate.grid`` as ``results.json`` stores it:
    ``"<mode>/<matcher>"`` entries for {test-mapped, dev-mapped} × {lenient, strict}, each with
    its bounds, and ``"recall_ceiling/<matcher>"``."""
    from aesi_lib.evaluate import score_grid

    return score_grid(assignments, eval_keys, map_keys).to_dict()
