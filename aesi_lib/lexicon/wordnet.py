"""WordNet noun types for entity heads: direct hypernyms (paper, Eq. 2), supersenses, depth cuts.

Where WordNet comes from (first that works):

1. an explicit ``path`` given by the user (a WordNet ``dict`` directory, or an ``nltk_data``
   directory holding ``corpora/wordnet``);
2. NLTK's own ``wordnet`` corpus (``nltk.download('wordnet')``), found with ``nltk.data.find``;
3. Debian's ``wordnet-base`` database under ``/usr/share/wordnet``, prepared once into the cache
   (``<cache>/nltk_data/corpora/wordnet``): the files are copied and the ``lexnames`` file that
   Debian lacks is written from the standard list below;
4. a cache prepared by an earlier run, even if its source has since gone.

The cache root is ``cache_dir``, else ``$AESI_CACHE_DIR``, else ``$XDG_CACHE_HOME/aesi``, else
``~/.cache/aesi``.

NLTK's reader calls ``map_wn()`` when it is built, which opens NLTK's *own* ``wordnet`` corpus
and its ``index.sense`` to map synset ids for the multilingual (OMW) functions. Debian ships no
``index.sense``, and aesi never uses OMW, so the reader here skips that mapping
(:class:`_AesiWordNetReader`); only ``lemma_from_key`` is unavailable without ``index.sense``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any, Literal

from aesi_lib.errors import ResourceMissingError

# The 45 WordNet lexicographer files (WordNet 3.0 and 3.1 ``lexnames``): number, name and
# syntactic category (1 noun, 2 verb, 3 adjective, 4 adverb). Each synset in the data files
# stores its lexicographer file number, so the order matters.
LEXNAMES: tuple[tuple[str, int], ...] = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1),
    ("noun.animal", 1), ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1),
    ("noun.cognition", 1), ("noun.communication", 1), ("noun.event", 1), ("noun.feeling", 1),
    ("noun.food", 1), ("noun.group", 1), ("noun.location", 1), ("noun.motive", 1),
    ("noun.object", 1), ("noun.person", 1), ("noun.phenomenon", 1), ("noun.plant", 1),
    ("noun.possession", 1), ("noun.process", 1), ("noun.quantity", 1), ("noun.relation", 1),
    ("noun.shape", 1), ("noun.state", 1), ("noun.substance", 1), ("noun.time", 1),
    ("verb.body", 2), ("verb.change", 2), ("verb.cognition", 2), ("verb.communication", 2),
    ("verb.competition", 2), ("verb.consumption", 2), ("verb.contact", 2), ("verb.creation", 2),
    ("verb.emotion", 2), ("verb.motion", 2), ("verb.perception", 2), ("verb.possession", 2),
    ("verb.social", 2), ("verb.stative", 2), ("verb.weather", 2), ("adj.ppl", 3),
)

#: Directories searched for a system WordNet database (Debian/Ubuntu ``wordnet-base``).
SYSTEM_WORDNET_DIRS: tuple[str, ...] = ("/usr/share/wordnet", "/usr/local/share/wordnet")

# Files the NLTK reader opens; the first group must exist for WordNet to be usable.
_REQUIRED_FILES = (
    "data.noun", "data.verb", "data.adj", "data.adv",
    "index.noun", "index.verb", "index.adj", "index.adv",
)
_OPTIONAL_FILES = ("noun.exc", "verb.exc", "adj.exc", "adv.exc", "cntlist.rev", "index.sense")
_STAMP = ".aesi-prepared.json"
_STAMP_FORMAT = 1

_INSTALL_HINT = (
    "Install WordNet 3.0 with `apt-get install wordnet-base` (Debian/Ubuntu; it installs "
    "/usr/share/wordnet), or with `python -c \"import nltk; nltk.download('wordnet')\"` where "
    "there is internet, or pass the path of a WordNet dict directory."
)

# Coarse classes for named entities that have no WordNet noun. Labels: spaCy/OntoNotes
# (PERSON, NORP, FAC, ORG, GPE, LOC, PRODUCT, EVENT, WORK_OF_ART, LAW, LANGUAGE, DATE, TIME,
# PERCENT, MONEY, QUANTITY, ORDINAL, CARDINAL), CoNLL-03 as used by Stanza/UD tools (PER, ORG,
# LOC, MISC) and Stanford CoreNLP / MUC (PERSON, ORGANIZATION, LOCATION). MISC has no class.
_NER_COARSE: dict[str, str] = {
    "PERSON": "person", "PER": "person", "PERS": "person",
    "ORG": "organization", "ORGANIZATION": "organization", "NORP": "organization",
    "GPE": "location", "LOC": "location", "LOCATION": "location", "FAC": "location",
    "FACILITY": "location",
    "DATE": "time", "TIME": "time",
    "MONEY": "quantity", "PERCENT": "quantity", "QUANTITY": "quantity", "CARDINAL": "quantity",
    "ORDINAL": "quantity",
    "PRODUCT": "artifact", "WORK_OF_ART": "artifact",
    "EVENT": "event",
    "LAW": "communication", "LANGUAGE": "communication",
}
# Under the supersense scheme a named entity gets the supersense its class corresponds to, so
# that "Garcia" (PERSON) and "priest" share noun.person.
_COARSE_LEXNAME: dict[str, str] = {
    "person": "noun.person", "organization": "noun.group", "location": "noun.location",
    "time": "noun.time", "quantity": "noun.quantity", "artifact": "noun.artifact",
    "event": "noun.event", "communication": "noun.communication",
}
_BIO_PREFIX = re.compile(r"^[BIESLU]-")
_COMPOUND_SPLIT = re.compile(r"[\s_\-]+")

Senses = Literal["first", "all"]


def resolve_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return aesi's cache root: the argument, ``$AESI_CACHE_DIR``, or the user cache dir.

    Parameters
    ----------
    cache_dir
        Explicit cache root; wins over the environment.

    Returns
    -------
    Path
        The cache root (not created here).
    """
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get("AESI_CACHE_DIR"):
        return Path(os.environ["AESI_CACHE_DIR"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "aesi"


def lexnames_text() -> str:
    """Return the standard WordNet ``lexnames`` file: ``NN<TAB>name<TAB>category`` lines."""
    return "".join(f"{i:02d}\t{name}\t{cat}\n" for i, (name, cat) in enumerate(LEXNAMES))


def coarse_type(ner_label: str | None) -> str | None:
    """Map a named-entity label to a coarse pseudo-type such as ``ne.person``.

    Accepts spaCy/OntoNotes, CoNLL-03 (Stanza) and CoreNLP labels, in any case and with or
    without a BIO/BIOES prefix. The classes: ``ne.person`` (PERSON, PER),
    ``ne.organization`` (ORG, ORGANIZATION, NORP), ``ne.location`` (GPE, LOC, LOCATION, FAC),
    ``ne.time`` (DATE, TIME), ``ne.quantity`` (MONEY, PERCENT, QUANTITY, CARDINAL, ORDINAL),
    ``ne.artifact`` (PRODUCT, WORK_OF_ART), ``ne.event`` (EVENT) and ``ne.communication``
    (LAW, LANGUAGE).

    Parameters
    ----------
    ner_label
        The entity label; empty, ``O``, ``MISC`` or unknown labels give ``None``.

    Returns
    -------
    str or None
        The pseudo-type, or ``None`` when the label names no usable class.
    """
    if not ner_label:
        return None
    label = _BIO_PREFIX.sub("", ner_label.strip().upper())
    coarse = _NER_COARSE.get(label)
    return f"ne.{coarse}" if coarse else None


def _has_required_files(directory: Path) -> bool:
    return all((directory / name).is_file() for name in _REQUIRED_FILES)


def _find_dict_dir(path: Path) -> Path | None:
    """Locate the WordNet files under a user path (the dict dir itself or a known layout)."""
    for candidate in (path, path / "corpora" / "wordnet", path / "wordnet", path / "dict"):
        if candidate.is_dir() and _has_required_files(candidate):
            return candidate
    return None


def _source_signature(source: Path) -> dict[str, Any]:
    files = {}
    for name in _REQUIRED_FILES + _OPTIONAL_FILES + ("lexnames",):
        p = source / name
        if p.is_file():
            st = p.stat()
            files[name] = [st.st_size, st.st_mtime_ns]
    return {"format": _STAMP_FORMAT, "source": str(source.resolve()), "files": files}


def _read_stamp(directory: Path) -> dict[str, Any] | None:
    try:
        return json.loads((directory / _STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def prepare_wordnet_dir(source: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Copy a WordNet dict directory into ``dest`` in the layout NLTK reads; once.

    The files are copied (not linked), and ``lexnames`` is written when the source has none.
    A stamp records the source's file sizes and times, so a later call with an unchanged
    source does nothing, and a changed source is copied again. The copy is built in a
    temporary sibling directory and renamed into place, so concurrent processes never read a
    half-written directory.

    Parameters
    ----------
    source
        A directory with ``data.noun``, ``index.noun`` and the other WordNet database files.
    dest
        Target directory, e.g. ``<cache>/nltk_data/corpora/wordnet``.

    Returns
    -------
    Path
        ``dest``.
    """
    source, dest = Path(source), Path(dest)
    signature = _source_signature(source)
    if _read_stamp(dest) == signature and _has_required_files(dest):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=dest.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; the database is not secret
    try:
        for name in signature["files"]:
            shutil.copyfile(source / name, tmp / name)
        if "lexnames" not in signature["files"]:
            (tmp / "lexnames").write_text(lexnames_text(), encoding="utf-8")
        (tmp / _STAMP).write_text(json.dumps(signature), encoding="utf-8")
        if _read_stamp(dest) == signature and _has_required_files(dest):
            return dest  # another process prepared it while we copied
        if dest.exists():
            # A stale or broken copy: move it aside first, as rename cannot replace a
            # non-empty directory.
            old = Path(tempfile.mkdtemp(prefix=".wordnet-old-", dir=dest.parent))
            os.replace(dest, old / "wordnet")
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.replace(tmp, dest)
        except OSError:
            # Another process put its copy in place between our check and the rename.
            if not (_read_stamp(dest) == signature and _has_required_files(dest)):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def _reader_class() -> type:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _AesiWordNetReader(WordNetCorpusReader):
        """NLTK's reader without the OMW synset-id mapping that needs ``index.sense``."""

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    return _AesiWordNetReader


def _authorize(root: str) -> None:
    """Register a directory with NLTK's path sandbox, which refuses reads outside its roots."""
    import nltk

    resolved = str(Path(root).resolve())
    if resolved not in [str(p) for p in nltk.data.path]:
        nltk.data.path.append(resolved)


def _open_reader(root: Any) -> Any:
    if isinstance(root, os.PathLike):
        root = str(root)
    if isinstance(root, str):
        _authorize(root)
    with warnings.catch_warnings():
        # "The multilingual functions are not available": expected, aesi does not use OMW.
        warnings.simplefilter("ignore", UserWarning)
        reader = _reader_class()(root, None)
    # Open the four data files now: NLTK checks the sandbox at each open, and a caller that
    # later resets nltk.data.path would otherwise break a lexicon that was already loaded.
    for pos in ("n", "v", "a", "r"):
        reader._data_file(pos)
    return reader


def _nltk_wordnet_root() -> Any | None:
    import nltk

    # The order of nltk's own LazyCorpusLoader: the downloaded zip, then an unpacked folder.
    for resource in ("corpora/wordnet.zip/wordnet/", "corpora/wordnet"):
        try:
            return nltk.data.find(resource)
        except LookupError:
            continue
    return None


class WordNetLexicon:
    """Memoised noun lookups over an NLTK ``WordNetCorpusReader``.

    All methods take a lemma (any case; ``"car bomb"``, ``"car-bomb"`` and ``"car_bomb"`` are
    tried as the WordNet compound ``car_bomb`` first, then the compound's last word) and look at
    noun senses only, in WordNet's sense order (most frequent first). NLTK's ``morphy`` also
    maps inflected forms (``bombs``) to their lemma. Results are memoised per lemma, since the
    same heads recur many times in a corpus.

    Parameters
    ----------
    reader
        An NLTK ``WordNetCorpusReader``.
    source
        Where the database came from (a path or ``"nltk"``), for messages and pickling.
    """

    def __init__(self, reader: Any, source: str) -> None:
        self.reader = reader
        self.source = source
        # NLTK's reader seeks in shared file handles: serialise cache misses across threads
        # (Prefect's default task runner is a thread pool).
        self._lock = threading.Lock()
        self._synsets: dict[str, tuple[Any, ...]] = {}
        self._hypernyms: dict[tuple[str, str], tuple[str, ...]] = {}
        self._lexname: dict[str, str | None] = {}
        self._depth: dict[tuple[str, int], str | None] = {}
        self._types: dict[tuple[str, str | None, str, str, bool], tuple[str, ...]] = {}

    def __repr__(self) -> str:
        return f"WordNetLexicon(source={self.source!r}, version={self.version!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # File handles do not pickle; a worker process reopens the same database instead.
        return (_restore, (self.source,))

    @property
    def version(self) -> str | None:
        """WordNet version string of the database, e.g. ``"3.0"``."""
        with self._lock:
            return self.reader.get_version()

    def noun_synsets(self, lemma: str) -> tuple[Any, ...]:
        """Return the noun synsets of ``lemma`` (compound, then its last word), in sense order.

        Parameters
        ----------
        lemma
            A head lemma; case and separators do not matter.

        Returns
        -------
        tuple of nltk Synset
            Empty when WordNet has no noun for the lemma or its last word.
        """
        hit = self._synsets.get(lemma)
        if hit is not None:
            return hit
        parts = [p for p in _COMPOUND_SPLIT.split(lemma.strip().lower()) if p]
        candidates = []
        if parts:
            candidates.append(lemma.strip().lower().replace(" ", "_"))
            candidates.append("_".join(parts))
            candidates.append(parts[-1])
        found: tuple[Any, ...] = ()
        with self._lock:
            for form in dict.fromkeys(candidates):
                found = tuple(self.reader.synsets(form, pos="n"))
                if found:
                    break
        self._synsets[lemma] = found
        return found

    def has_noun(self, lemma: str) -> bool:
        """Whether WordNet has a noun sense for ``lemma`` (or its compound's last word)."""
        return bool(self.noun_synsets(lemma))

    def direct_hypernyms(self, lemma: str, senses: Senses = "first") -> tuple[str, ...]:
        """Return the direct hypernyms of ``lemma``'s noun senses (the paper's Eq. 2 feature).

        The paper takes "the direct hypernyms of the head word" without naming senses; the
        default uses the first (most frequent) noun sense, as the heads are not
        disambiguated. Instance hypernyms count as hypernyms, so that instances such as
        ``lima`` (an instance of ``national_capital.n.01``) get a type.

        Parameters
        ----------
        lemma
            Head lemma.
        senses
            ``"first"``: the first noun sense only; ``"all"``: the union over all noun senses
            in sense order.

        Returns
        -------
        tuple of str
            Synset names such as ``"weaponry.n.01"``, without duplicates, in sense order and
            by name within a sense (so the same in every process); empty for a lemma without
            a noun sense.
        """
        if senses not in ("first", "all"):
            raise ValueError(f"senses must be 'first' or 'all', not {senses!r}")
        key = (lemma, senses)
        hit = self._hypernyms.get(key)
        if hit is not None:
            return hit
        synsets = self.noun_synsets(lemma)
        if senses == "first":
            synsets = synsets[:1]
        names: dict[str, None] = {}
        with self._lock:
            for synset in synsets:
                # Sorted within a sense: NLTK's pointer sets follow the string hash seed.
                for hyper in sorted(synset.hypernyms() + synset.instance_hypernyms(),
                                    key=lambda parent: parent.name()):
                    names[hyper.name()] = None
        result = tuple(names)
        self._hypernyms[key] = result
        return result

    def lexname(self, lemma: str) -> str | None:
        """Return the noun supersense (lexicographer file) of ``lemma``'s first noun sense.

        Parameters
        ----------
        lemma
            Head lemma.

        Returns
        -------
        str or None
            E.g. ``"noun.person"`` for ``priest``; ``None`` without a noun sense.
        """
        if lemma in self._lexname:
            return self._lexname[lemma]
        synsets = self.noun_synsets(lemma)
        result = synsets[0].lexname() if synsets else None
        self._lexname[lemma] = result
        return result

    def first_hypernym_path(self, lemma: str) -> tuple[str, ...]:
        """Return the first hypernym path of the first noun sense, root first.

        The path follows, at each step, the hypernym (or instance hypernym) whose synset name
        sorts first, so it does not depend on the order of NLTK's pointer sets.
        """
        synsets = self.noun_synsets(lemma)
        if not synsets:
            return ()
        path = []
        with self._lock:
            synset = synsets[0]
            while synset is not None:
                path.append(synset.name())
                # NLTK keeps a synset's pointers in sets, whose order changes with Python's
                # string hash seed; sorting by name makes the path the same in every process.
                parents = sorted(synset.hypernyms() + synset.instance_hypernyms(),
                                 key=lambda parent: parent.name())
                synset = parents[0] if parents else None
        return tuple(reversed(path))

    def hypernym_at_depth(self, lemma: str, depth: int) -> str | None:
        """Return the ancestor of ``lemma``'s first noun sense at ``depth`` below the root.

        Depth 0 is the root (``entity.n.01``), depth 1 ``physical_entity.n.01`` or
        ``abstraction.n.06``, and so on, along :meth:`first_hypernym_path`. A sense shallower
        than ``depth`` gives the sense itself, so every noun gets a type.

        Parameters
        ----------
        lemma
            Head lemma.
        depth
            Non-negative depth from the root.

        Returns
        -------
        str or None
            A synset name, or ``None`` without a noun sense.
        """
        if depth < 0:
            raise ValueError(f"depth must be >= 0, not {depth}")
        key = (lemma, depth)
        if key in self._depth:
            return self._depth[key]
        path = self.first_hypernym_path(lemma)
        result = path[min(depth, len(path) - 1)] if path else None
        self._depth[key] = result
        return result

    def semantic_types(
        self,
        lemma: str,
        ner: str | None = None,
        scheme: str = "hypernyms",
        *,
        senses: Senses = "first",
        ner_first: bool = False,
    ) -> tuple[str, ...]:
        """Return the type set of an entity head under a typing scheme, with the NE fallback.

        Schemes: ``"hypernyms"``, the direct hypernyms (:meth:`direct_hypernyms`, the paper's
        choice); ``"lexname"``, the noun supersense (:meth:`lexname`; a better slot signal in
        our exploration, see docs/quality-notes.md); ``"depth:N"``, the ancestor at depth N
        (:meth:`hypernym_at_depth`).

        A head without a WordNet noun falls back to its named-entity class
        (:func:`coarse_type`): ``ne.person`` etc. under ``hypernyms`` and ``depth:N``, and the
        matching supersense (``noun.person``, ``noun.group`` for organisations,
        ``noun.location``, ...) under ``lexname``, so names and common nouns share types.

        Parameters
        ----------
        lemma
            Head lemma.
        ner
            Named-entity label of the head, or ``None``/``""``.
        scheme
            ``"hypernyms"``, ``"lexname"`` or ``"depth:N"``.
        senses
            Senses for the ``hypernyms`` scheme (see :meth:`direct_hypernyms`).
        ner_first
            Use the NE class even when WordNet has the word: proper names often hit a wrong
            common-noun sense (``Bush`` -> shrub).

        Returns
        -------
        tuple of str
            Possibly empty (no noun sense and no usable NE label).
        """
        key = (lemma, ner or None, scheme, senses, ner_first)
        hit = self._types.get(key)
        if hit is not None:
            return hit
        depth = _parse_scheme(scheme)
        coarse = coarse_type(ner)
        if coarse is not None and (ner_first or not self.has_noun(lemma)):
            if scheme == "lexname":
                result: tuple[str, ...] = (_COARSE_LEXNAME[coarse.removeprefix("ne.")],)
            else:
                result = (coarse,)
        elif scheme == "hypernyms":
            result = self.direct_hypernyms(lemma, senses)
        elif scheme == "lexname":
            name = self.lexname(lemma)
            result = (name,) if name else ()
        else:
            assert depth is not None
            node = self.hypernym_at_depth(lemma, depth)
            result = (node,) if node else ()
        self._types[key] = result
        return result


def _parse_scheme(scheme: str) -> int | None:
    if scheme in ("hypernyms", "lexname"):
        return None
    match = re.fullmatch(r"depth:(\d+)", scheme)
    if not match:
        raise ValueError(
            f"unknown typing scheme {scheme!r}: use 'hypernyms', 'lexname' or 'depth:N'"
        )
    return int(match.group(1))


_LOADED: dict[str, WordNetLexicon] = {}
_LOAD_LOCK = threading.Lock()


def _lexicon_for(root: Any, source: str) -> WordNetLexicon:
    with _LOAD_LOCK:
        lexicon = _LOADED.get(source)
        if lexicon is None:
            lexicon = WordNetLexicon(_open_reader(root), source)
            _LOADED[source] = lexicon
        return lexicon


def _restore(source: str) -> WordNetLexicon:
    if source == "nltk":
        root = _nltk_wordnet_root()
        if root is None:
            raise ResourceMissingError("NLTK's wordnet corpus is not installed here. "
                                       + _INSTALL_HINT)
        return _lexicon_for(root, source)
    return _lexicon_for(source, source)


def clear_loaded() -> None:
    """Forget the lexicons loaded in this process (their memo tables go with them)."""
    with _LOAD_LOCK:
        _LOADED.clear()


def _prepared_dir(cache_root: Path) -> Path:
    return cache_root / "nltk_data" / "corpora" / "wordnet"


def _usable_dir(directory: Path, dest: Path) -> tuple[Path | None, str]:
    """Return a directory NLTK can read for a WordNet dict dir, preparing a copy if needed."""
    if (directory / "lexnames").is_file():
        return directory, ""
    try:
        return prepare_wordnet_dir(directory, dest), ""
    except OSError as exc:
        return None, f"could not prepare a copy in {dest}: {exc}"


def load_wordnet(
    path: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> WordNetLexicon:
    """Find and open WordNet; the same database is opened once per process.

    Lookup order: ``path``; NLTK's own ``wordnet`` corpus; a system database in
    :data:`SYSTEM_WORDNET_DIRS` (Debian's ``wordnet-base``), copied once into
    ``<cache>/nltk_data/corpora/wordnet`` with a ``lexnames`` file; a copy prepared earlier.

    Parameters
    ----------
    path
        A WordNet dict directory (``data.noun``, ``index.noun``, ...), or a directory holding
        one under ``corpora/wordnet``, ``wordnet`` or ``dict``. When given, nothing else is
        tried.
    cache_dir
        aesi's cache root (default ``$AESI_CACHE_DIR`` or ``~/.cache/aesi``).

    Returns
    -------
    WordNetLexicon

    Raises
    ------
    ResourceMissingError
        When no WordNet is found; the message lists the places tried and how to install one.
    """
    cache_root = resolve_cache_dir(cache_dir)
    tried: list[str] = []

    def attempt(root: Any, source: str, label: str) -> WordNetLexicon | None:
        try:
            return _lexicon_for(root, source)
        except (OSError, LookupError, ValueError, AssertionError) as exc:
            tried.append(f"{label}: unreadable ({type(exc).__name__}: {exc})")
            return None

    if path is not None:
        given = Path(path).expanduser()
        found = _find_dict_dir(given)
        if found is None:
            raise ResourceMissingError(
                f"No WordNet database at {given} (expected data.noun, index.noun and the other "
                f"WordNet files there or under corpora/wordnet or dict/). {_INSTALL_HINT}"
            )
        # A user's database gets its own copy, so it never replaces the system one's.
        digest = hashlib.sha1(str(found.resolve()).encode("utf-8")).hexdigest()[:12]
        usable, problem = _usable_dir(found, cache_root / "wordnet-prepared" / digest)
        lexicon = attempt(usable, str(usable), str(found)) if usable else None
        if lexicon is None:
            raise ResourceMissingError(
                f"WordNet at {found} cannot be read: {problem or '; '.join(tried)}"
            )
        return lexicon

    nltk_root = _nltk_wordnet_root()
    if nltk_root is not None:
        lexicon = attempt(nltk_root, "nltk", f"NLTK corpus {nltk_root}")
        if lexicon is not None:
            return lexicon
    else:
        import nltk

        tried.append("NLTK's wordnet corpus: no corpora/wordnet(.zip) in any of "
                     + ", ".join(str(p) for p in nltk.data.path))

    prepared = _prepared_dir(cache_root)
    for system_dir in SYSTEM_WORDNET_DIRS:
        directory = Path(system_dir)
        if not _has_required_files(directory):
            tried.append(f"{directory}: no WordNet files")
            continue
        usable, problem = _usable_dir(directory, prepared)
        if usable is None:
            tried.append(f"{directory}: {problem}")
            continue
        lexicon = attempt(usable, str(usable), str(directory))
        if lexicon is not None:
            return lexicon

    if _has_required_files(prepared) and (prepared / "lexnames").is_file():
        lexicon = attempt(prepared, str(prepared), f"earlier copy {prepared}")
        if lexicon is not None:
            return lexicon
    else:
        tried.append(f"{prepared}: no prepared copy")

    raise ResourceMissingError(
        "WordNet not found. Tried:\n  - " + "\n  - ".join(tried) + "\n" + _INSTALL_HINT
    )

