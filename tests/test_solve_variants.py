"""benchmarks/solve_variants.py: a replaced attribute comes back after its block, also when
the block fails."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from tests.benchmark_modules import BENCHMARKS, load_benchmark

sys.path.insert(0, str(BENCHMARKS))       # the script imports its neighbours
solve_variants = load_benchmark("solve_variants")


def test_a_replaced_attribute_comes_back_after_its_block_even_when_it_fails():
    owner = SimpleNamespace(cut="library")
    with solve_variants.replaced(owner, "cut", "variant"):
        assert owner.cut == "variant"
    assert owner.cut == "library"
    with pytest.raises(RuntimeError), solve_variants.replaced(owner, "cut", "variant"):
        raise RuntimeError("the solve failed")
    assert owner.cut == "library"
