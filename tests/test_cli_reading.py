"""--encoding and --skip-bad: the --docs files are checked before any work with the options
given, and the flows read them the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows import cli


def _docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_bytes("THE MAYOR OF SAN JOSÉ WAS MURDERED.".encode("latin-1"))
    (folder / "empty.txt").write_text(" \n")
    return folder


def test_bad_files_stop_the_command_before_any_work(tmp_path, capsys):
    folder = _docs(tmp_path)
    code = cli.main(["run", "--docs", str(folder), "--encoding", "utf-8",
                     "--project-dir", str(tmp_path / "p"), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "2 bad files" in err and "empty.txt: empty file" in err
    assert "good.txt: line 1: not valid UTF-8" in err and "--skip-bad" in err
    assert not (tmp_path / "p").exists()


def test_the_loader_reads_with_the_encoding_and_skips_what_it_must(tmp_path):
    from prefect.logging import disable_run_logger

    from aesi_lib.errors import InputError
    from tasks.ingest import load_corpus_task

    folder = _docs(tmp_path)
    with disable_run_logger():
        corpus = load_corpus_task.fn(docs_path=str(folder), encoding="latin-1", skip_bad=True)
        assert [d.doc_id for d in corpus.documents] == ["good"]
        assert corpus.documents[0].text == "THE MAYOR OF SAN JOSÉ WAS MURDERED."
        with pytest.raises(InputError, match="empty file"):
            load_corpus_task.fn(docs_path=str(folder), encoding="latin-1")


def test_a_runs_corpus_is_the_demo_when_asked_else_the_documents_given(tmp_path):
    from aesi_lib.corpus.sources import load_corpus

    folder = _docs(tmp_path)
    given = load_corpus(None, str(folder), "skip", split="inbox", encoding="latin-1")
    assert given.name == "user" and given.eval_keys is None
    assert [(d.doc_id, d.split) for d in given.documents] == [("good", "inbox")]
    demo = load_corpus(None, str(folder), demo=True)
    assert demo.name == "demo" and demo.eval_keys and demo.eval_label == "demo"


def test_update_and_extract_take_the_reading_options():
    parser = cli.build_parser()
    for command in (["update", "--docs", "x"], ["extract", "--docs", "x", "--run", "r"],
                    ["run"]):
        args = parser.parse_args([*command, "--encoding", "cp1252", "--skip-bad"])
        assert (args.encoding, args.skip_bad) == ("cp1252", True)


def test_the_early_check_leaves_the_skip_warnings_to_the_flow(tmp_path, caplog):
    import logging

    from flows.cli.options import check_docs

    folder = _docs(tmp_path)
    with caplog.at_level(logging.WARNING):
        check_docs(str(folder), encoding="latin-1", skip_bad=True)
    assert not [r for r in caplog.records if "skipping" in r.getMessage()]
    # The reader itself still warns (the flow's reading prints each skipped file once).
    from aesi_lib.corpus.plain import read_plain_documents

    with caplog.at_level(logging.WARNING):
        read_plain_documents(folder, on_error="skip", encoding="latin-1")
    assert [r for r in caplog.records if "skipping" in r.getMessage()]
