"""The growing vocabulary of the scale curve's copies (benchmarks/scale_curve.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmark_modules import BENCHMARKS, load_benchmark

sys.path.insert(0, str(BENCHMARKS))       # the script imports its neighbour aesi_commands
bench = load_benchmark("scale_curve")


def test_a_renamed_word_is_a_new_word_of_the_same_shape():
    for shift in range(1, 8):
        new = bench.renamed_word("Quezaltepeque", shift)
        assert new != "Quezaltepeque" and len(new) == len("Quezaltepeque")
        assert new[0].isupper() and new[1:].islower()
        assert [c in "aeiou" for c in new.lower()] == [c in "aeiou" for c in "quezaltepeque"]
    assert len({bench.renamed_word("bomb", c) for c in range(1, 8)}) == 7
    assert bench.renamed_word("a-e'i", 3) == "a-e'i"


def _letters(n: int) -> str:
    """A word of letters only, one for each n."""
    word = ""
    while True:
        word, n = "abcdefghijklmnopqrstuvwxyz"[n % 26] + word, n // 26
        if n == 0:
            return "q" + word


def test_heaps_exponent_of_a_text_that_repeats_its_words_is_near_zero_and_of_new_words_one():
    assert bench.heaps_exponent(["alpha beta gamma"] * 50) < 0.05
    fresh = [" ".join(_letters(3 * i + k) for k in range(3)) for i in range(50)]
    assert bench.heaps_exponent(fresh) > 0.95


def test_the_copies_add_the_words_heaps_law_predicts(tmp_path: Path, monkeypatch):
    base = [f"It tells of {' '.join(_letters(j) for j in range(i * 3, i * 3 + 5))} and the "
            "bomb." for i in range(40)]
    documents = [type("D", (), {"doc_id": f"D{i}", "text": t}) for i, t in enumerate(base)]
    split = type("S", (), {"documents": documents})
    monkeypatch.setattr("aesi_lib.corpus.muc4.load_muc4_corpus", lambda _: [split])
    out = tmp_path / "x4.jsonl"
    info = bench.write_corpus(tmp_path, 4, out)
    texts = [json.loads(line)["text"] for line in out.read_text().splitlines()]
    assert len(texts) == info["documents"] == 160
    beta, v1 = info["heaps_beta"], info["base_words"]
    assert 0 < beta < 1
    words = {w.lower() for t in texts for w in bench.WORD.findall(t)}
    renamed = sum(info["renamed_per_copy"])
    assert info["renamed_per_copy"][0] == 0
    # Every renamed word is new, so the corpus has the base's words plus the renamed ones
    # (and "copy", the line each copy ends with), about V1 * 4^beta.
    assert len(words) == v1 + renamed + 1
    assert abs(v1 + renamed - v1 * 4 ** beta) <= 3
    # The common words stay: "bomb" is in every copy.
    assert all("bomb." in t for t in texts)
    plain = bench.write_corpus(tmp_path, 2, tmp_path / "x2.jsonl", heaps=False)
    assert plain["heaps_beta"] is None and plain["renamed_per_copy"] == [0, 0]


def test_the_projected_peak_is_the_largest_steps_and_is_checked_against_the_target():
    def run(copies: int, parse_gb: float, solve_gb: float) -> dict:
        return {"copies": copies, "documents": 10 * copies, "mentions": 1000 * copies,
                "flow_s": 10.0 * copies, "wall_s": 12.0 * copies,
                "peak_gb": max(parse_gb, solve_gb),
                "steps": {"parse+store": {"seconds": 5.0 * copies, "peak_gb": parse_gb},
                          "solve": {"seconds": 2.0 * copies, "peak_gb": solve_gb}}}

    # The parse's peak is the process's at ×1, the solve's at ×4: a line through the
    # process's peaks (2, 2, 4 GB) would project 8 GB, less than the solve's own 10 GB.
    runs = [run(1, 2.0, 1.0), run(2, 2.0, 2.0), run(4, 2.0, 4.0)]
    text = bench.tables(runs, project_to=10_000, measured="then", memory_target=9.0)
    flow = next(line for line in text.splitlines() if line.startswith("| **flow**"))
    assert flow.endswith(", 10 GB (solve) |")
    assert "- MISSED: the peak at 1e+04 mentions, its largest step's (solve), is 10 GB" in text
    ok = bench.tables(runs, project_to=10_000, measured="then", memory_target=12.0)
    assert "- ok: the peak at 1e+04 mentions" in ok
