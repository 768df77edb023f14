"""Lexical resources for entity heads and predicates.

- :mod:`aesi_lib.lexicon.wordnet`: WordNet noun types: the direct hypernyms the paper uses in
  the slot similarity (Eq. 2), noun supersenses (lexnames) and ancestors at a fixed depth;
  :mod:`aesi_lib.lexicon.wordnet_files` finds the database and prepares a copy NLTK can read.
- :mod:`aesi_lib.lexicon.vectors`: word vectors as gensim ``KeyedVectors`` (embedded GloVe
  6B 50d by default, or a user's file); :mod:`aesi_lib.lexicon.vector_lookup`: lookups that
  never return a zero vector.
- :mod:`aesi_lib.lexicon.encoder`: the encoder pass, a sentence vector per mention sentence,
  cached per document; :mod:`aesi_lib.lexicon.onnx_graph` runs its transformer in ONNX
  Runtime on the CPU; :mod:`aesi_lib.lexicon.model_folder` checks a user's model folder;
  :mod:`aesi_lib.lexicon.mention_context` turns the pass's vectors into the mentions' context
  vectors.

These keep prepared copies under one cache root: ``cache_dir``, else ``$AESI_CACHE_DIR``, else
``~/.cache/aesi``.
"""

from aesi_lib.lexicon.cache import resolve_cache_dir
from aesi_lib.lexicon.vector_lookup import (
    VectorLookup,
    lookup_vectors,
    lookup_vectors_detailed,
    oov_rate,
    oov_vector,
)
from aesi_lib.lexicon.vectors import detect_vector_format, load_vectors
from aesi_lib.lexicon.wordnet import WordNetLexicon, load_wordnet
from aesi_lib.lexicon.wordnet_files import LEXNAMES, prepare_wordnet_dir

__all__ = [
    "LEXNAMES",
    "VectorLookup",
    "WordNetLexicon",
    "detect_vector_format",
    "load_vectors",
    "load_wordnet",
    "lookup_vectors",
    "lookup_vectors_detailed",
    "oov_rate",
    "oov_vector",
    "prepare_wordnet_dir",
    "resolve_cache_dir",
]
