"""Where the WordNet database comes from, and preparing a copy NLTK can read.

Where WordNet comes from (first that works, :func:`aesi_lib.lexicon.wordnet.load_wordnet`):

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

import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

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


def lexnames_text() -> str:
    """Return the standard WordNet ``lexnames`` file: ``NN<TAB>name<TAB>category`` lines."""
    return "".join(f"{i:02d}\t{name}\t{cat}\n" for i, (name, cat) in enumerate(LEXNAMES))


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
