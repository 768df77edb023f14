"""benchmarks/encoder_onnx.py: the ONNX pass batches and pools as the product's encoder."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from tests.benchmark_modules import load_benchmark

encoder_onnx = load_benchmark("encoder_onnx")


def _tokenizer(texts, padding=False, return_tensors=None, **_):
    """One piece a word, its id the word's length; padded with id 0, mask 0."""
    ids = [[len(word) for word in text.split()] for text in texts]
    if not padding:
        return {"input_ids": ids}
    width = max(len(row) for row in ids)
    padded = np.array([row + [0] * (width - len(row)) for row in ids])
    mask = np.array([[1] * len(row) + [0] * (width - len(row)) for row in ids])
    return {"input_ids": padded, "attention_mask": mask, "token_type_ids": 0 * mask}


class _Session:
    """Each piece's state: (its id, 1, 0); the batches it was given are kept."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def run(self, _outputs, feeds):
        ids = feeds["input_ids"].astype(np.float32)
        self.batches.append(len(ids))
        return [np.stack([ids, np.ones_like(ids), np.zeros_like(ids)], axis=-1)]


def test_sentences_are_mean_pooled_over_their_pieces_and_kept_in_order():
    encoder = SimpleNamespace(_tokenizer=_tokenizer, recipe=SimpleNamespace(max_length=256),
                              dimension=3, batch_size=2)
    session = _Session()
    texts = ["ab", "abc a", "a bb ccc dddd"]       # 1, 2 and 4 pieces
    vectors = encoder_onnx.onnx_encode(session, encoder, texts)
    assert session.batches == [2, 1]                # the two longest first, then the last
    means = np.array([[2.0, 1, 0], [2.0, 1, 0], [2.5, 1, 0]])   # padding left out
    np.testing.assert_allclose(vectors, means / np.linalg.norm(means, axis=1, keepdims=True),
                               rtol=1e-6)
