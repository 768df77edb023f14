"""The cached steps' tables (``aesi_lib.run.table_files``): written whole or not at all."""

from __future__ import annotations

import pandas as pd

from aesi_lib.run.table_files import save_table


def test_a_table_round_trips_without_its_index_and_leaves_no_temporary_file(tmp_path):
    frame = pd.DataFrame({"doc_id": ["a", "b"], "entity_id": [0, 1]}, index=[7, 9])
    path = tmp_path / "tables" / "entities-x.parquet"
    save_table(path, frame)
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame.reset_index(drop=True))
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    save_table(path, frame.iloc[:1])                 # replaced, not appended
    assert len(pd.read_parquet(path)) == 1
