"""WordNet noun types for entity heads: direct hypernyms (paper, Eq. 2), supersenses, depth cuts.

:class:`WordNetLexicon` answers the questions the features ask of a head lemma; a head that
WordNet lacks has no type. :func:`load_wordnet` finds the database
(``aesi_lib.lexicon.wordnet_files``) and opens it once per process.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path
from typing import Any

from aesi_lib.errors import ResourceMissingError
from aesi_lib.lexicon.cache import resolve_cache_dir
from aesi_lib.lexicon.wordnet_files import (
    _INSTALL_HINT,
    SYSTEM_WORDNET_DIRS,
    _find_dict_dir,
    _has_required_files,
    _nltk_wordnet_root,
    _open_reader,
    _prepared_dir,
    _usable_dir,
)

_COMPOUND_SPLIT = re.compile(r"[\s_\-]+")


class WordNetLexicon:
    """Memoised noun lookups over an NLTK ``WordNetCorpusReader``.

    The noun methods take a lemma (any case; ``"car bomb"``, ``"car-bomb"`` and ``"car_bomb"``
    are tried as the WordNet compound ``car_bomb`` first, then the compound's last word) and
    look at noun senses only, in WordNet's sense order (most frequent first); one method
    (:meth:`verb_tagged_count`) counts a predicate's verb senses. NLTK's ``morphy`` also
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
        self._hypernyms: dict[str, tuple[str, ...]] = {}
        self._lexname: dict[str, str | None] = {}
        self._depth: dict[tuple[str, int], str | None] = {}
        self._types: dict[tuple[str, str], tuple[str, ...]] = {}
        self._verb_counts: dict[str, int] = {}
        self._verb_class: dict[str, str | None] = {}
        self._person: dict[str, bool] = {}
        self._tagged: bool | None = None

    def __repr__(self) -> str:
        return f"WordNetLexicon(source={self.source!r}, version={self.version!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # File handles do not pickle; a worker process reopens the same database instead.
        return (_restore, (self.source,))

    @property
    def lock(self) -> threading.Lock:
        """The lock that serialises reads of ``reader`` (its file handles are shared), for
        other lookups over the same reader (``aesi_lib.entities.event_nouns``)."""
        return self._lock

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

    def verb_tagged_count(self, lemma: str) -> int:
        """How often ``lemma`` was tagged as a verb in WordNet's sense-tagged corpora (the
        counts of ``cntlist.rev``, mostly SemCor): the sum over its verb senses of the count
        of the sense whose lemma is ``lemma`` itself.

        A general-English frequency that needs no corpus of its own: the predicate salience
        of W_T (``aesi_lib.model.salience``) compares a corpus's predicates with it. 0 for a
        lemma WordNet has no verb for, and for every lemma when the database has no
        ``cntlist.rev`` (:attr:`has_tagged_counts`)."""
        key = lemma.strip().lower().replace(" ", "_")
        hit = self._verb_counts.get(key)
        if hit is not None:
            return hit
        total = 0
        if self.has_tagged_counts:
            with self._lock:
                total = sum(sense.count() for synset in self.reader.synsets(key, pos="v")
                            for sense in synset.lemmas() if sense.name().lower() == key)
        self._verb_counts[key] = total
        return total

    def verb_class(self, lemma: str) -> str | None:
        """The verb supersense (lexicographer file) of ``lemma``'s first verb sense:
        ``"verb.communication"`` for *say*, ``"verb.contact"`` for *kill*; None without a
        verb sense. The events of a run read it to tell discourse templates (say, report,
        believe) from event templates (``aesi_lib.events.kinds``)."""
        key = lemma.strip().lower().replace(" ", "_")
        if key in self._verb_class:
            return self._verb_class[key]
        with self._lock:
            synsets = self.reader.synsets(key, pos="v")
        result = synsets[0].lexname() if synsets else None
        self._verb_class[key] = result
        return result

    def is_person_noun(self, word: str) -> bool:
        """Whether ``word``'s first noun sense is a common noun of a person (WordNet's
        ``noun.person``, not an instance): *minister*, *general* and *bodyguard* are;
        *Castro* and *Hector* (instances), *Oscar* (an award) and words WordNet lacks are not.
        The events of a run read such words before a name as titles
        (``aesi_lib.events.entities``)."""
        key = word.strip().lower()
        hit = self._person.get(key)
        if hit is not None:
            return hit
        with self._lock:
            synsets = self.reader.synsets(key, pos="n") if key.isalpha() else []
        result = (bool(synsets) and not synsets[0].instance_hypernyms()
                  and synsets[0].lexname() == "noun.person")
        self._person[key] = result
        return result

    @property
    def has_tagged_counts(self) -> bool:
        """Whether the database holds the sense-tagged counts (``cntlist.rev``)."""
        if self._tagged is None:
            with self._lock:
                try:
                    self.reader.open("cntlist.rev").close()
                    self._tagged = True
                except (OSError, LookupError):
                    self._tagged = False
        return self._tagged

    def has_noun(self, lemma: str) -> bool:
        """Whether WordNet has a noun sense for ``lemma`` (or its compound's last word)."""
        return bool(self.noun_synsets(lemma))

    def direct_hypernyms(self, lemma: str) -> tuple[str, ...]:
        """Return the direct hypernyms of ``lemma``'s first noun sense (the paper's Eq. 2
        feature).

        The paper takes "the direct hypernyms of the head word" without naming senses; the
        first (most frequent) noun sense is used, as the heads are not disambiguated. Instance
        hypernyms count as hypernyms, so that instances such as ``lima`` (an instance of
        ``national_capital.n.01``) get a type.

        Parameters
        ----------
        lemma
            Head lemma.

        Returns
        -------
        tuple of str
            Synset names such as ``"weaponry.n.01"``, without duplicates, sorted by name (so
            the same in every process); empty for a lemma without a noun sense.
        """
        hit = self._hypernyms.get(lemma)
        if hit is not None:
            return hit
        synsets = self.noun_synsets(lemma)[:1]
        names: dict[str, None] = {}
        with self._lock:
            for synset in synsets:
                # Sorted within a sense: NLTK's pointer sets follow the string hash seed.
                for hyper in sorted(synset.hypernyms() + synset.instance_hypernyms(),
                                    key=lambda parent: parent.name()):
                    names[hyper.name()] = None
        result = tuple(names)
        self._hypernyms[lemma] = result
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

    def semantic_types(self, lemma: str, scheme: str = "hypernyms") -> tuple[str, ...]:
        """Return the type set of an entity head under a typing scheme.

        Schemes: ``"hypernyms"``, the direct hypernyms (:meth:`direct_hypernyms`, the paper's
        choice); ``"lexname"``, the noun supersense (:meth:`lexname`; a better slot signal in
        our exploration, see docs/quality-notes.md); ``"depth:N"``, the ancestor at depth N
        (:meth:`hypernym_at_depth`).

        Parameters
        ----------
        lemma
            Head lemma.
        scheme
            ``"hypernyms"``, ``"lexname"`` or ``"depth:N"``.

        Returns
        -------
        tuple of str
            Empty for a head without a WordNet noun sense.
        """
        key = (lemma, scheme)
        hit = self._types.get(key)
        if hit is not None:
            return hit
        depth = _parse_scheme(scheme)
        if scheme == "hypernyms":
            result: tuple[str, ...] = self.direct_hypernyms(lemma)
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


def wordnet_location(lexicon: WordNetLexicon) -> str:
    """The database ``lexicon`` reads: the folder it was opened from, or, for NLTK's own
    corpus, the corpus folder or zip file that ``nltk.data.find`` gives ("nltk" when it is
    gone since); what names it in a cache key (``aesi_lib.steps.keys.wordnet_key``)."""
    if lexicon.source != "nltk":
        return lexicon.source
    root = _nltk_wordnet_root()
    if root is None:
        return "nltk"
    archive = getattr(root, "zipfile", None)
    return str(archive.filename) if archive is not None else str(getattr(root, "path", root))


def clear_loaded() -> None:
    """Forget the lexicons loaded in this process (their memo tables go with them)."""
    with _LOAD_LOCK:
        _LOADED.clear()


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
