"""WordNet lexicon: locating/preparing the database, hypernyms, supersenses, NE fallback."""

from __future__ import annotations

import pickle
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from aesi_lib.errors import ResourceMissingError
from aesi_lib.lexicon import wordnet as wn_mod
from aesi_lib.lexicon import wordnet_files
from aesi_lib.lexicon.cache import resolve_cache_dir
from aesi_lib.lexicon.wordnet import load_wordnet
from aesi_lib.lexicon.wordnet_files import LEXNAMES, lexnames_text, prepare_wordnet_dir

DEBIAN = Path("/usr/share/wordnet")


def _any_wordnet() -> bool:
    return (DEBIAN / "data.noun").is_file() or wn_mod._nltk_wordnet_root() is not None


needs_wordnet = pytest.mark.skipif(
    not _any_wordnet(),
    reason="no WordNet here: apt-get install wordnet-base (scripts/setup.sh does)",
)


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("aesi-cache")


@pytest.fixture(scope="module")
def lexicon(cache_root: Path) -> wn_mod.WordNetLexicon:
    if not _any_wordnet():
        pytest.skip("no WordNet here: apt-get install wordnet-base")
    return load_wordnet(cache_dir=cache_root)


def test_lexnames_file_is_the_standard_list() -> None:
    lines = lexnames_text().splitlines()
    assert len(lines) == len(LEXNAMES) == 45
    assert lines[0] == "00\tadj.all\t3"
    assert lines[3] == "03\tnoun.Tops\t1"
    assert lines[18] == "18\tnoun.person\t1"
    assert lines[29] == "29\tverb.body\t2"
    assert lines[44] == "44\tadj.ppl\t3"


@needs_wordnet
def test_bomb_direct_hypernyms(lexicon: wn_mod.WordNetLexicon) -> None:
    assert lexicon.version == "3.0"
    assert lexicon.direct_hypernyms("bomb") == ("explosive_device.n.01", "weaponry.n.01")
    assert lexicon.direct_hypernyms("BOMBS") == ("explosive_device.n.01", "weaponry.n.01")
    assert lexicon.direct_hypernyms("xqzzyv") == ()


@needs_wordnet
def test_lexnames_match_the_data_files(lexicon: wn_mod.WordNetLexicon) -> None:
    # Wrong lexnames would shift every supersense: check nouns of several files and a verb.
    assert lexicon.lexname("priest") == "noun.person"
    assert lexicon.lexname("bomb") == "noun.artifact"
    assert lexicon.lexname("city") == "noun.location"
    assert lexicon.lexname("village") == "noun.group"
    assert lexicon.lexname("dog") == "noun.animal"
    assert lexicon.lexname("tree") == "noun.plant"
    assert lexicon.lexname("day") == "noun.time"
    assert lexicon.lexname("kidnapping") == "noun.act"
    assert lexicon.lexname("xqzzyv") is None
    assert lexicon.reader.synset("kill.v.01").lexname() == "verb.contact"
    assert lexicon.reader.synset("red.a.01").lexname() == "adj.all"


@needs_wordnet
def test_instances_and_compounds(lexicon: wn_mod.WordNetLexicon) -> None:
    assert lexicon.direct_hypernyms("lima") == ("national_capital.n.01",)
    for form in ("car bomb", "Car-Bomb", "car_bomb"):
        assert lexicon.noun_synsets(form)[0].name() == "car_bomb.n.01"
    # No compound entry: the last word, the head of an English compound.
    assert lexicon.noun_synsets("army helicopter")[0].name() == "helicopter.n.01"
    assert lexicon.has_noun("peasant") and not lexicon.has_noun("fmln")


@needs_wordnet
def test_hypernym_at_depth(lexicon: wn_mod.WordNetLexicon) -> None:
    paths = [tuple(s.name() for s in path)
             for path in lexicon.noun_synsets("bomb")[0].hypernym_paths()]
    first_path = lexicon.first_hypernym_path("bomb")
    assert first_path in paths  # one of WordNet's paths: weaponry or explosive_device
    assert first_path[6] == "device.n.01"  # name order picks explosive_device's branch
    assert lexicon.hypernym_at_depth("bomb", 0) == "entity.n.01"
    assert lexicon.hypernym_at_depth("bomb", 1) == "physical_entity.n.01"
    assert lexicon.hypernym_at_depth("bomb", 4) == first_path[4] == "artifact.n.01"
    assert lexicon.hypernym_at_depth("bomb", 99) == "bomb.n.01"  # shallower: the sense itself
    assert lexicon.hypernym_at_depth("xqzzyv", 3) is None
    with pytest.raises(ValueError):
        lexicon.hypernym_at_depth("bomb", -1)


@needs_wordnet
def test_semantic_types_under_each_scheme(lexicon: wn_mod.WordNetLexicon) -> None:
    st = lexicon.semantic_types
    assert st("bomb") == ("explosive_device.n.01", "weaponry.n.01")
    assert st("priest", "lexname") == ("noun.person",)
    assert st("bomb", "depth:4") == ("artifact.n.01",)
    # A name WordNet does not know has no type.
    assert st("xqzzyv") == st("garcia", "depth:3") == ()
    with pytest.raises(ValueError, match="unknown typing scheme"):
        st("bomb", "supersense")


@needs_wordnet
def test_memo_threads_and_pickle(lexicon: wn_mod.WordNetLexicon) -> None:
    words = ["bomb", "priest", "soldier", "bus", "embassy", "house", "judge", "mayor"] * 20
    serial = [lexicon.direct_hypernyms(w) for w in words]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda w: lexicon.direct_hypernyms(w), words))
    assert threaded == serial
    assert pickle.loads(pickle.dumps(lexicon)) is lexicon


@needs_wordnet
def test_explicit_path_reuses_loaded_database(
    lexicon: wn_mod.WordNetLexicon, cache_root: Path
) -> None:
    if lexicon.source == "nltk":
        pytest.skip("NLTK's own corpus was found first")
    root = Path(lexicon.source)
    assert load_wordnet(path=root) is lexicon
    assert load_wordnet(path=root.parent.parent) is lexicon  # an nltk_data dir
    with pytest.raises(ResourceMissingError, match="No WordNet database at"):
        load_wordnet(path=cache_root / "nowhere")


@pytest.mark.skipif(not (DEBIAN / "data.noun").is_file(), reason="Debian wordnet-base absent")
def test_debian_database_is_prepared_in_the_cache(
    lexicon: wn_mod.WordNetLexicon, cache_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wn_mod, "_nltk_wordnet_root", lambda: None)
    monkeypatch.setattr(wn_mod, "SYSTEM_WORDNET_DIRS", (str(DEBIAN),))
    loaded = load_wordnet(cache_dir=cache_root)
    prepared = cache_root / "nltk_data" / "corpora" / "wordnet"
    assert loaded.source == str(prepared)
    assert (prepared / "lexnames").read_text() == lexnames_text()
    assert not (prepared / "data.noun").is_symlink()
    assert loaded.direct_hypernyms("bomb") == ("explosive_device.n.01", "weaponry.n.01")


def test_prepare_copies_once_and_again_when_source_changes(tmp_path: Path) -> None:
    source = tmp_path / "dict"
    source.mkdir()
    for name in wordnet_files._REQUIRED_FILES + ("noun.exc",):
        (source / name).write_text(f"fake {name}\n")
    dest = tmp_path / "cache" / "nltk_data" / "corpora" / "wordnet"
    assert prepare_wordnet_dir(source, dest) == dest
    assert (dest / "lexnames").read_text() == lexnames_text()
    first = (dest / "data.noun").stat().st_mtime_ns
    (dest / "data.noun").write_text("marker: not copied again\n")
    prepare_wordnet_dir(source, dest)
    assert (dest / "data.noun").read_text() == "marker: not copied again\n"
    assert (dest / "data.noun").stat().st_mtime_ns >= first
    (source / "data.noun").write_text("fake data.noun, a newer release\n")
    prepare_wordnet_dir(source, dest)
    assert (dest / "data.noun").read_text() == "fake data.noun, a newer release\n"
    assert [p.name for p in dest.parent.iterdir()] == ["wordnet"]  # no temporary dirs left


def test_missing_wordnet_error_names_paths_and_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(wn_mod, "_nltk_wordnet_root", lambda: None)
    monkeypatch.setattr(wn_mod, "SYSTEM_WORDNET_DIRS", (str(empty),))
    with pytest.raises(ResourceMissingError) as info:
        load_wordnet(cache_dir=tmp_path / "cache")
    message = str(info.value)
    assert str(empty) in message
    assert str(tmp_path / "cache" / "nltk_data" / "corpora" / "wordnet") in message
    assert "apt-get install wordnet-base" in message
    assert "nltk.download('wordnet')" in message
    with pytest.raises(ResourceMissingError, match=str(empty)):
        load_wordnet(path=empty)


def test_cache_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AESI_CACHE_DIR", str(tmp_path / "env"))
    assert resolve_cache_dir() == tmp_path / "env"
    assert resolve_cache_dir(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv("AESI_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resolve_cache_dir() == tmp_path / "xdg" / "aesi"


@needs_wordnet
def test_nltk_own_corpus_is_used_first(
    lexicon: wn_mod.WordNetLexicon, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nltk

    corpus = tmp_path / "nltk_data" / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "nltk_data")])
    monkeypatch.setattr(wn_mod, "_LOADED", {})  # keep this lexicon out of other tests
    opened = []

    def fake_open(root: object) -> object:
        # Building a second real reader costs seconds; the order of lookup is under test.
        opened.append(str(root))
        return lexicon.reader

    monkeypatch.setattr(wn_mod, "_open_reader", fake_open)
    loaded = load_wordnet(cache_dir=tmp_path / "cache")
    assert loaded.source == "nltk"
    assert opened == [str(corpus)]
    assert not (tmp_path / "cache").exists()  # nothing prepared


def test_depth_types_do_not_depend_on_the_hash_seed():
    """NLTK stores hypernym pointers in sets; the chosen path must not follow their order."""
    import os
    import subprocess
    import sys

    code = ("from aesi_lib.lexicon.wordnet import load_wordnet\n"
            "w = load_wordnet()\n"
            "print([w.hypernym_at_depth(x, 4) for x in ('guerrilla', 'soldier', 'man')])\n"
            "print([w.direct_hypernyms(x) for x in ('bomb', 'lima', 'priest')])\n")
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs


@needs_wordnet
def test_verb_tagged_counts(lexicon: wn_mod.WordNetLexicon) -> None:
    # WordNet 3.0's cntlist.rev: the general-English frequency of the predicate salience.
    assert lexicon.has_tagged_counts
    assert lexicon.verb_tagged_count("say") == 2167
    assert lexicon.verb_tagged_count("kill") == 105
    assert lexicon.verb_tagged_count("bomb") == 3
    assert lexicon.verb_tagged_count("carry_out") == lexicon.verb_tagged_count("Carry out") > 0
    assert lexicon.verb_tagged_count("xqzzyv") == 0


@needs_wordnet
def test_a_database_without_tagged_counts_counts_nothing(
    lexicon: wn_mod.WordNetLexicon, tmp_path: Path
) -> None:
    source = Path(lexicon.source)
    if not (source / "cntlist.rev").is_file():
        pytest.skip("this WordNet keeps its counts elsewhere")
    copy = tmp_path / "wordnet"
    copy.mkdir()
    for name in source.iterdir():
        if name.is_file() and name.name != "cntlist.rev":
            (copy / name.name).write_bytes(name.read_bytes())
    bare = load_wordnet(path=copy)
    assert not bare.has_tagged_counts
    assert bare.verb_tagged_count("say") == 0
    assert bare.direct_hypernyms("bomb") == lexicon.direct_hypernyms("bomb")
