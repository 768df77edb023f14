"""Word-vector lookups for entity heads and predicates, with a defined rule for unknown words.

A word is looked up as it is, lowercased, as a compound and by its last token; a word still
unknown gets a deterministic pseudo-random unit vector from a hash of the word (cosine 1 with
itself, about 0 with others), never a zero vector.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from gensim.models import KeyedVectors

# How lookup_vectors found each word (VectorLookup.sources).
EXACT, LOWER, COMPOUND, LAST_TOKEN, HASHED = "exact", "lower", "compound", "last_token", "hashed"


@lru_cache(maxsize=1 << 16)
def _oov_vector_cached(key: str, dim: int) -> np.ndarray:
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8, person=b"aesi-oov").digest()
    rng = np.random.default_rng(int.from_bytes(digest, "little"))
    v = rng.standard_normal(dim)
    v /= np.linalg.norm(v)
    out = v.astype(np.float32)
    out.setflags(write=False)
    return out


def oov_vector(word: str, dim: int) -> np.ndarray:
    """Return the deterministic unit vector that stands for an unknown word.

    Seeded by a BLAKE2 hash of the lowercased, whitespace-normalised word (not Python's
    salted ``hash``), so it is the same in every process and run. Two different unknown words
    get independent random directions: cosine about 0 (standard deviation ``1/sqrt(dim)``).

    Parameters
    ----------
    word
        The unknown word.
    dim
        Vector dimension.

    Returns
    -------
    numpy.ndarray
        Shape ``(dim,)``, float32, unit L2 norm (a fresh, writable copy).
    """
    return _oov_vector_cached(" ".join(word.lower().split()), dim).copy()


def _resolve(key_to_index: dict[str, int], word: str) -> tuple[int, str]:
    if word in key_to_index:
        return key_to_index[word], EXACT
    lower = word.lower()
    if lower in key_to_index:
        return key_to_index[lower], LOWER
    parts = [p for p in lower.replace("_", " ").replace("-", " ").split() if p]
    if len(parts) > 1:
        for joined in ("_".join(parts), "-".join(parts)):  # word2vec phrases, GloVe hyphens
            if joined in key_to_index:
                return key_to_index[joined], COMPOUND
        if parts[-1] in key_to_index:
            return key_to_index[parts[-1]], LAST_TOKEN
    return -1, HASHED


@dataclass(frozen=True)
class VectorLookup:
    """Vectors for a word list and how each word was found.

    Attributes
    ----------
    words
        The words looked up.
    vectors
        ``(n, d)`` float32.
    sources
        Per word: ``"exact"``, ``"lower"``, ``"compound"``, ``"last_token"`` or ``"hashed"``
        (unknown: :func:`oov_vector`).
    """

    words: tuple[str, ...]
    vectors: np.ndarray
    sources: tuple[str, ...]

    @property
    def oov_mask(self) -> np.ndarray:
        """Boolean ``(n,)``: True where the word got a hashed vector."""
        return np.array([s == HASHED for s in self.sources], dtype=bool)

    @property
    def oov_rate(self) -> float:
        """Fraction of words with a hashed vector (0.0 for an empty list)."""
        return float(self.oov_mask.mean()) if self.sources else 0.0

    @property
    def oov_words(self) -> list[str]:
        """The words that got hashed vectors, in order, with repeats."""
        return [w for w, s in zip(self.words, self.sources, strict=True) if s == HASHED]


def lookup_vectors_detailed(
    kv: KeyedVectors, words: Sequence[str], *, normalize: bool = False
) -> VectorLookup:
    """Look up vectors for ``words`` and report how each was found; see :func:`lookup_vectors`."""
    key_to_index = kv.key_to_index
    dim = kv.vector_size
    words = tuple(str(w) for w in words)
    resolved = [_resolve(key_to_index, w) for w in words]
    out = np.empty((len(resolved), dim), dtype=np.float32)
    rows = np.array([i for i, _ in resolved], dtype=np.int64)
    known = rows >= 0
    if known.any():
        out[known] = kv.vectors[rows[known]]
    for pos in np.flatnonzero(~known):
        out[pos] = _oov_vector_cached(" ".join(words[pos].lower().split()), dim)
    if normalize:
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
    return VectorLookup(words, out, tuple(s for _, s in resolved))


def lookup_vectors(
    kv: KeyedVectors, words: Sequence[str], *, normalize: bool = False
) -> np.ndarray:
    """Return an ``(n, d)`` float32 matrix of vectors for ``words``; never a zero row.

    Each word is tried as it is, then lowercased (MUC-4 is upper case; GloVe is lower case),
    then, for a multiword or hyphenated form (``car bomb``, ``car-bomb``, ``car_bomb``), as
    the joined phrase (``car_bomb``, ``car-bomb``) and then its last token, the head of an
    English compound. A word still unknown gets :func:`oov_vector`: a deterministic
    pseudo-random unit vector, so its cosine with itself is 1 and with any other word about 0
    (a zero vector would make cosine undefined). Use :func:`lookup_vectors_detailed` for the
    OOV rate.

    Parameters
    ----------
    kv
        The vectors.
    words
        Words or lemmas.
    normalize
        L2-normalise every row. Known vectors have norms of about 2-8 (GloVe) while hashed
        ones have norm 1, so normalise before concatenating parts whose cosine should weigh
        them equally.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(words), kv.vector_size)``, float32, a fresh writable array.
    """
    return lookup_vectors_detailed(kv, words, normalize=normalize).vectors


def oov_rate(kv: KeyedVectors, words: Sequence[str]) -> float:
    """Fraction of ``words`` that :func:`lookup_vectors` would give a hashed vector."""
    if not words:
        return 0.0
    key_to_index = kv.key_to_index
    misses = sum(_resolve(key_to_index, str(w))[1] == HASHED for w in words)
    return misses / len(words)
