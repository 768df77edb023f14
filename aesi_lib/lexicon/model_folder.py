"""A model folder of the user's (``features.encoder_model``): what the encoder needs to know
of it before loading it, and the identity that names its vectors in the cache.

A sentence-transformers or Hugging Face model saved or downloaded to disk, e.g.
all-mpnet-base-v2: ``config.json``, its weights and a tokenizer. The checks run before
any work (``aesi_lib.run.resources.check_resources``), so a wrong folder fails at the start of a
run, not after its parse.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from aesi_lib.errors import InputError
from aesi_lib.fingerprint import folder_listing

#: Weight files one of which a model folder must hold (a sharded model: its index).
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                "pytorch_model.bin.index.json")


@dataclass(frozen=True)
class ModelFolder:
    """What the encoder needs to know of a model folder before loading it.

    Attributes
    ----------
    path : Path
        The folder, resolved.
    dimension : int
        Its hidden size (``hidden_size``, ``dim`` or ``d_model`` of ``config.json``).
    max_tokens : int or None
        The most word pieces a sentence may have: two short of ``max_position_embeddings``
        (RoBERTa-style models spend two positions on the padding offset; for the others
        this is merely safe); None where ``config.json`` does not say.
    """

    path: Path
    dimension: int
    max_tokens: int | None


def model_folder_spec(folder: str | os.PathLike[str]) -> ModelFolder:
    """Check a model folder (``features.encoder_model``) without loading it: a folder with a
    ``config.json`` that names the hidden size, a weight file (:data:`WEIGHT_FILES`) and a
    tokenizer (``tokenizer.json`` or ``tokenizer_config.json``); where it is a
    sentence-transformers folder, its pooling must be the mean (the pooling this encoder
    computes).

    Raises
    ------
    InputError
        Naming the folder (or its file) and the problem.
    """
    path = Path(folder).expanduser().resolve()
    if not path.is_dir():
        raise InputError(path, "model folder not found (features.encoder_model): give a "
                         "folder holding a transformer model, e.g. a sentence-transformers "
                         "model saved or downloaded to disk")
    config_file = path / "config.json"
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, "no config.json: not a Hugging Face model folder "
                         "(features.encoder_model)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(config_file, f"cannot read the model configuration ({exc})") from exc
    if not isinstance(config, dict):
        raise InputError(config_file, "expected a JSON object")
    size = next((config[k] for k in ("hidden_size", "dim", "d_model")
                 if isinstance(config.get(k), int) and config[k] > 0), None)
    if size is None:
        raise InputError(config_file, "names no hidden size (hidden_size, dim or d_model)")
    if not any((path / name).is_file() for name in WEIGHT_FILES):
        raise InputError(path, f"no model weights (one of {', '.join(WEIGHT_FILES)})")
    if not any((path / name).is_file() for name in ("tokenizer.json", "tokenizer_config.json")):
        raise InputError(path, "no tokenizer (tokenizer.json or tokenizer_config.json)")
    pooling_file = path / "1_Pooling" / "config.json"
    if pooling_file.is_file():
        try:
            pooling = json.loads(pooling_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(pooling_file, f"cannot read the pooling configuration ({exc})"
                             ) from exc
        if isinstance(pooling, dict) and not pooling.get("pooling_mode_mean_tokens", True):
            modes = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v]
            raise InputError(pooling_file, f"the model pools by {', '.join(modes) or 'no mode'}"
                             "; aesi's encoder pools by the mean of the word-piece states, so "
                             "its vectors would not be the ones the model was trained for")
    positions = config.get("max_position_embeddings")
    max_tokens = positions - 2 if isinstance(positions, int) and positions > 2 else None
    return ModelFolder(path=path, dimension=int(size), max_tokens=max_tokens)


def model_folder_identity(folder: str | os.PathLike[str]) -> str:
    """Names a model folder in a recipe: its resolved path and a hash of the names, sizes and
    modification times of its files, so that another model copied into the same folder is
    embedded again."""
    path = Path(folder).expanduser().resolve()
    digest = hashlib.sha256(json.dumps(folder_listing(path)).encode()).hexdigest()[:16]
    return f"{path}:{digest}"
