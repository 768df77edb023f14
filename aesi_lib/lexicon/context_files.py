"""Saving and loading the context vectors of an entity table's mentions as one ``.npz`` file.

The ``context-vectors`` step writes the arrays of
:func:`aesi_lib.lexicon.mention_context.mention_context_vectors`; the feature step reads them
into the optional arrays of :class:`~aesi_lib.model.features.EntityFeatures`. A damaged file raises
``InputError`` naming it.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from aesi_lib.errors import InputError
from aesi_lib.files import replacing


def save_context(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Write context arrays keyed by their ``EntityFeatures`` attribute
    (:meth:`aesi_lib.lexicon.mention_context.MentionContext.feature_arrays`), atomically."""
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


def load_context(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays :func:`save_context` wrote, keyed by their ``EntityFeatures`` attribute."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return {name: z[name] for name in z.files}
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(path, f"damaged context-vector file ({exc}); delete it to compute it "
                         "again") from exc
