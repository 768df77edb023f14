"""The Python API: induce a schema in a few lines, in a notebook, without Prefect.

::

    from aesi_lib import SchemaInducer

    model = SchemaInducer(preset="default").fit(documents)   # strings, (id, text) pairs, a path
    model.schema_        # one row per (template, slot): its role, position, share, words
    model.events_        # one row per filler of each document's incidents
    model.transform(new_documents)                           # the events of new documents
    model.save("my-schema"); model = SchemaInducer.load("my-schema")

:class:`SchemaInducer` runs the step graph ``aesi run`` runs (``aesi_lib.steps.graph``, in
this process): the same parse, entity rules, features, solve and events, and for new documents
the extraction rule of ``aesi extract``, so a notebook and the command line give the same
labels for the same documents, configuration and seed.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from aesi_lib.corpus.types import Document
from aesi_lib.errors import InputError

#: The files of a saved model folder.
_CONFIG, _FEATURES, _LABELS, _ASSIGNMENTS = ("config.json", "features.npz", "labels.npz",
                                             "assignments.parquet")


def as_documents(documents: Any, split: str = "user", keep_non_english: bool = False
                 ) -> list[Document]:
    """The documents a user hands over, as :class:`~aesi_lib.corpus.types.Document`.

    Parameters
    ----------
    documents : str or path, or iterable
        A folder of ``.txt`` files or a ``.jsonl`` file (read as ``aesi run --docs`` reads
        it: each file in its own encoding, documents that are not English left out with a
        warning), or an iterable of texts (ids ``doc-00001``, ...), of ``(id, text)`` pairs or
        of Documents (taken as they are, whatever their language).
    split : str
        The split name given to them.
    keep_non_english : bool
        Keep the documents of a folder or JSONL file that are not English
        (``aesi run --keep-non-english``).

    Returns
    -------
    list of Document
        Each text normalised as the readers do
        (:func:`aesi_lib.corpus.plain.user_document`), so spans index the text as given.

    Raises
    ------
    InputError
        For an empty collection, an empty text, a duplicate id or an item of another kind.
    """
    from aesi_lib.corpus.plain import read_plain_documents, user_document

    if isinstance(documents, str | Path):
        return read_plain_documents(documents, split=split,
                                    keep_non_english=keep_non_english)
    out: list[Document] = []
    for number, item in enumerate(documents):
        if isinstance(item, Document):
            out.append(item)
            continue
        if isinstance(item, str):
            doc_id, text = f"doc-{number + 1:05d}", item
        elif isinstance(item, tuple | list) and len(item) == 2:
            doc_id, text = str(item[0]), item[1]
        else:
            raise InputError(f"document {number}", "expected a text, an (id, text) pair or a "
                             f"Document, got {type(item).__name__}")
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"document {doc_id!r}", "empty text")
        out.append(user_document(doc_id, text, split))
    if not out:
        raise InputError("documents", "no documents given")
    ids = [d.doc_id for d in out]
    if len(set(ids)) != len(ids):
        duplicate = next(i for i in ids if ids.count(i) > 1)
        raise InputError(f"document {duplicate!r}", "duplicate id")
    return out


class SchemaInducer:
    """Induce event templates and their slots from documents (Sha et al., NAACL 2016).

    Parameters
    ----------
    preset : str
        The configuration to start from (``aesi_lib.run.presets``: ``default``,
        ``reproduction``, ...).
    seed : int
        The seed of the solve: the same seed gives the same labels on any machine.
    config : dict, optional
        Settings merged over the preset, nested as a ``--config`` file
        (``{"model": {"n_templates": 25}}``); checked before any work.
    cache_dir : path, optional
        Where parses and sentence vectors are cached (both keyed by text and recipe, so any
        number of models can share it); default ``<aesi's cache root>/notebook``.
    keep_non_english : bool
        Keep the documents of a folder or JSONL file given to :meth:`fit` or
        :meth:`transform` that are not English, which are otherwise left out with a warning
        (``aesi run --keep-non-english``; :func:`as_documents`).

    Attributes
    ----------
    config_ : RunConfig
        The configuration the model was fitted with.
    assignments_ : DataFrame
        The export of the fitted documents: one row per entity mention
        (``aesi_lib.run.pipeline.EXPORT_COLUMNS``).
    schema_ : DataFrame
        One row per (template, slot): ``template``, ``template_name``, ``slot``,
        ``position``, ``predicates``, ``heads``, ``mentions``, ``share``, ``minor`` and
        ``description`` (``aesi_lib.run.roles``), templates by decreasing size.
    events_ : DataFrame
        The fitted documents' incidents, one row per filler
        (``aesi_lib.events.incidents.EVENT_COLUMNS``).

    References
    ----------
    .. [1] L. Sha, S. Li, B. Chang and Z. Sui, "Joint Learning Templates and Slots for Event
       Schema Induction", NAACL 2016.
    """

    def __init__(self, preset: str = "default", *, seed: int = 0,
                 config: dict[str, Any] | None = None,
                 cache_dir: str | Path | None = None, keep_non_english: bool = False
                 ) -> None:
        from aesi_lib.lexicon.cache import resolve_cache_dir
        from aesi_lib.run.config import RunConfig
        from aesi_lib.run.presets import deep_merge
        from aesi_lib.run.presets import preset as named_preset

        settings = deep_merge(named_preset(preset), config or {})
        settings = deep_merge(settings, {"model": {"seed": seed}})
        self.preset = preset
        self.seed = seed
        self.config = config
        self.cache_dir = Path(cache_dir) if cache_dir else resolve_cache_dir() / "notebook"
        self.keep_non_english = keep_non_english
        self._run_config = RunConfig.from_dict(settings)
        self._fitted: dict[str, Any] | None = None

    def fit(self, documents: Any) -> SchemaInducer:
        """Induce the schema of ``documents`` (see :func:`as_documents` for what they may be).

        The documents go through the step graph of ``aesi run --fresh``
        (``aesi_lib.steps.graph``: ingest, features, the solve, the export and the events), in
        this process, in a project in a temporary folder (its DuckDB store, where PMI is
        counted, tables, features and solution) that is removed afterwards; parses and
        sentence vectors stay in ``cache_dir``.

        Returns
        -------
        SchemaInducer
            ``self``, fitted.
        """
        from aesi_lib.model.feature_files import load_features
        from aesi_lib.model.solution_files import load_labels
        from aesi_lib.run import pipeline
        from aesi_lib.steps.executor import Executor
        from aesi_lib.steps.graph import Project, ingest, model_steps

        config = self._run_config
        docs = as_documents(documents, keep_non_english=self.keep_non_english)
        with tempfile.TemporaryDirectory(prefix="aesi-fit-") as folder:
            project = Project.at(folder, caches=self.cache_dir)
            steps = Executor()
            ingest(docs, config, project, steps)
            artifacts = model_steps(project, sorted(d.doc_id for d in docs), config,
                                    str(Path(folder) / "out"), steps)
            assignments = pd.read_parquet(artifacts["assignments_parquet"])
            features, vocab = load_features(artifacts["features"])
            # The events step's reading, with the title test of the run's WordNet (what
            # transform reads new documents with).
            reading = pipeline.kept_run_reading(artifacts["event_reading"],
                                                artifacts["assignments_parquet"],
                                                config.wordnet_path)
            events = (pd.read_parquet(artifacts["events_parquet"]), reading)
            self._set_fitted(assignments, features, vocab, load_labels(artifacts["labels"]),
                             events)
        return self

    def _set_fitted(self, assignments: pd.DataFrame, features: Any, vocab: Any,
                    labels: Any, events: tuple[pd.DataFrame, Any] | None = None) -> None:
        """Keep a fitted model: its export, features, labels and what a person reads of them;
        ``events`` (the event rows and the reading of the run's events step) when the graph
        made them, else made here by the same functions."""
        from aesi_lib.run import pipeline
        from aesi_lib.run.roles import roles_frame

        if events is None:
            reading = pipeline.run_reading(assignments, self._run_config.wordnet_path)
            rows = pipeline.document_event_rows(assignments, reading)
        else:
            rows, reading = events
        kinds = reading.events.kinds
        schema = roles_frame(reading.roles)
        schema.insert(1, "template_name", schema["template"].map(reading.names))
        schema.insert(2, "template_kind",
                      schema["template"].map(lambda t: kinds[int(t)].kind))
        self._fitted = {"assignments": assignments, "features": features, "vocab": vocab,
                        "labels": labels, "roles": reading.roles, "names": reading.names,
                        "schema": schema, "reading": reading, "events": rows}

    def _state(self, name: str) -> Any:
        if self._fitted is None:
            raise AttributeError(f"{name}: this SchemaInducer is not fitted yet; call fit() "
                                 "or SchemaInducer.load()")
        return self._fitted[name.rstrip("_")]

    @property
    def config_(self) -> Any:
        self._state("assignments_")
        return self._run_config

    @property
    def assignments_(self) -> pd.DataFrame:
        return self._state("assignments_")

    @property
    def schema_(self) -> pd.DataFrame:
        return self._state("schema_")

    @property
    def events_(self) -> pd.DataFrame:
        return self._state("events_")

    def transform(self, documents: Any) -> pd.DataFrame:
        """The incidents of new documents, filled with the fitted schema by the rule of
        ``aesi extract`` (``aesi_lib.model.extract``), without solving again.

        Returns
        -------
        DataFrame
            One row per filler (``aesi_lib.events.incidents.EVENT_COLUMNS``), the templates and
            roles those of the fitted schema.
        """
        from aesi_lib.entities.entity_table import document_entities, unstored_entity_table
        from aesi_lib.parse.backends import make_parser
        from aesi_lib.parse.cache import parse_with_cache
        from aesi_lib.run import pipeline
        from aesi_lib.store.database import parse_frames

        features = self._state("features_")
        config = self._run_config
        docs = as_documents(documents, keep_non_english=self.keep_non_english)
        parses, _ = parse_with_cache(make_parser(config.parser), docs,
                                     self.cache_dir / "parse-cache")
        entities = unstored_entity_table(
            [document_entities(parses, docs, pipeline.entity_rules(config))])
        sentences, _ = parse_frames(parses)
        filled = pipeline.fill_documents(entities, features, self._fitted["vocab"],
                                         self._fitted["labels"], config, sentences=sentences,
                                         context_cache=self.cache_dir / "context-vectors")
        return pipeline.document_event_rows(filled, self._fitted["reading"])

    def save(self, path: str | Path) -> Path:
        """Keep the fitted model in the folder ``path`` (created; files replaced): its
        configuration, features, labels and export, what :meth:`load` and
        :meth:`transform` need."""
        from aesi_lib.model.feature_files import save_features
        from aesi_lib.model.solution_files import save_labels

        self._state("assignments_")
        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        manifest = {"preset": self.preset, "seed": self.seed, "config": self.config,
                    "run_config": self._run_config.to_dict(), "cache_dir": str(self.cache_dir),
                    "keep_non_english": self.keep_non_english}
        (folder / _CONFIG).write_text(json.dumps(manifest, indent=1))
        save_features(folder / _FEATURES, self._fitted["features"], self._fitted["vocab"])
        save_labels(folder / _LABELS, self._fitted["labels"])
        self._fitted["assignments"].to_parquet(folder / _ASSIGNMENTS, index=False)
        return folder

    @classmethod
    def load(cls, path: str | Path) -> SchemaInducer:
        """A model that :meth:`save` kept in ``path``.

        Raises
        ------
        InputError
            Naming the folder or file when it is missing or damaged.
        """
        from aesi_lib.model.feature_files import load_features
        from aesi_lib.model.solution_files import load_labels
        from aesi_lib.run.config import RunConfig

        folder = Path(path)
        missing = [name for name in (_CONFIG, _FEATURES, _LABELS, _ASSIGNMENTS)
                   if not (folder / name).is_file()]
        if missing:
            raise InputError(folder, f"not a saved SchemaInducer (missing {', '.join(missing)})")
        try:
            manifest = json.loads((folder / _CONFIG).read_text())
            assignments = pd.read_parquet(folder / _ASSIGNMENTS)
        except (ValueError, OSError) as exc:
            raise InputError(folder, f"damaged saved model ({exc})") from exc
        model = cls(manifest["preset"], seed=manifest["seed"], config=manifest["config"],
                    cache_dir=manifest["cache_dir"],
                    keep_non_english=bool(manifest.get("keep_non_english", False)))
        model._run_config = RunConfig.from_dict(manifest["run_config"])
        features, vocab = load_features(folder / _FEATURES)
        model._set_fitted(assignments, features, vocab, load_labels(folder / _LABELS))
        return model


def load(path: str | Path) -> SchemaInducer:
    """:meth:`SchemaInducer.load`."""
    return SchemaInducer.load(path)
