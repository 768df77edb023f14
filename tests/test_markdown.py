"""The one Markdown table writer."""

from __future__ import annotations

import pytest

from aesi_lib.markdown import markdown_table


def test_header_separator_and_rows():
    table = markdown_table(["a", "b"], [(1, "x"), (2.5, "")])
    assert table == "| a | b |\n|---|---|\n| 1 | x |\n| 2.5 |  |\n"


def test_cells_go_through_the_cell_function_and_rows_must_fit():
    assert markdown_table(["h"], [["a|b"]], cell=lambda v: str(v).replace("|", "\\|")) == (
        "| h |\n|---|\n| a\\|b |\n")
    with pytest.raises(ValueError, match="2 cells, the header 1"):
        markdown_table(["h"], [(1, 2)])
