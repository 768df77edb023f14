"""The resources a run's configuration names (word vectors, WordNet, an encoder model, Stanza
models, the corpus): their paths made absolute once, and checked before any work.

A project keeps its configuration (``project.json``) for later runs that may start from
another folder, so a relative path is read against the folder of the command that gave it
(:func:`absolute_resource_paths`); :func:`check_resources` fails with the path and the problem
before any parsing.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from aesi_lib.errors import InputError

#: The keys of a configuration that name a file or folder on disk.
RESOURCE_PATH_KEYS = ("vectors_path", "wordnet_path", "features.encoder_model",
                      "parser.stanza_dir")


def absolute_path(path: str | None, base: str | Path | None = None) -> str | None:
    """``path`` with ``~`` expanded, joined to ``base`` (the current folder by default) when
    it is relative, and normalised; None stays None. Symbolic links are kept as they are."""
    if path is None:
        return None
    expanded = os.path.expanduser(str(path))
    return os.path.normpath(os.path.join(base if base is not None else os.getcwd(), expanded))


def absolute_resource_paths(data: dict[str, Any], base: str | Path | None = None
                            ) -> dict[str, Any]:
    """A copy of the configuration ``data`` whose resource paths are absolute.

    A project keeps the configuration of its last run (``project.json``), and ``aesi update``
    or a scheduled run may start from another folder: a path relative to the folder of the
    first run would then name nothing, or something else.

    Parameters
    ----------
    data : dict
        A configuration as nested dicts (any subset of the keys).
    base : path, optional
        The folder relative paths are read against; the current folder by default.

    Returns
    -------
    dict
        ``data`` with every key of :data:`RESOURCE_PATH_KEYS` that holds a path made
        absolute by :func:`absolute_path`; every other value as it was.
    """
    out = copy.deepcopy(data)
    for key in RESOURCE_PATH_KEYS:
        *parents, leaf = key.split(".")
        node = out
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and isinstance(node.get(leaf), (str, os.PathLike)):
            node[leaf] = absolute_path(node[leaf], base)
    return out


def check_resources(data: dict[str, Any]) -> None:
    """Fail before any work when a resource path of the configuration does not exist.

    Parameters
    ----------
    data : dict
        A configuration as nested dicts (only ``vectors_path``, ``wordnet_path``,
        ``features.context``, ``features.encoder``, ``features.encoder_model`` and
        ``features.encoder_device`` are read).

    Raises
    ------
    InputError
        When ``vectors_path`` is not a file, or ``wordnet_path`` is not a folder holding the
        WordNet database files (itself, or under ``corpora/wordnet``, ``wordnet`` or ``dict``).
        When ``features.encoder_model`` is set and is not a usable model folder
        (``aesi_lib.lexicon.model_folder.model_folder_spec``).
    ResourceMissingError
        When ``features.context`` is on with the ``minilm`` or ``transformer`` encoder and
        it is not installed, or ``features.encoder_device`` is ``cuda`` and torch sees no
        CUDA GPU.
    """
    from aesi_lib.lexicon.encoder import check_transformer_encoder
    from aesi_lib.lexicon.model_folder import model_folder_spec

    features = data.get("features") or {}
    encoder = features.get("encoder", "minilm")
    model = features.get("encoder_model")
    if features.get("context") and encoder in ("minilm", "transformer"):
        check_transformer_encoder(features.get("encoder_device", "cpu"),
                                  model if encoder == "transformer" else None)
    elif model is not None:
        # A change to a project's configuration (``aesi update``) may name the folder alone.
        model_folder_spec(model)
    vectors = data.get("vectors_path")
    if vectors:
        path = Path(vectors).expanduser()
        if not path.exists():
            raise InputError(path, "word vectors file not found (vectors_path, --vectors)")
        if path.is_dir():
            raise InputError(path, "is a folder; vectors_path (--vectors) names a word2vec, "
                             "GloVe or .kv file")
    wordnet = data.get("wordnet_path")
    if wordnet:
        # The loader's own rule of where the files may sit, so both agree.
        from aesi_lib.lexicon.wordnet_files import _find_dict_dir

        path = Path(wordnet).expanduser()
        if not path.is_dir():
            raise InputError(path, "WordNet folder not found (wordnet_path, --wordnet)")
        if _find_dict_dir(path) is None:
            raise InputError(path, "holds no WordNet database (data.noun, index.noun, ...; "
                             "also looked in corpora/wordnet, wordnet and dict)")
