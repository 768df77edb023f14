"""benchmarks/encoder_onnx.py: the batch check tells a runtime whose vectors depend on the
batch from one whose do not."""

from __future__ import annotations

import numpy as np

from tests.benchmark_modules import load_benchmark

encoder_onnx = load_benchmark("encoder_onnx")


class _Encoder:
    """Each sentence's vector is (its length, 1); ``batch_bias`` adds the batch's size."""

    def __init__(self, batch_bias: float) -> None:
        self.batch_bias = batch_bias

    def encode(self, texts):
        return np.array([[len(t) + self.batch_bias * len(texts), 1.0] for t in texts])


def test_the_batch_check_is_zero_only_for_vectors_that_ignore_their_batch():
    texts = ["one", "three", "five words"]
    assert encoder_onnx.batch_difference(_Encoder(0.0), texts) == 0.0
    assert encoder_onnx.batch_difference(_Encoder(0.5), texts) == 1.0     # 3 · 0.5 - 0.5
