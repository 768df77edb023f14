"""Lexical resources for entity heads and predicates.

- :mod:`aesi_lib.lexicon.wordnet`: WordNet noun types: the direct hypernyms the paper uses in
  the slot similarity (Eq. 2), noun supersenses (lexnames), ancestors at a fixed depth, and a
  coarse named-entity fallback for heads WordNet lacks.
- :mod:`aesi_lib.lexicon.vectors`: word vectors as gensim ``KeyedVectors`` (embedded GloVe
  6B 50d by default), lookups that never return a zero vector, and word2vec training on the
  corpus itself.

Both keep prepared copies under one cache root: ``cache_dir``, else ``$AESI_CACHE_DIR``, else
``~/.cache/aesi``.
"""

from aesi_lib.lexicon.vectors import (
    VectorLookup,
    concatenate,
    detect_vector_format,
    load_vectors,
    lookup_vectors,
    lookup_vectors_detailed,
    oov_rate,
    oov_vector,
    train_corpus_vectors,
)
from aesi_lib.lexicon.wordnet import (
    LEXNAMES,
    WordNetLexicon,
    coarse_type,
    load_wordnet,
    prepare_wordnet_dir,
    resolve_cache_dir,
)

__all__ = [
    "LEXNAMES",
    "VectorLookup",
    "WordNetLexicon",
    "coarse_type",
    "concatenate",
    "detect_vector_format",
    "load_vectors",
    "load_wordnet",
    "lookup_vectors",
    "lookup_vectors_detailed",
    "oov_rate",
    "oov_vector",
    "prepare_wordnet_dir",
    "resolve_cache_dir",
    "train_corpus_vectors",
]
