"""Parsing in several processes (aesi_lib.parse.parallel) against parsing in this process."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from aesi_lib.corpus.demo import load_demo_corpus
from aesi_lib.corpus.types import Document
from aesi_lib.entities import extract_entities
from aesi_lib.errors import ResourceMissingError
from aesi_lib.parse.backends import (
    CHARS_PER_PROCESS,
    ParserConfig,
    make_parser,
    parse_processes,
    usable_cores,
)
from aesi_lib.parse.cache import encode_parse, parse_with_cache
from aesi_lib.parse.parallel import (
    ParallelParser,
    ParseWorkerError,
    plan_pieces,
    shutdown_pools,
)
from aesi_lib.parse.spacy_backend import SpacyParser, spacy_doc_to_parsed
from aesi_lib.parse.types import ParsedDocument, Sentence, Token

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def demo_docs() -> list[Document]:
    return load_demo_corpus().documents[:12]


@pytest.fixture(scope="module")
def single(demo_docs) -> list[ParsedDocument]:
    parser = make_parser(ParserConfig(n_process=1))
    assert isinstance(parser, SpacyParser)
    return list(parser.parse(demo_docs))


@pytest.fixture(scope="module")
def light_model(tmp_path_factory) -> str:
    """A spaCy pipeline that loads in no time (a sentencizer, no statistical component), for
    the tests of the worker processes themselves."""
    import spacy

    nlp = spacy.blank("en")
    # Named "parser": load_spacy_pipeline switches off components the entities do not need.
    nlp.add_pipe("sentencizer", name="parser")
    path = tmp_path_factory.mktemp("light-model") / "light"
    nlp.to_disk(path)
    return str(path)


def light_config(model: str) -> ParserConfig:
    return ParserConfig(model=model, casing="asis", n_process=2)


@pytest.fixture(scope="module")
def parallel_parser() -> ParallelParser:
    parser = make_parser(ParserConfig(n_process=2))
    assert isinstance(parser, ParallelParser)
    return parser.load()


def test_parses_are_byte_identical_to_one_process(parallel_parser, demo_docs, single):
    # Several calls of different sizes: the pieces (and so spaCy's batches) differ each time.
    for docs in (demo_docs, demo_docs[:1], demo_docs[3:8], demo_docs[::-1]):
        out = list(parallel_parser.parse(docs))
        expected = [single[demo_docs.index(d)] for d in docs]
        assert [p.doc_id for p in out] == [d.doc_id for d in docs]
        assert out == expected
        # Same cache bytes, same entities, same token types.
        assert [encode_parse(p) for p in out] == [encode_parse(p) for p in expected]
        assert [extract_entities(p) for p in out] == [extract_entities(p) for p in expected]
        tokens = [t for p in out for s in p.sentences for t in s.tokens]
        assert all(type(t.head) is int and type(t.whitespace_after) is bool for t in tokens)
    assert list(parallel_parser.parse([])) == []


def test_same_config_id_whatever_the_process_count(parallel_parser):
    single_id = make_parser(ParserConfig(n_process=1)).config_id
    assert parallel_parser.config_id == single_id
    assert "n_process" not in single_id


def test_cache_written_by_workers_is_the_single_process_cache(parallel_parser, demo_docs,
                                                              single, tmp_path):
    parses, stats = parse_with_cache(parallel_parser, demo_docs, tmp_path / "par")
    assert (stats.parsed, stats.reused) == (len(demo_docs), 0)
    assert parses == single
    _, again = parse_with_cache(parallel_parser, demo_docs, tmp_path / "par")
    assert (again.parsed, again.reused) == (0, len(demo_docs))
    # The in-process parser finds every entry the workers' parses left.
    from_one, one_stats = parse_with_cache(make_parser(ParserConfig(n_process=1)), demo_docs,
                                           tmp_path / "par")
    assert one_stats.parsed == 0 and from_one == single


def test_fast_conversion_matches_the_token_by_token_reading(demo_docs):
    """spacy_doc_columns reads whole arrays; this is the conversion it replaced."""
    parser = SpacyParser().load()
    texts = [d.text for d in demo_docs] + ["", "   \n\n  ", "A.\n\n\n\nB  C.", "x  \n y"]
    for i, spacy_doc in enumerate(parser.nlp.pipe(texts)):
        text = texts[i]
        for original in (text, None):
            assert spacy_doc_to_parsed(spacy_doc, "D", original) == \
                _reference_conversion(spacy_doc, "D", original)


def _reference_conversion(doc, doc_id: str, original_text: str | None) -> ParsedDocument:
    sentences = []
    for sent in doc.sents:
        start, n = sent.start, len(sent)
        is_space = [tok.is_space for tok in sent]
        kept = [i for i in range(n) if not is_space[i]]
        if not kept:
            continue
        new_index = {old: new for new, old in enumerate(kept)}
        heads = [tok.head.i - start for tok in sent]
        tokens = []
        for old in kept:
            tok = sent[old]
            head = heads[old]
            while 0 <= head < n and head != old and is_space[head]:
                if heads[head] == head:
                    break
                head = heads[head]
            new_head = -1 if head == old or head not in new_index else new_index[head]
            text = tok.text if original_text is None else \
                original_text[tok.idx:tok.idx + len(tok.text)]
            tokens.append(Token(text=text, lemma=tok.lemma_, upos=tok.pos_, tag=tok.tag_,
                                head=new_head, dep=tok.dep_ if new_head >= 0 else "ROOT",
                                ent_type=tok.ent_type_, start_char=tok.idx,
                                whitespace_after=bool(tok.whitespace_)
                                or (old + 1 < n and is_space[old + 1])))
        sentences.append(Sentence(tokens=tuple(tokens)))
    return ParsedDocument(doc_id=doc_id, sentences=tuple(sentences))


def test_pieces_cover_the_documents_in_order_and_shrink():
    rng = random.Random(0)
    for n_docs in (1, 2, 7, 50, 400):
        sizes = [rng.randint(1, 5000) for _ in range(n_docs)]
        for n_process in (2, 3, 8):
            pieces = plan_pieces(sizes, n_process, max_docs=32, min_docs=4)
            assert pieces[0][0] == 0 and pieces[-1][1] == n_docs
            assert all(p[1] == q[0] for p, q in zip(pieces, pieces[1:], strict=False))
            assert all(4 <= b - a <= 32 for a, b in pieces[:-1])
            assert 1 <= pieces[-1][1] - pieces[-1][0] <= 32
            if n_docs == 400:
                # Large pieces first, the fewest documents at the end.
                text = [sum(sizes[a:b]) for a, b in pieces]
                assert text[0] > 3 * text[-1] and pieces[-2][1] - pieces[-2][0] == 4


def test_process_count():
    assert parse_processes(ParserConfig(n_process=3)) == 3
    assert parse_processes(ParserConfig(n_process=3), text_chars=10) == 3
    assert parse_processes(ParserConfig()) == usable_cores()
    # A few documents are not worth starting processes; Stanza uses torch's threads.
    assert parse_processes(ParserConfig(), text_chars=CHARS_PER_PROCESS - 1) == 1
    assert parse_processes(ParserConfig(), text_chars=100 * CHARS_PER_PROCESS) == usable_cores()
    assert parse_processes(ParserConfig(backend="stanza")) == 1
    assert isinstance(make_parser(ParserConfig(n_process=1)), SpacyParser)
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_process"):
            ParserConfig(n_process=bad)


def test_automatic_count_parses_a_few_documents_in_process(demo_docs, single):
    # batch_size 31: a configuration whose workers no other test starts.
    parser = make_parser(ParserConfig(batch_size=31))
    if usable_cores() < 2:
        assert isinstance(parser, SpacyParser)
        return
    assert isinstance(parser, ParallelParser) and parser.small_in_process
    assert list(parser.parse(demo_docs)) == single
    assert parser.config_id == make_parser(ParserConfig(n_process=1)).config_id
    assert parser._pool is None and parser.worker_peak_rss_mib == {}


def test_a_missing_model_is_reported_from_the_workers(demo_docs):
    parser = make_parser(ParserConfig(model="no_such_spacy_model_xyz", n_process=2))
    with pytest.raises(ResourceMissingError, match="no_such_spacy_model_xyz"):
        list(parser.parse(demo_docs[:2]))


def test_dead_workers_fail_the_call_and_the_next_call_gets_new_ones(light_model, demo_docs):
    parser = make_parser(light_config(light_model)).load()
    expected = list(make_parser(replace(light_config(light_model), n_process=1)).parse(demo_docs))
    old_pids = set(parser.worker_peak_rss_mib)
    assert len(old_pids) == 2
    for pid in old_pids:
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(ParseWorkerError, match="died"):
        list(parser.parse(demo_docs))
    assert list(parser.parse(demo_docs)) == expected
    assert not old_pids & set(parser.worker_peak_rss_mib)


def test_released_workers_end_and_the_parser_starts_new_ones(light_model, demo_docs):
    parser = make_parser(light_config(light_model)).load()
    first = list(parser.parse(demo_docs[:3]))
    old_pids = set(parser.worker_peak_rss_mib)
    shutdown_pools()
    assert not any(_alive(p) for p in old_pids)
    assert list(parser.parse(demo_docs[:3])) == first
    assert set(parser.worker_peak_rss_mib).isdisjoint(old_pids)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")


@pytest.mark.parametrize("how", ["SIGKILL", "exit"])
def test_workers_do_not_outlive_their_parent(light_model, tmp_path, how):
    """Killed outright, or exiting normally with parses running: no worker is left."""
    script = tmp_path / "parent.py"
    # No ``if __name__ == "__main__"`` guard: workers never import the parent's main module.
    script.write_text(textwrap.dedent("""
        import sys, time
        from aesi_lib.corpus.demo import load_demo_corpus
        from aesi_lib.parse.backends import ParserConfig, make_parser
        parser = make_parser(ParserConfig(model=sys.argv[2], casing="asis", n_process=2))
        parser.load()
        print(*parser.worker_peak_rss_mib, flush=True)
        docs = load_demo_corpus().documents * 200
        parses = parser.parse(docs)
        next(parses)                         # pieces queued and running
        print("parsing", flush=True)
        if sys.argv[1] == "SIGKILL":
            time.sleep(60)
    """))
    proc = subprocess.Popen([sys.executable, str(script), how, light_model], stdout=subprocess.PIPE,
                            text=True, cwd=REPO)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        # Their own session: a Ctrl-C in the terminal goes to the parent only.
        assert all(os.getsid(p) != os.getsid(proc.pid) for p in pids)
        assert proc.stdout.readline().strip() == "parsing"
        if how == "SIGKILL":
            proc.kill()
        assert proc.wait(timeout=30) != 0 or how == "exit"
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in pids)
    finally:
        if proc.poll() is None:
            proc.kill()
