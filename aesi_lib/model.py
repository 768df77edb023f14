"""The notebook API: one call from :class:`EntityFeatures` to template and slot labels.

>>> from aesi_lib.model import ModelConfig, induce, planted_features
>>> features, _, _ = planted_features(2000, seed=0)
>>> result = induce(features, ModelConfig(n_templates=6, n_slots=4, mode="scaled"))
>>> result.template_labels.shape
(2000,)

Pure: no Prefect, no I/O. ``planted_features`` makes a synthetic corpus with known templates and
slots, for tests, benchmarks and trying the solver without a parsed corpus.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from aesi_lib.amp import (
    Progress,
    joint_objective,
    sentence_indicator,
    solve_amp,
    solve_sc,
)
from aesi_lib.factored_slots import ARGUMENT_POSITIONS, factored_slot_labels
from aesi_lib.features import EntityFeatures
from aesi_lib.similarity import (
    SimilarityOptions,
    slot_similarity,
    template_similarity,
    type_set_groups,
)

ModelMode = Literal["sc", "literal", "scaled"]


@dataclass(frozen=True)
class ModelConfig:
    """Settings of one induction run.

    Parameters
    ----------
    n_templates, n_slots : int
        |T| and |S| (the paper: 6 and 4 on MUC-4).
    mode : {"sc", "literal", "scaled"}
        "sc": independent template and slot cuts (the paper's "-SC"); "literal": the appendix's
        AMP exactly; "scaled": AMP with the normalised constraint of weight
        ``constraint_weight`` (see ``aesi_lib.amp``).
    constraint_weight : float
        λ of the scaled mode: at λ = 1 the same-sentence term carries as much total edge weight
        as the similarity graph. 0.1-1 helped on planted corpora, 3 hurt the slots; choose it on
        DEV.
    init : {"random", "sc"}
        AMP initial partitions: random (the paper) or the -SC solution.
    max_iter : int
        AMP iteration cap.
    tol : float
        AMP stopping threshold on ``‖R_TᵀR_T - I‖ + ‖R_SᵀR_S - I‖``.
    seed : int
        Seeds initialisation, eigensolver start vectors and discretisation.
    similarity : SimilarityOptions
        Weights and conventions of W_T and W_S.
    solver : {"eigsh", "lobpcg"}
        Eigensolver for the relaxed cuts.
    eig_tol : float
        Eigensolver tolerance.
    deflate : bool
        Deflate the trivial eigenpair in the unconstrained cuts.
    n_init : int
        Yu-Shi discretisations per cut (seeds ``seed..seed+n_init-1``); the best normalized
        association wins.
    template_unit : {"mention", "predicate"}
        What a template label is given to: each entity mention (the paper), or each predicate
        lemma, all of whose mentions then share a template (the cut of ``Gᵀ W_T G``; see
        ``aesi_lib.amp.unit_indicator``). Not in the paper: an option of the quality track.
    slot_unit : {"mention", "pattern"}
        What a slot label is given to: each entity mention (the paper), or each pattern
        (dependency label, set of semantic types) shared by several mentions.
    slot_model : {"cut", "factored"}
        "cut": slots are the normalized cut of W_S (Eqs. 2 and 5, the paper); "factored": a slot
        is an argument position crossed with an induced semantic class of the head
        (``aesi_lib.factored_slots``; needs ``mode="sc"`` and ``n_slots`` a multiple of 4;
        ``slot_unit`` does not apply). Not in the paper: an option of the quality track.
    """

    n_templates: int = 6
    n_slots: int = 4
    mode: ModelMode = "scaled"
    constraint_weight: float = 0.3
    init: Literal["random", "sc"] = "sc"
    max_iter: int = 10
    tol: float = 1e-6
    seed: int = 0
    similarity: SimilarityOptions = field(default_factory=SimilarityOptions)
    solver: Literal["eigsh", "lobpcg"] = "eigsh"
    eig_tol: float = 1e-8
    deflate: bool = False
    n_init: int = 1
    template_unit: Literal["mention", "predicate"] = "mention"
    slot_unit: Literal["mention", "pattern"] = "mention"
    slot_model: Literal["cut", "factored"] = "cut"

    def __post_init__(self) -> None:
        if self.template_unit not in ("mention", "predicate"):
            raise ValueError(f"template_unit must be 'mention' or 'predicate', "
                             f"got {self.template_unit!r}")
        if self.slot_unit not in ("mention", "pattern"):
            raise ValueError(f"slot_unit must be 'mention' or 'pattern', got {self.slot_unit!r}")
        if self.mode not in ("sc", "literal", "scaled"):
            raise ValueError(f"mode must be 'sc', 'literal' or 'scaled', got {self.mode!r}")
        if self.n_templates < 1 or self.n_slots < 1:
            raise ValueError("n_templates and n_slots must be >= 1")
        if self.slot_model not in ("cut", "factored"):
            raise ValueError(f"slot_model must be 'cut' or 'factored', got {self.slot_model!r}")
        if self.slot_model == "factored":
            if self.mode != "sc":
                raise ValueError("slot_model='factored' fixes the slots, so it needs mode='sc' "
                                 "(for AMP, cut the slots: slot_model='cut')")
            if self.n_slots % len(ARGUMENT_POSITIONS):
                raise ValueError(f"slot_model='factored' needs n_slots to be a multiple of "
                                 f"{len(ARGUMENT_POSITIONS)}, got {self.n_slots}")


@dataclass
class InductionResult:
    """Labels and diagnostics of :func:`induce`.

    Attributes
    ----------
    template_labels, slot_labels : ndarray of shape (E,), int
    history : list of dict
        Per-iteration objective terms and step diagnostics (``aesi_lib.amp.solve_amp``); for
        mode "sc" a single entry.
    timings : dict
        Seconds: ``similarity``, ``degrees``, ``solve``, ``total``.
    eigen_residuals : dict
        Largest ``‖N v - λ v‖`` of each step (``template``/``slot`` lists, one per solve).
    converged : bool
    n_iter : int
    config : ModelConfig
    """

    template_labels: np.ndarray
    slot_labels: np.ndarray
    history: list[dict[str, Any]]
    timings: dict[str, float]
    eigen_residuals: dict[str, list[float]]
    converged: bool
    n_iter: int
    config: ModelConfig

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (labels as lists)."""
        return {
            "template_labels": self.template_labels.tolist(),
            "slot_labels": self.slot_labels.tolist(),
            "history": _jsonable(self.history),
            "timings": dict(self.timings),
            "eigen_residuals": _jsonable(self.eigen_residuals),
            "converged": bool(self.converged),
            "n_iter": int(self.n_iter),
            "config": _jsonable(asdict(self.config)),
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    return value


def label_units(features: EntityFeatures, config: ModelConfig
                ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Unit codes that tie template and slot labels (None: one unit per mention).

    Template units are predicate lemmas (``features.predicate_ids``); slot units are the
    distinct (dependency label, semantic-type set) pairs. Factored slots are not a cut of W_S,
    so they have no slot units.
    """
    units_t = units_s = None
    if config.template_unit == "predicate":
        if features.predicate_ids is None:
            raise ValueError("template_unit='predicate' needs features.predicate_ids")
        units_t = np.unique(features.predicate_ids, return_inverse=True)[1].astype(np.int64)
    if config.slot_unit == "pattern" and config.slot_model == "cut":
        type_groups, _ = type_set_groups(features.types)
        pairs = np.stack([np.asarray(features.dep_ids), np.asarray(type_groups)], axis=1)
        units_s = np.unique(pairs, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
    return units_t, units_s


def induce(
    features: EntityFeatures, config: ModelConfig | None = None, progress: Progress | None = None
) -> InductionResult:
    """Induce templates and slots: W_T, W_S (Eqs. 1-2), then -SC cuts or AMP (Eqs. 3-9).

    Parameters
    ----------
    features : EntityFeatures
        |E| entity mentions.
    config : ModelConfig, optional
    progress : callable, optional
        ``progress(iteration, terms)`` after every AMP iteration.

    Returns
    -------
    InductionResult
    """
    config = config or ModelConfig()
    features.validate()
    t0 = time.perf_counter()
    W_T = template_similarity(features, config.similarity)
    W_S = slot_similarity(features, config.similarity)
    t1 = time.perf_counter()
    dt = W_T.degrees()
    ds = W_S.degrees()
    t2 = time.perf_counter()
    ncut_options = {
        "solver": config.solver,
        "tol": config.eig_tol,
        "deflate": config.deflate,
        "n_init": config.n_init,
    }
    units_t, units_s = label_units(features, config)
    if config.mode == "sc":
        factored = None
        if config.slot_model == "factored":
            factored = factored_slot_labels(features, config.n_slots, config.seed,
                                            options=config.similarity, ncut_options=ncut_options)
        lt, ls, info = solve_sc(
            W_T, W_S, config.n_templates, config.n_slots, config.seed,
            degrees_t=dt, degrees_s=ds, ncut_options=ncut_options,
            units_t=units_t, units_s=units_s, slot_labels=factored,
        )
        entry = {"iteration": 0, **info}
        # The joint objective of Eq. 9 is recorded for -SC as well, so runs are comparable.
        entry.update(joint_objective(W_T, dt, W_S, ds, sentence_indicator(features.sentence_ids),
                                     lt, ls, config.n_templates, config.n_slots))
        history = [entry]
        if progress is not None:
            progress(0, entry)
        converged, n_iter = True, 0
    else:
        res = solve_amp(
            W_T, W_S, features.sentence_ids, config.n_templates, config.n_slots,
            mode=config.mode, weight=config.constraint_weight, init=config.init,
            max_iter=config.max_iter, tol=config.tol, seed=config.seed,
            degrees_t=dt, degrees_s=ds, ncut_options=ncut_options, progress=progress,
            units_t=units_t, units_s=units_s,
        )
        lt, ls, history = res.template_labels, res.slot_labels, res.history
        converged, n_iter = res.converged, res.n_iter
    t3 = time.perf_counter()
    residuals: dict[str, list[float]] = {"template": [], "slot": []}
    for entry in history:
        for step, key in (("template_step", "template"), ("slot_step", "slot")):
            if step in entry:
                residuals[key].append(entry[step]["max_residual"])
    return InductionResult(
        template_labels=np.asarray(lt, dtype=np.int64),
        slot_labels=np.asarray(ls, dtype=np.int64),
        history=history,
        timings={
            "similarity": t1 - t0,
            "degrees": t2 - t1,
            "solve": t3 - t2,
            "total": t3 - t0,
        },
        eigen_residuals=residuals,
        converged=converged,
        n_iter=n_iter,
        config=config,
    )


def planted_features(
    n_entities: int,
    n_templates: int = 6,
    n_slots: int = 4,
    dim: int = 20,
    seed: int = 0,
    *,
    sentences_per_doc: int = 5,
    mean_entities_per_sentence: float = 2.5,
    noise: float = 1.0,
    heads_per_cell: int | None = None,
    n_deps: int | None = None,
    dep_purity: float = 0.6,
    type_purity: float = 0.7,
    generic_fraction: float = 0.3,
) -> tuple[EntityFeatures, np.ndarray, np.ndarray]:
    """A synthetic corpus with planted templates and slots.

    Every document has one template; its sentences hold 1..|S| entities in distinct slots (the
    sentence constraint holds exactly). A head word belongs to one (template, slot) cell; its
    vector is ``μ_t + ν_s + noise·ε`` and its types are its slot's type with probability
    ``type_purity`` (else a random one). Predicates belong to (template, slot) cells too, with
    vector ``μ'_t + ν'_s + noise·ε``. The dependency label is ``slot mod n_deps`` with
    probability ``dep_purity``. A fraction ``generic_fraction`` of the mentions take a head and
    a predicate from template-independent pools of their slot (vectors ``ν_s + noise·ε``), like
    "people" or "said": only their sentence-mates tell their template. PMI is the positive
    document co-occurrence PMI of head words.

    Parameters
    ----------
    n_entities : int
        Approximate |E| (whole sentences are generated).
    n_templates, n_slots : int
    dim : int
        Word vector dimension.
    seed : int
    sentences_per_doc : int
    mean_entities_per_sentence : float
    noise : float
        Standard deviation of the word-vector noise per coordinate (the template and slot
        means have standard normal coordinates).
    heads_per_cell : int, optional
        Head words per (template, slot) cell; default grows with |E|.
    n_deps : int, optional
        Dependency labels; default ``max(2, n_slots - 1)`` so labels cannot separate all slots.
    dep_purity, type_purity : float
    generic_fraction : float

    Returns
    -------
    features : EntityFeatures
    templates : ndarray of shape (E,), int
    slots : ndarray of shape (E,), int
    """
    rng = np.random.default_rng(seed)
    k_t, k_s = n_templates, n_slots
    if heads_per_cell is None:
        heads_per_cell = max(10, n_entities // 2000)
    if n_deps is None:
        n_deps = max(2, k_s - 1)

    # Sentence sizes: 1 + binomial, capped by |S| so slots can be distinct within a sentence.
    p = min(max((mean_entities_per_sentence - 1.0) / max(k_s - 1, 1), 0.0), 1.0)
    est = int(n_entities / mean_entities_per_sentence * 1.1) + 10
    sizes = 1 + rng.binomial(k_s - 1, p, size=est)
    sizes = sizes[: int(np.searchsorted(np.cumsum(sizes), n_entities)) + 1]
    n_sent = sizes.shape[0]
    n = int(sizes.sum())
    sentence_ids = np.repeat(np.arange(n_sent), sizes)
    doc_of_sentence = np.arange(n_sent) // sentences_per_doc
    doc_ids = doc_of_sentence[sentence_ids]
    n_docs = int(doc_of_sentence[-1]) + 1
    doc_template = rng.integers(k_t, size=n_docs)
    templates = doc_template[doc_ids]

    # Distinct slots within a sentence: rank of random keys inside each sentence.
    keys = rng.random((n_sent, k_s)).argsort(axis=1)
    pos = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    slots = keys[sentence_ids, pos]

    # Cells 0..T·S-1 are (template, slot); cells T·S..T·S+S-1 are the generic pools.
    generic = rng.random(n) < generic_fraction
    cell = np.where(generic, k_t * k_s + slots, templates * k_s + slots)
    n_cells = (k_t + 1) * k_s
    head_ids = cell * heads_per_cell + rng.integers(heads_per_cell, size=n)
    n_heads = n_cells * heads_per_cell
    pred_per_cell = max(3, heads_per_cell // 3)
    pred_ids = cell * pred_per_cell + rng.integers(pred_per_cell, size=n)
    n_preds = n_cells * pred_per_cell

    # Row k_t of the template means is zero: the generic pools carry no template signal.
    mu_t = np.vstack([rng.standard_normal((k_t, dim)), np.zeros((1, dim))])
    nu_s = rng.standard_normal((k_s, dim))
    mu_p = np.vstack([rng.standard_normal((k_t, dim)), np.zeros((1, dim))])
    nu_p = rng.standard_normal((k_s, dim))
    word_t = np.arange(n_heads) // heads_per_cell // k_s
    word_s = np.arange(n_heads) // heads_per_cell % k_s
    head_vecs = mu_t[word_t] + nu_s[word_s] + noise * rng.standard_normal((n_heads, dim))
    pw_t = np.arange(n_preds) // pred_per_cell // k_s
    pw_s = np.arange(n_preds) // pred_per_cell % k_s
    pred_vecs = mu_p[pw_t] + nu_p[pw_s] + noise * rng.standard_normal((n_preds, dim))

    dep_ids = np.where(rng.random(n) < dep_purity, slots % n_deps, rng.integers(n_deps, size=n))

    n_types = 2 * k_s
    head_type = np.where(
        rng.random(n_heads) < type_purity, word_s, rng.integers(n_types, size=n_heads)
    )
    second = rng.integers(n_types, size=n_heads)
    has_second = rng.random(n_heads) < 0.3
    rows = np.concatenate([np.arange(n_heads), np.arange(n_heads)[has_second]])
    cols = np.concatenate([head_type, second[has_second]])
    head_types = sp.csr_matrix((np.ones(rows.shape[0]), (rows, cols)), shape=(n_heads, n_types))
    head_types.data[:] = 1.0
    types = head_types[head_ids]

    B = sp.csr_matrix((np.ones(n), (doc_ids, head_ids)), shape=(n_docs, n_heads))
    B.data[:] = 1.0
    co = (B.T @ B).tocoo()
    df = np.asarray(B.sum(axis=0)).reshape(-1)
    keep = co.row != co.col
    r, c, v = co.row[keep], co.col[keep], co.data[keep]
    pmi_vals = np.log(v * n_docs / (df[r] * df[c]))
    pos_mask = pmi_vals > 0
    pmi = sp.csr_matrix(
        (pmi_vals[pos_mask], (r[pos_mask], c[pos_mask])), shape=(n_heads, n_heads)
    )

    features = EntityFeatures(
        head_ids=head_ids,
        head_vectors=head_vecs[head_ids],
        predicate_vectors=pred_vecs[pred_ids],
        dep_ids=dep_ids,
        types=types,
        sentence_ids=sentence_ids,
        doc_ids=doc_ids,
        pmi=pmi,
    )
    return features, templates, slots
