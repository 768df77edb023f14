"""The Python API (``aesi_lib.SchemaInducer``): the command line's labels in a few lines."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from aesi_lib import SchemaInducer
from aesi_lib.corpus.demo import load_demo_corpus
from aesi_lib.errors import ConfigError, InputError
from aesi_lib.events.incidents import EVENT_COLUMNS
from aesi_lib.inducer import as_documents

NEW = ("Guerrillas attacked the police station in the capital.\n"
       "Two  officers were killed   by a bomb.")


@pytest.fixture(scope="module")
def fitted(demo_seed, tmp_path_factory) -> SchemaInducer:
    cache = tmp_path_factory.mktemp("inducer") / "cache"
    shutil.copytree(demo_seed.caches, cache)
    return SchemaInducer(preset="default", cache_dir=cache).fit(load_demo_corpus().documents)


def test_fit_gives_the_labels_of_aesi_run(fitted, demo_seed):
    # The same documents, preset and seed as `aesi run --demo`: the same export, row by row.
    cli = pd.read_parquet(demo_seed.out / "assignments.parquet")
    pd.testing.assert_frame_equal(fitted.assignments_.reset_index(drop=True), cli,
                                  check_dtype=False)


def test_the_schema_and_the_events_are_tables_of_the_fitted_documents(fitted, demo_seed):
    schema = fitted.schema_
    assert {"template", "template_name", "template_kind", "slot", "position", "share",
            "minor", "description"} <= set(schema.columns)
    assert len(schema) == len(fitted.assignments_.groupby(["template", "slot"]))
    assert schema.groupby("template")["share"].sum().round(6).eq(1.0).all()
    events = fitted.events_
    assert list(events.columns) == list(EVENT_COLUMNS) and len(events)
    # The events of `aesi run --demo`, by the same rule.
    pd.testing.assert_frame_equal(events, pd.read_parquet(demo_seed.out / "events.parquet"))
    texts = {d.doc_id: d.original or d.text for d in load_demo_corpus().documents}
    assert all(texts[d][a:b] == m for d, a, b, m in zip(
        events["doc_id"], events["start_char"], events["end_char"], events["mention"],
        strict=True))


def test_transform_fills_new_documents_with_the_fitted_schema(fitted, tmp_path):
    events = fitted.transform([("new-1", NEW)])
    assert set(events["doc_id"]) == {"new-1"}
    assert all(NEW[a:b] == m for a, b, m in zip(events["start_char"], events["end_char"],
                                                  events["mention"], strict=True))
    names = dict(zip(fitted.schema_["template"], fitted.schema_["template_name"], strict=True))
    assert all(names[t] == n for t, n in zip(events["template"], events["template_name"],
                                             strict=True))
    # Saved and loaded, the model fills them the same way.
    fitted.save(tmp_path / "model")
    loaded = SchemaInducer.load(tmp_path / "model")
    pd.testing.assert_frame_equal(loaded.transform([("new-1", NEW)]), events)
    pd.testing.assert_frame_equal(loaded.schema_, fitted.schema_)


SPANISH = ("La policía informó que los guerrilleros atacaron la estación de la capital y que "
           "dos agentes murieron por una bomba que estalló en la entrada del edificio.")


def test_a_folder_is_read_as_the_command_line_reads_it(fitted, tmp_path, caplog):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "en.txt").write_text(NEW)
    (folder / "es.txt").write_text(SPANISH)
    with caplog.at_level("WARNING", logger="aesi_lib.corpus.plain"):
        events = fitted.transform(folder)
    assert set(events["doc_id"]) == {"en"}
    assert [r.getMessage() for r in caplog.records] == [
        f"skipping {folder / 'es.txt'}: not English (looks like Spanish; --keep-non-english "
        "keeps it)"]
    caplog.clear()
    keeping = SchemaInducer(keep_non_english=True)
    assert keeping.keep_non_english is True
    fitted.keep_non_english = True
    try:
        with caplog.at_level("WARNING", logger="aesi_lib.corpus.plain"):
            fitted.transform(folder)
        assert not caplog.records
        fitted.save(tmp_path / "model")
        assert SchemaInducer.load(tmp_path / "model").keep_non_english is True
    finally:
        fitted.keep_non_english = False


def test_documents_may_be_texts_pairs_or_a_path(tmp_path):
    texts = as_documents(["One text.", "Another  text.\nSecond line."])
    assert [d.doc_id for d in texts] == ["doc-00001", "doc-00002"]
    assert texts[1].original == "Another  text.\nSecond line."
    (tmp_path / "a.txt").write_text("A file.")
    assert [d.doc_id for d in as_documents(tmp_path)] == ["a"]
    with pytest.raises(InputError, match="duplicate id"):
        as_documents([("x", "a"), ("x", "b")])
    with pytest.raises(InputError, match="empty text"):
        as_documents([("x", "  ")])
    with pytest.raises(InputError, match="no documents"):
        as_documents([])


def test_an_unfitted_model_and_a_bad_setting_say_so(tmp_path):
    with pytest.raises(AttributeError, match="not fitted yet"):
        _ = SchemaInducer().schema_
    with pytest.raises(ConfigError, match="model.n_templatez"):
        SchemaInducer(config={"model": {"n_templatez": 3}})
    with pytest.raises(InputError, match="not a saved SchemaInducer"):
        SchemaInducer.load(tmp_path)
