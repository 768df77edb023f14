"""The encoder's transformer as an ONNX graph, run by ONNX Runtime on the CPU.

On the CPU the sentence vectors of :class:`~aesi_lib.lexicon.encoder.TransformerEncoder`
come from ONNX Runtime rather than torch: the same states to within float rounding (on
MUC-4's mention sentences the least cosine of a sentence vector with torch's was 0.9999998,
the largest coordinate difference 2e-7) in about half the time on 2 cores, and a sentence's
vector no longer depends on the other sentences of its batch (see docs/benchmarks.md).

torch traces the model once, with the eager attention code (a traced ``sdpa`` branch can keep
the shape of its sample), into a graph with free batch and length axes. The graph is cached
under ``<cache root>/models/onnx/`` by a key of the model's identity and the versions that
wrote it, and kept only when its states on :data:`CHECK_SENTENCES` agree with torch's; a
damaged file is traced again.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from aesi_lib.errors import InputError
from aesi_lib.files import replacing

#: The ONNX operator set of the traced graph.
OPSET = 17
#: The sentences a fresh graph is checked on against torch: short, long, and of one word;
#: the first two are the trace's sample, and the check also runs them in other batch shapes.
CHECK_SENTENCES = (
    "Guerrillas bombed the power station.",
    "Terrorists blew up an electricity plant in the north of the country yesterday, the "
    "police said, and two soldiers who guarded it were wounded.",
    "Yes.",
)
#: The least cosine of a checked token state with torch's, and the largest coordinate
#: difference, that keep a graph (float rounding alone stays far inside both).
LEAST_COSINE = 0.99999
LARGEST_DIFFERENCE = 1e-3


def graph_file(cache_root: Path, model: str, versions: Sequence[tuple[str, str]]) -> Path:
    """Where the graph of ``model`` (the recipe's model identity), traced by the libraries of
    ``versions``, is cached under ``cache_root``."""
    text = json.dumps({"model": model, "versions": list(versions), "opset": OPSET},
                      sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return cache_root / "models" / "onnx" / f"{digest}.onnx"


def _trace(model: Any, input_names: Sequence[str], sample: Mapping[str, Any],
           path: Path) -> None:
    """Write ``model``'s last hidden state as a function of ``input_names`` to ``path``."""
    import torch

    class LastHiddenState(torch.nn.Module):
        # The exporter passes the inputs by position.
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            return self.inner(**dict(zip(input_names, inputs, strict=True))).last_hidden_state

    axes = {name: {0: "batch", 1: "pieces"} for name in (*input_names, "last_hidden_state")}
    with warnings.catch_warnings():
        # The tracer's notes on shapes it took as constants: the check after it is the test.
        warnings.simplefilter("ignore")
        torch.onnx.export(LastHiddenState(model), tuple(sample[name] for name in input_names),
                          str(path), input_names=list(input_names),
                          output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=OPSET, dynamo=False)
    model.eval()        # the exporter leaves the model in training mode (dropout on)


def open_session(path: Path, threads: int) -> Any:
    """An ONNX Runtime session of the graph at ``path`` on the CPU with ``threads`` threads."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3            # the optimiser's notes are not the run's news
    return onnxruntime.InferenceSession(str(path), options,
                                        providers=["CPUExecutionProvider"])


def session_states(session: Any, encoded: Mapping[str, np.ndarray]) -> np.ndarray:
    """The last hidden states, shape (batch, pieces, hidden), float32, for the tokenizer's
    ``encoded`` arrays (those the graph takes)."""
    feeds = {node.name: np.asarray(encoded[node.name], dtype=np.int64)
             for node in session.get_inputs()}
    return session.run(None, feeds)[0]


def _check_batches(tokenizer: Any) -> list[dict[str, Any]]:
    """:data:`CHECK_SENTENCES` tokenized in two batch shapes: all three, and the last alone."""
    return [tokenizer(list(batch), padding=True, return_tensors="pt")
            for batch in (CHECK_SENTENCES, CHECK_SENTENCES[2:])]


def _torch_states(model: Any, batches: Sequence[Mapping[str, Any]]) -> list[np.ndarray]:
    import torch

    with torch.inference_mode():
        return [model(**batch).last_hidden_state.numpy() for batch in batches]


def _check(session: Any, batches: Sequence[Mapping[str, Any]],
           reference: Sequence[np.ndarray], path: Path) -> None:
    """Raise :class:`InputError` naming ``path`` when the graph's states on ``batches`` are
    not torch's ``reference`` (the word pieces' states; padding is not compared)."""
    ref_rows, got_rows = [], []
    for batch, states in zip(batches, reference, strict=True):
        mask = batch["attention_mask"].numpy().astype(bool)
        ref_rows.append(states[mask])
        got_rows.append(session_states(session, {k: v.numpy() for k, v in batch.items()})[mask])
    ref, got = np.concatenate(ref_rows), np.concatenate(got_rows)
    cosine = float(np.min(np.einsum("ij,ij->i", ref, got)
                          / (np.linalg.norm(ref, axis=1) * np.linalg.norm(got, axis=1))))
    difference = float(np.abs(ref - got).max())
    if cosine < LEAST_COSINE or difference > LARGEST_DIFFERENCE:
        raise InputError(path, f"the ONNX graph's states are not torch's (least cosine "
                         f"{cosine:.6f}, largest difference {difference:.2e}): this model "
                         "cannot be run by ONNX Runtime; run it on torch with "
                         "features.encoder_device=cuda")


def cached_session(model_folder: str | os.PathLike[str], tokenizer: Any, path: Path,
                   threads: int) -> Any:
    """The ONNX Runtime session of the model in ``model_folder``, from the graph at ``path``;
    the first time (or when the file is damaged) torch traces it there and it is checked
    against torch's states before it is kept.

    Raises
    ------
    InputError
        Naming the model folder when torch cannot load or trace the model, or the graph's
        file when its states are not torch's (the file is not kept).
    """
    if path.is_file():
        try:
            return open_session(path, threads)
        except Exception:   # onnxruntime raises its own, unexported error kinds
            path.unlink(missing_ok=True)   # a damaged cache file: traced again below
    from transformers import AutoModel

    try:
        model = AutoModel.from_pretrained(str(model_folder), local_files_only=True,
                                          attn_implementation="eager").eval()
    except (OSError, ValueError) as exc:
        raise InputError(model_folder, f"cannot load the encoder model ({exc})") from exc
    batches = _check_batches(tokenizer)
    reference = _torch_states(model, batches)
    sample = tokenizer(list(CHECK_SENTENCES[:2]), padding=True, return_tensors="pt")
    names = [name for name in tokenizer.model_input_names if name in sample]
    with replacing(path, unique=True) as tmp:
        try:
            _trace(model, names, sample, tmp)
        except Exception as exc:   # torch's exporter raises many kinds
            raise InputError(model_folder, f"cannot trace the encoder model into ONNX "
                             f"({type(exc).__name__}: {exc})") from exc
        _check(open_session(tmp, threads), batches, reference, path)
    return open_session(path, threads)
