"""Cosine terms keep each distinct vector once (aesi_lib.model.distinct_rows)."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import scipy.sparse as sp

from aesi_lib.model.distinct_rows import _hash_weights, _row_codes, distinct_rows
from aesi_lib.model.terms import CosineTerm, GroupTerm, SimilarityOperator


def test_distinct_rows_rebuild_every_block_in_order_of_first_appearance() -> None:
    rng = np.random.default_rng(0)
    heads = rng.standard_normal((6, 5)).astype(np.float32)
    predicates = rng.standard_normal((4, 3)).astype(np.float32)
    head_ids = rng.integers(6, size=200)
    predicate_ids = rng.integers(4, size=200)
    blocks = [heads[head_ids], predicates[predicate_ids]]
    distinct, ids = distinct_rows(blocks)
    pairs = list(dict.fromkeys(zip(head_ids.tolist(), predicate_ids.tolist(), strict=True)))
    assert distinct[0].shape == (len(pairs), 5)
    assert ids[0] == 0 and np.all(np.diff(np.maximum.accumulate(ids)) <= 1)
    for block, rows in zip(blocks, distinct, strict=True):
        assert rows.array is block                  # an index into the block: no copy
        np.testing.assert_array_equal(rows.widened()[ids], block)


def test_rows_whose_hashes_collide_stay_apart() -> None:
    w = _hash_weights(2)
    # w[0]·w[1] + w[1]·0 == w[0]·0 + w[1]·w[0] (mod 2^64): the same hash, different rows.
    words = np.array([[w[1], 0], [0, w[0]], [w[1], 0]], dtype=np.uint64)
    hashes = words @ w
    assert hashes[0] == hashes[1]
    codes = _row_codes(words)
    assert codes[0] == codes[2] != codes[1]


def test_cosine_term_holds_distinct_rows_and_equals_the_dense_cosine() -> None:
    rng = np.random.default_rng(1)
    sentences = rng.standard_normal((10, 8))
    sentences[3] = 0.0                      # a sentence without a vector
    sentence_ids = rng.integers(10, size=120)
    vectors = sentences[sentence_ids]
    term = CosineTerm("context", [vectors])
    assert term.blocks[0].shape[0] == len(np.unique(sentence_ids))
    norms = np.linalg.norm(vectors, axis=1)
    unit = np.divide(vectors, norms[:, None], out=np.zeros_like(vectors),
                     where=norms[:, None] > 0)
    dense = (1.0 + unit @ unit.T) / 2.0
    X = rng.standard_normal((120, 3))
    np.testing.assert_allclose(term.matmat(X), dense @ X, atol=1e-12)
    np.testing.assert_allclose(term.diagonal(), np.diag(dense), atol=1e-12)
    # A rectangular term (new mentions as rows, repeated too).
    rows = rng.standard_normal((5, 8))[[0, 1, 0, 2, 3, 1, 4]]
    rect = CosineTerm("context", [vectors], row_blocks=[rows])
    row_unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    np.testing.assert_allclose(rect.matmat(X), (1.0 + row_unit @ unit.T) / 2.0 @ X,
                               atol=1e-12)


def test_distinct_float64_rows_are_used_as_they_are() -> None:
    vectors = np.random.default_rng(2).standard_normal((50, 4))
    term = CosineTerm("cos_p", [vectors])
    assert term.GT is None and term.blocks[0].array is vectors and term.blocks[0].direct
    np.testing.assert_array_equal(term.ids, np.arange(50))


def test_float32_rows_give_the_products_of_their_float64_copy() -> None:
    rng = np.random.default_rng(3)
    sentences = rng.standard_normal((40, 16)).astype(np.float32)
    sentence_ids = rng.integers(40, size=300)
    X = rng.standard_normal((300, 4))
    narrow = CosineTerm("context", [sentences], ids=sentence_ids)
    wide = CosineTerm("context", [sentences.astype(np.float64)], ids=sentence_ids)
    assert narrow.blocks[0].array is sentences
    np.testing.assert_array_equal(narrow.scale, wide.scale)
    np.testing.assert_allclose(narrow.matmat(X), wide.matmat(X), rtol=1e-13, atol=0)
    # Tied to units (one unit a tenth of the mentions), with slabs of one column.
    units = np.arange(300) // 30
    G = sp.csr_matrix((np.ones(300), (np.arange(300), units)), shape=(300, 10))
    Y = rng.standard_normal((10, 2))
    with patch("aesi_lib.model.distinct_rows._SLAB_ELEMENTS", 40):
        np.testing.assert_allclose(narrow.tied(G).matmat(Y), wide.tied(G).matmat(Y),
                                   rtol=1e-13, atol=0)
        np.testing.assert_allclose(narrow.matmat(X), wide.matmat(X), rtol=1e-13, atol=0)


def test_operators_that_share_terms_multiply_each_by_one_once() -> None:
    rng = np.random.default_rng(4)
    vectors = rng.standard_normal((60, 5))
    deps = rng.integers(3, size=60)
    cosine, group = CosineTerm("cos_p", [vectors]), GroupTerm("dep", deps, None, 3)
    first = SimilarityOperator([(1.0, cosine), (0.5, group)], zero_diagonal=True)
    np.testing.assert_array_equal(first.degrees(), first @ np.ones(60))
    # A second operator over the same terms (a consensus member) reuses their row sums.
    second = SimilarityOperator([(2.0, cosine), (0.5, group)])
    with patch.object(CosineTerm, "matmat", side_effect=AssertionError("multiplied again")), \
            patch.object(GroupTerm, "matmat", side_effect=AssertionError("multiplied again")):
        degrees = second.degrees()
    np.testing.assert_array_equal(degrees, second @ np.ones(60))
