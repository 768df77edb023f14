"""--encoding and --skip-bad: the --docs files are checked before any work with the options
given, and the flows read them the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

import aesi_cli as cli


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
    from aesi_lib.steps.ingest import load_corpus_step

    folder = _docs(tmp_path)
    with disable_run_logger():
        corpus = load_corpus_step.fn(docs_path=str(folder), encoding="latin-1", skip_bad=True)
        assert [d.doc_id for d in corpus.documents] == ["good"]
        assert corpus.documents[0].text == "THE MAYOR OF SAN JOSÉ WAS MURDERED."
        with pytest.raises(InputError, match="empty file"):
            load_corpus_step.fn(docs_path=str(folder), encoding="latin-1")


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

    from aesi_cli.options import check_docs

    folder = _docs(tmp_path)
    with caplog.at_level(logging.WARNING):
        check_docs(str(folder), encoding="latin-1", skip_bad=True)
    assert not [r for r in caplog.records if "skipping" in r.getMessage()]
    # The reader itself still warns (the flow's reading prints each skipped file once).
    from aesi_lib.corpus.plain import read_plain_documents

    with caplog.at_level(logging.WARNING):
        read_plain_documents(folder, on_error="skip", encoding="latin-1")
    assert [r for r in caplog.records if "skipping" in r.getMessage()]


def test_each_file_has_its_encoding_unless_one_is_given_and_non_english_is_a_flag():
    parser = cli.build_parser()
    for command in (["update", "--docs", "x"], ["extract", "--docs", "x", "--run", "r"],
                    ["run"]):
        args = parser.parse_args(command)
        assert (args.encoding, args.keep_non_english) == (None, False)
        args = parser.parse_args([*command, "--keep-non-english"])
        assert args.keep_non_english is True
    from aesi_cli.options import reading

    assert reading(parser.parse_args(["run", "--keep-non-english"]))["keep_non_english"] is True


def test_the_loader_lists_what_it_leaves_out_as_not_english(tmp_path):
    from prefect.logging import disable_run_logger

    from aesi_lib.steps.ingest import load_corpus_step

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "en.txt").write_text("The mayor of the town was killed on Tuesday by an armed "
                                   "group, the police said.")
    (folder / "es.txt").write_text("El alcalde de la ciudad fue asesinado el martes por un "
                                   "grupo armado, según informó la policía.")
    with disable_run_logger():
        corpus = load_corpus_step.fn(docs_path=str(folder))
        assert [d.doc_id for d in corpus.documents] == ["en"]
        assert corpus.left_out == [{"doc_id": "es", "source": str(folder / "es.txt"),
                                    "reason": "not English (looks like Spanish)"}]
        kept = load_corpus_step.fn(docs_path=str(folder), keep_non_english=True)
        assert [d.doc_id for d in kept.documents] == ["en", "es"] and kept.left_out == []


def test_a_folder_of_no_english_stops_the_command_with_the_flag_named(tmp_path, capsys):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "fr.txt").write_text("Le maire de la ville a été tué mardi par un groupe armé, a "
                                   "indiqué la police.")
    code = cli.main(["run", "--docs", str(folder), "--project-dir", str(tmp_path / "p"),
                     "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "no usable documents" in err and "--keep-non-english" in err
    assert not (tmp_path / "p").exists()
