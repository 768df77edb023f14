"""Saving and loading :class:`~aesi_lib.model.features.EntityFeatures` as one ``.npz`` file.

The cached feature step writes one file per entity table and feature options; a damaged file
raises ``InputError`` naming it, so a corrupt cache is reported, not silently used.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from aesi_lib.errors import InputError
from aesi_lib.files import replacing
from aesi_lib.model.features import EntityFeatures, FeatureVocabulary


def save_features(path: str | Path, features: EntityFeatures, vocab: FeatureVocabulary) -> None:
    """Write features and vocabulary to one ``.npz`` file (written atomically)."""
    types = features.types.tocsr()
    pmi = features.pmi.tocsr()
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        np.savez(
            fh,
            head_ids=features.head_ids, head_vectors=features.head_vectors,
            predicate_vectors=features.predicate_vectors, dep_ids=features.dep_ids,
            sentence_ids=features.sentence_ids, doc_ids=features.doc_ids,
            types_data=types.data, types_indices=types.indices, types_indptr=types.indptr,
            types_shape=np.asarray(types.shape),
            pmi_data=pmi.data, pmi_indices=pmi.indices, pmi_indptr=pmi.indptr,
            pmi_shape=np.asarray(pmi.shape),
            predicate_ids=_optional(features.predicate_ids),
            argument_positions=_optional(features.argument_positions),
            context_rows=_optional(features.context_rows),
            predicate_tagged_counts=_optional(features.predicate_tagged_counts),
            context_vectors=(features.context_vectors if features.context_vectors is not None
                             else np.zeros((0, 0), dtype=np.float32)),
            vocab=np.asarray(json.dumps({
                "heads": vocab.heads, "deps": vocab.deps, "types": vocab.types,
                "documents": vocab.documents, "oov_rate": vocab.oov_rate,
                "predicates": vocab.predicates})),
        )


def _optional(values: np.ndarray | None) -> np.ndarray:
    # An absent optional array is stored empty: npz has no None.
    return values if values is not None else np.zeros(0, dtype=np.int64)


def _stored_optional(z: Any, name: str) -> np.ndarray | None:
    return z[name] if name in z.files and len(z[name]) else None


def load_features(path: str | Path) -> tuple[EntityFeatures, FeatureVocabulary]:
    """Read what :func:`save_features` wrote; a damaged file raises ``InputError``."""
    try:
        with np.load(path, allow_pickle=False) as z:
            features = EntityFeatures(
                head_ids=z["head_ids"], head_vectors=z["head_vectors"],
                predicate_vectors=z["predicate_vectors"], dep_ids=z["dep_ids"],
                types=sp.csr_matrix((z["types_data"], z["types_indices"], z["types_indptr"]),
                                    shape=tuple(z["types_shape"])),
                sentence_ids=z["sentence_ids"], doc_ids=z["doc_ids"],
                pmi=sp.csr_matrix((z["pmi_data"], z["pmi_indices"], z["pmi_indptr"]),
                                  shape=tuple(z["pmi_shape"])),
                predicate_ids=_stored_optional(z, "predicate_ids"),
                argument_positions=_stored_optional(z, "argument_positions"),
                context_rows=_stored_optional(z, "context_rows"),
                predicate_tagged_counts=_stored_optional(z, "predicate_tagged_counts"),
                context_vectors=_stored_optional(z, "context_vectors"),
            )
            raw = json.loads(str(z["vocab"]))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(path, f"damaged feature file ({exc}); delete it to recompute") from exc
    vocab = FeatureVocabulary(tuple(raw["heads"]), tuple(raw["deps"]), tuple(raw["types"]),
                              tuple(raw["documents"]), float(raw["oov_rate"]),
                              tuple(raw.get("predicates", ())))
    features.validate()
    return features, vocab
