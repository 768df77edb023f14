"""The numeric view of an entity table: the arrays the similarity operators are built from.

``EntityFeatures`` is the contract between the text side (parsing, lexicon, store) and the
numerical core (similarity, ncut, amp). Every array has one row per entity mention, in the
order of the entity table, except the sentence vectors, which may be stored once per sentence
(``EntityFeatures.context_rows`` then points each mention at its row).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Literal

import numpy as np
import pandas as pd
import scipy.sparse as sp

from aesi_lib.entities.positions import argument_positions


@dataclass(frozen=True)
class EntityFeatures:
    """Arrays describing |E| entity mentions.

    Attributes
    ----------
    head_ids : ndarray of shape (E,), int
        Index of each mention's head word in the head vocabulary (rows/cols of ``pmi``).
    head_vectors : ndarray of shape (E, d), float
        Word vector of the head word (unknown words: see ``aesi_lib.lexicon.vectors``).
    predicate_vectors : ndarray of shape (E, d), float
        Word vector of the predicate lemma.
    dep_ids : ndarray of shape (E,), int
        Index of the mention's dependency label (nsubj, dobj, prep_in, ...).
    types : csr_matrix of shape (E, H)
        Binary indicator of the head's semantic types (the paper: direct WordNet hypernyms).
    sentence_ids : ndarray of shape (E,), int
        Corpus-wide sentence index (rows of the paper's J, Eq. 7, transposed).
    doc_ids : ndarray of shape (E,), int
        Corpus-wide document index.
    pmi : csr_matrix of shape (V, V)
        Symmetric word-by-word PMI over head words that share a document (Eq. 1).
    predicate_ids : ndarray of shape (E,), int, optional
        Index of the predicate lemma; needed to tie templates by predicate
        (``ModelConfig.template_unit = "predicate"``).
    argument_positions : ndarray of shape (E,), int, optional
        Argument position of the dependency label (``aesi_lib.model.factored_slots``); needed for
        factored slots (``ModelConfig.slot_model = "factored"``).
    context_vectors : ndarray of shape (E, c) or (S, c), float32, optional
        The vector of each mention's sentence (``features.context``,
        ``aesi_lib.lexicon.encoder``): one row per mention, or, with ``context_rows``, one
        row per sentence that holds mentions (the mentions of a sentence share it; on MUC-4
        22,052 rows for 87,164 mentions).
    context_rows : ndarray of shape (E,), int, optional
        The row of ``context_vectors`` that holds each mention's sentence vector; None when
        ``context_vectors`` has one row per mention.
    predicate_tagged_counts : ndarray of shape (E,), float, optional
        How often WordNet's sense-tagged corpora use each mention's predicate as a verb
        (``WordNetLexicon.verb_tagged_count``): the general-English frequency that the
        predicate salience of W_T compares the corpus with (``aesi_lib.model.salience``).
        None without WordNet.
    """

    head_ids: np.ndarray
    head_vectors: np.ndarray
    predicate_vectors: np.ndarray
    dep_ids: np.ndarray
    types: sp.csr_matrix
    sentence_ids: np.ndarray
    doc_ids: np.ndarray
    pmi: sp.csr_matrix
    predicate_ids: np.ndarray | None = None
    argument_positions: np.ndarray | None = None
    context_vectors: np.ndarray | None = None
    context_rows: np.ndarray | None = None
    predicate_tagged_counts: np.ndarray | None = None

    @property
    def n_entities(self) -> int:
        return int(self.head_ids.shape[0])

    def mention_context_vectors(self) -> np.ndarray | None:
        """``context_vectors`` with one row per mention (a copy when they are shared by
        sentence: |E|×c, for small inputs and tests); None without context vectors."""
        if self.context_vectors is None or self.context_rows is None:
            return self.context_vectors
        return self.context_vectors[self.context_rows]

    def subset(self, rows: np.ndarray) -> EntityFeatures:
        """The features of the mentions ``rows`` (in that order), in the same id spaces: head
        ids still index ``pmi``, shared sentence vectors stay shared."""
        rows = np.asarray(rows, dtype=np.int64)
        shared = self.context_rows is not None
        taken = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or f.name == "pmi" or (shared and f.name == "context_vectors"):
                continue
            taken[f.name] = value[rows]
        return replace(self, **taken)

    def validate(self) -> None:
        """Raise ValueError when the shapes disagree."""
        n = self.n_entities
        checks = {
            "head_vectors": self.head_vectors.shape[0],
            "predicate_vectors": self.predicate_vectors.shape[0],
            "dep_ids": self.dep_ids.shape[0],
            "types": self.types.shape[0],
            "sentence_ids": self.sentence_ids.shape[0],
            "doc_ids": self.doc_ids.shape[0],
        }
        shared = self.context_rows is not None
        for name in ("predicate_ids", "argument_positions", "context_rows",
                     "predicate_tagged_counts", "context_vectors"):
            value = getattr(self, name)
            if value is not None and not (shared and name == "context_vectors"):
                checks[name] = value.shape[0]
        bad = {k: v for k, v in checks.items() if v != n}
        if bad:
            raise ValueError(f"EntityFeatures rows disagree with |E|={n}: {bad}")
        if shared and (self.context_vectors is None or (
                n and not 0 <= int(self.context_rows.min())
                <= int(self.context_rows.max()) < self.context_vectors.shape[0])):
            raise ValueError("context_rows index past the rows of context_vectors")
        if self.pmi.shape[0] != self.pmi.shape[1]:
            raise ValueError(f"pmi must be square, got {self.pmi.shape}")
        if n and int(self.head_ids.max()) >= self.pmi.shape[0]:
            raise ValueError("head_ids index past the PMI vocabulary")


#: The entity-rule options that read R12's event nouns, with their rule names.
EVENT_NOUN_RULES = (("support_verbs", "R14"), ("agentive_modifiers", "R15"),
                    ("attribution_verbs", "R16"))

#: The switches of the optional entity rules R14-R16 and R18: each is a field of both
#: :class:`FeatureOptions` and ``aesi_lib.entities.rules.EntityRules``.
ENTITY_RULE_SWITCHES = (*(name for name, _ in EVENT_NOUN_RULES), "pronoun_arguments")


@dataclass(frozen=True)
class FeatureOptions:
    """Choices the paper leaves open when turning entities into features.

    Attributes
    ----------
    type_scheme : how a head's semantic types are read from WordNet: ``"hypernyms"`` (the
        paper: direct hypernyms of the first noun sense), ``"lexname"`` (noun supersense such as
        ``noun.person``) or ``"depth:N"`` (the ancestor N steps below the root). A head without
        a noun sense in WordNet (most names) has no type.
    context : give every mention the vector of its sentence from one encoder pass over the
        sentences that hold mentions (``EntityFeatures.context_vectors``,
        ``aesi_lib.lexicon.encoder``); not in the paper. The context term of W_T needs them.
    encoder : ``"minilm"``, all-MiniLM-L6-v2 (needs the ``context`` extra); ``"transformer"``,
        the model of ``encoder_model``, pooled the same way; or ``"static"``, the mean of the
        run's word vectors (fast, blind to word order).
    encoder_model : the model folder of ``encoder="transformer"``: a sentence-transformers or
        Hugging Face model on disk (``config.json``, weights, a tokenizer; mean pooling),
        e.g. all-mpnet-base-v2; checked before any work. None with the other encoders.
    encoder_device : where ``minilm`` or ``transformer`` runs: ``"cpu"`` (in ONNX Runtime,
        from a graph torch traces once), or ``"cuda"`` (on torch: a CUDA build of torch and a
        GPU). The vectors agree to float rounding, not bit for bit, so each device caches its
        own.
    event_nouns : also take the prepositional and possessive arguments of nouns that name an
        act or event as mentions of the noun's verb (rule R12 of
        ``aesi_lib.entities.rules``: ``the murder of six Jesuits`` -> Jesuits/dobj of murder);
        decided by WordNet (``aesi_lib.entities.event_nouns``), so it needs WordNet. Not in
        the paper. A change re-extracts the stored documents' rows from the parse cache.
    event_noun_senses : which WordNet senses make a noun an event noun of R12: ``"first"``,
        its first sense must be an act or event; ``"abstract"``, failing that, its first
        later act or event sense linked to a verb, when no sense of the noun names a thing, a
        place, a person or group, an amount or a time (``assassination``, whose first sense
        is *character assassination*, -> assassinate; ``building`` stays out). Needs
        ``event_nouns``. Not in the paper. A change re-extracts the stored documents' rows
        from the parse cache.
    support_verbs : with ``event_nouns``, the subject of a support verb (``carry out``,
        ``commit``, ...) whose object is an event noun is also the subject of the noun's verb
        (rule R14: ``the FMLN carried out the attack`` -> FMLN/nsubj of attack). Not in the
        paper. A change re-extracts the stored documents' rows from the parse cache.
    agentive_modifiers : with ``event_nouns``, a modifier of an event noun that names who
        acts (a person or group noun by WordNet, or a name WordNet does not know) is the
        subject of the noun's verb (rule R15: ``the terrorist attack`` -> terrorist/nsubj of
        attack). Not in the paper. A change re-extracts the stored documents' rows from the
        parse cache.
    attribution_verbs : with ``event_nouns``, a verb that says who did an event (*accuse* X
        of, *blame* X for, X *claims* responsibility for, ...) gives that agent as the subject
        of the event noun's verb (rule R16: ``the army accused the FMLN of the attack`` ->
        FMLN/nsubj of attack). Not in the paper. A change re-extracts the stored documents'
        rows from the parse cache.
    pronoun_arguments : a personal pronoun (he, she, it, they, we, I) is an argument, its
        mention the pronoun, read and scored as its antecedent: the nearest argument noun of
        the same number before it in its sentence, else the previous sentence's first such
        subject, else that sentence's nearest such noun (rule R18: ``They took control``
        after ``The hackers stole ...`` -> hackers/nsubj of take). Not in the
        paper. A change re-extracts the stored documents' rows from the parse cache.
    """

    type_scheme: str = "hypernyms"
    context: bool = False
    encoder: Literal["minilm", "static", "transformer"] = "minilm"
    encoder_model: str | None = None
    encoder_device: Literal["cpu", "cuda"] = "cpu"
    event_nouns: bool = False
    event_noun_senses: Literal["first", "abstract"] = "first"
    support_verbs: bool = False
    agentive_modifiers: bool = False
    attribution_verbs: bool = False
    pronoun_arguments: bool = False

    def __post_init__(self) -> None:
        if self.encoder_device != "cpu" and self.encoder == "static":
            raise ValueError(f"features.encoder_device={self.encoder_device} needs "
                             "features.encoder=minilm or transformer (the static encoder runs "
                             "on the CPU)")
        if self.encoder == "transformer" and not self.encoder_model:
            raise ValueError("features.encoder=transformer needs features.encoder_model (the "
                             "model folder)")
        if self.encoder_model is not None and self.encoder != "transformer":
            raise ValueError("features.encoder_model names the model of "
                             "features.encoder=transformer: set features.encoder=transformer "
                             "too")
        if not self.event_nouns:
            # All at once, so that turning R12 off over the default preset takes one round.
            readers = [f"features.{name} ({rule})" for name, rule in EVENT_NOUN_RULES
                       if getattr(self, name)]
            if self.event_noun_senses != "first":
                readers.insert(0, f"features.event_noun_senses={self.event_noun_senses}")
            if readers:
                verb = "needs" if len(readers) == 1 else "need"
                raise ValueError(f"{', '.join(readers)} {verb} features.event_nouns (they "
                                 "read or choose the event nouns of R12): without it, set "
                                 "event_noun_senses=first and R14-R16 false")

    def entity_rule_switches(self) -> dict[str, bool]:
        """The optional entity rules R14-R16 and R18 these options turn on or off, by the name of
        their switch (:data:`ENTITY_RULE_SWITCHES`)."""
        return {name: getattr(self, name) for name in ENTITY_RULE_SWITCHES}


@dataclass(frozen=True)
class FeatureVocabulary:
    """Names behind the integer ids of ``EntityFeatures``."""

    heads: tuple[str, ...]
    deps: tuple[str, ...]
    types: tuple[str, ...]
    documents: tuple[str, ...]
    oov_rate: float
    predicates: tuple[str, ...] = ()


def pmi_matrix(pmi_table: pd.DataFrame, vocabulary: dict[str, int]) -> sp.csr_matrix:
    """Sparse V×V matrix of PMI from ``Store.head_pmi`` rows.

    Unseen pairs (and pairs below the SQL's support threshold) are 0. Negative values are kept
    here; W_T clips them (positive PMI, ``aesi_lib.model.similarity.positive_pmi``).
    """
    n = len(vocabulary)
    if len(pmi_table) == 0:
        return sp.csr_matrix((n, n), dtype=np.float64)
    values = pmi_table["pmi"].to_numpy(dtype=np.float64)
    # Integer ids straight from one hash of the vocabulary (-1: a word outside it), without
    # a float Series per column: this table has about 14 rows a mention.
    words = pd.Index(list(vocabulary), dtype=pmi_table["word1"].dtype)
    ids = np.fromiter(vocabulary.values(), dtype=np.int64, count=n)
    rows = words.get_indexer(pmi_table["word1"])
    cols = words.get_indexer(pmi_table["word2"])
    keep = (values != 0) & (rows >= 0) & (cols >= 0)
    return sp.csr_matrix((values[keep], (ids[rows[keep]], ids[cols[keep]])), shape=(n, n))


def type_indicator(type_sets: list[tuple[str, ...]]) -> tuple[sp.csr_matrix, tuple[str, ...]]:
    """Binary E×H indicator of each entity's semantic types, with the type names."""
    names = sorted({t for types in type_sets for t in types})
    index = {t: i for i, t in enumerate(names)}
    indptr = np.zeros(len(type_sets) + 1, dtype=np.int64)
    cols: list[int] = []
    for i, types in enumerate(type_sets):
        cols.extend(sorted(index[t] for t in set(types)))
        indptr[i + 1] = len(cols)
    data = np.ones(len(cols), dtype=np.float64)
    matrix = sp.csr_matrix((data, np.asarray(cols, dtype=np.int64), indptr),
                           shape=(len(type_sets), len(names)))
    return matrix, tuple(names)


def build_features(entities: pd.DataFrame, pmi_table: pd.DataFrame, vectors: Any, wordnet: Any,
                   options: FeatureOptions | None = None
                   ) -> tuple[EntityFeatures, FeatureVocabulary]:
    """Turn an entity table into the arrays of ``EntityFeatures``.

    Parameters
    ----------
    entities : DataFrame with columns ``doc_id, sent_id, head_lemma, predicate, dep``
        (``Store.entity_table``), one row per mention, in the order the model will use.
    pmi_table : DataFrame ``word1, word2, pmi`` over head lemmas (``Store.head_pmi``).
    vectors : gensim KeyedVectors (``aesi_lib.lexicon.vectors.load_vectors``).
    wordnet : ``aesi_lib.lexicon.wordnet.WordNetLexicon`` or None (then no head has a
        semantic type).
    options : FeatureOptions.
    """
    from aesi_lib.lexicon.vector_lookup import lookup_vectors

    options = options or FeatureOptions()
    heads = entities["head_lemma"].astype(str).to_numpy()
    head_names, head_ids = np.unique(heads, return_inverse=True)
    predicates = entities["predicate"].astype(str).to_numpy()
    pred_names, pred_ids = np.unique(predicates, return_inverse=True)
    dep_names, dep_ids = np.unique(entities["dep"].astype(str).to_numpy(), return_inverse=True)
    doc_names, doc_ids = np.unique(entities["doc_id"].astype(str).to_numpy(),
                                   return_inverse=True)
    sentence_keys = entities["doc_id"].astype(str) + "\x1f" + entities["sent_id"].astype(str)
    _, sentence_ids = np.unique(sentence_keys.to_numpy(), return_inverse=True)

    head_table = lookup_vectors(vectors, list(head_names))
    pred_table = lookup_vectors(vectors, list(pred_names))
    known = sum(w in vectors.key_to_index for w in head_names) + sum(
        w in vectors.key_to_index for w in pred_names)
    oov_rate = 1.0 - known / max(1, len(head_names) + len(pred_names))

    type_cache: dict[str, tuple[str, ...]] = {}
    type_sets: list[tuple[str, ...]] = []
    for lemma in heads:
        if lemma not in type_cache:
            type_cache[lemma] = (() if wordnet is None else
                                 tuple(wordnet.semantic_types(lemma, scheme=options.type_scheme)))
        type_sets.append(type_cache[lemma])
    types, type_names = type_indicator(type_sets)

    vocabulary = {w: i for i, w in enumerate(head_names)}
    features = EntityFeatures(
        head_ids=head_ids.astype(np.int64),
        head_vectors=head_table[head_ids],
        predicate_vectors=pred_table[pred_ids],
        dep_ids=dep_ids.astype(np.int64),
        types=types,
        sentence_ids=sentence_ids.astype(np.int64),
        doc_ids=doc_ids.astype(np.int64),
        pmi=pmi_matrix(pmi_table, vocabulary),
        predicate_ids=pred_ids.astype(np.int64),
        argument_positions=argument_positions(dep_names)[dep_ids],
        predicate_tagged_counts=None if wordnet is None else np.asarray(
            [wordnet.verb_tagged_count(p) for p in pred_names], dtype=np.float64)[pred_ids],
    )
    features.validate()
    vocab = FeatureVocabulary(tuple(head_names), tuple(dep_names), type_names, tuple(doc_names),
                              oov_rate, tuple(pred_names))
    return features, vocab

