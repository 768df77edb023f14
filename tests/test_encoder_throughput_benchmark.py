"""benchmarks/encoder_throughput.py: the word-piece caps table."""

from __future__ import annotations

from types import SimpleNamespace

from tests.benchmark_modules import load_benchmark

throughput = load_benchmark("encoder_throughput")


class _WordsAsPieces:
    """Stands in for the encoder: one word piece a word, plus the two special tokens."""

    recipe = SimpleNamespace(max_length=256)

    def _load(self) -> None:
        self._tokenizer = lambda texts, **_: {
            "input_ids": [[0] * (len(t.split()) + 2) for t in texts]}


def test_caps_count_the_sentences_cut_and_the_pieces_kept(capsys):
    texts = ["one two", "one two three four five six seven eight"]      # 4 and 10 pieces
    throughput.print_piece_caps(texts, _WordsAsPieces(), [4, 8, 16])
    out = capsys.readouterr().out
    assert "2 mention sentences, 14 word pieces: mean 7.0" in out
    assert "| 4 | 50.0% | 57.1% |" in out           # 4 + 4 of 14
    assert "| 8 | 50.0% | 85.7% |" in out           # 4 + 8 of 14
    assert "| 16 | 0.0% | 100.0% |" in out
