"""The model: from entity features to templates and slots (Sha et al. 2016, Eqs. 1-9).

Read it top down, following a run:

- :mod:`~aesi_lib.model.features`: ``EntityFeatures``, the arrays one row per entity mention
  that everything below reads (built from the entity table, vectors and WordNet);
  :mod:`~aesi_lib.model.feature_files` saves and loads them;
- :mod:`~aesi_lib.model.induction`: ``induce``, the one call from features to labels, under a
  ``ModelConfig`` (:mod:`~aesi_lib.model.config`); :mod:`~aesi_lib.model.units` says which
  mentions share a label;
- :mod:`~aesi_lib.model.similarity`: W_T (Eq. 1), W_S (Eq. 2) and the head-class graph W_H,
  each as one list of weighted terms; :mod:`~aesi_lib.model.terms` the thin-factor terms and
  the matrix-free operator;
- :mod:`~aesi_lib.model.sc`: the -SC model, independent cuts (Eqs. 4-5);
  :mod:`~aesi_lib.model.amp`: the appendix's alternating maximisation with W*_S and W*_T;
  :mod:`~aesi_lib.model.cut_step`: one cut of either, with diagnostics;
- :mod:`~aesi_lib.model.ncut`: the multiclass normalized cut (Eqs. 3-6; Yu & Shi 2003): the
  eigensolver and the discretisation;
- :mod:`~aesi_lib.model.constraint`: the sentence constraint (Eqs. 7-8);
  :mod:`~aesi_lib.model.objective`: the joint objective (Eq. 9);
- :mod:`~aesi_lib.model.tying`: labels tied to units (predicates, patterns, head words);
  :mod:`~aesi_lib.model.factored_slots`: slots as argument position × semantic class;
- :mod:`~aesi_lib.model.solution_files`: a solve's labels and summary as files;
  :mod:`~aesi_lib.model.carry`: a previous solution's labels as a warm start, and its ids
  carried over to the next solution;
- :mod:`~aesi_lib.model.extract`: slot filling of new mentions with a finished run;
- :mod:`~aesi_lib.model.synthetic`: a planted corpus for tests and benchmarks.

The model never reads answer keys or imports the evaluation, and nothing here imports Prefect.
"""

from aesi_lib.model.config import ModelConfig
from aesi_lib.model.features import EntityFeatures, FeatureOptions, FeatureVocabulary
from aesi_lib.model.induction import InductionResult, induce
from aesi_lib.model.similarity import SimilarityOptions
from aesi_lib.model.synthetic import planted_features

__all__ = [
    "EntityFeatures",
    "FeatureOptions",
    "FeatureVocabulary",
    "InductionResult",
    "ModelConfig",
    "SimilarityOptions",
    "induce",
    "planted_features",
]
