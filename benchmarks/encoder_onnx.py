"""Would ONNX Runtime run the MiniLM encoder pass faster, with the same vectors?

Issue 49 asks for a cold MUC-4 flow of at most 150 s, and the encoder pass is most of it.
This benchmark exports the product's all-MiniLM-L6-v2 (``TransformerEncoder``) to ONNX with
torch's exporter, runs it in ONNX Runtime's CPU provider with the same threads, the same
tokenizer, the same length-sorted batches and the same mean pooling, and compares it with
the product's own pass on the first ``--sentences`` mention sentences of a finished run's
project (the MUC-4 one after ``./scripts/run.sh``), the two in turns for ``--rounds``
rounds. It prints each round's seconds and their ratio, and how far the vectors are apart
(the least cosine, the largest coordinate difference).

``--attention`` chooses the attention code the model is traced with: ``eager`` (the
default), or ``sdpa`` (transformers' default for BERT on torch). A first probe's ``sdpa``
trace, of the model the product had loaded and on another pair of sample sentences, gave
other vectors than torch's (the least cosine 0.88); this script's ``sdpa`` trace gives the
same ones. Traced code can keep a branch its sample took, so an export for the product should
trace the eager code and check its vectors against torch's, as this does.

ONNX Runtime is not a dependency of aesi; this needs
``.venv/bin/pip install onnxruntime==1.30.0 onnx==1.23.2 onnxscript==0.7.2``.

Usage::

    .venv/bin/python benchmarks/encoder_onnx.py [--project-dir .aesi] [--sentences 2000]
        [--rounds 3] [--attention eager|sdpa]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from encoder_throughput import mention_sentences  # noqa: E402

from aesi_lib.lexicon.encoder import TransformerEncoder, model_dir  # noqa: E402

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
INSTALL = ".venv/bin/pip install onnxruntime==1.30.0 onnx==1.23.2 onnxscript==0.7.2"


def export_model(path: Path, attention: str, tokenizer) -> None:
    """all-MiniLM-L6-v2 as an ONNX graph with free batch and length axes, traced with the
    ``attention`` implementation of transformers on two sentences of ``tokenizer``."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir()), local_files_only=True,
                                      attn_implementation=attention).eval()

    class LastHiddenState(torch.nn.Module):
        # The exporter passes inputs by position; BertModel's own order is not these three.
        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    sample = tokenizer(["a short one", "and a somewhat longer sentence"], padding=True,
                       return_tensors="pt")
    axes = {name: {0: "batch", 1: "pieces"} for name in (*INPUTS, "last_hidden_state")}
    torch.onnx.export(LastHiddenState(model), tuple(sample[name] for name in INPUTS),
                      str(path), input_names=list(INPUTS),
                      output_names=["last_hidden_state"], dynamic_axes=axes,
                      opset_version=17, dynamo=False)


def onnx_encode(session, encoder: TransformerEncoder, texts: Sequence[str]) -> np.ndarray:
    """Sentence vectors from ``session``, batched and pooled as ``encoder.encode`` does."""
    tokenizer, limit = encoder._tokenizer, encoder.recipe.max_length
    out = np.zeros((len(texts), encoder.dimension), dtype=np.float32)
    pieces = tokenizer(list(texts), truncation=True, max_length=limit)["input_ids"]
    order = sorted(range(len(texts)), key=lambda i: (-len(pieces[i]), i))
    for start in range(0, len(texts), encoder.batch_size):
        batch = order[start:start + encoder.batch_size]
        encoded = tokenizer([texts[i] for i in batch], padding=True, truncation=True,
                            max_length=limit, return_tensors="np")
        states = session.run(None, {name: encoded[name].astype(np.int64)
                                    for name in INPUTS})[0]
        mask = encoded["attention_mask"][..., None].astype(np.float32)
        pooled = (states * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        out[batch] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project-dir", type=Path, default=REPO / ".aesi")
    ap.add_argument("--sentences", type=int, default=2000,
                    help="how many mention sentences, in document order (0: all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--attention", choices=("eager", "sdpa"), default="eager")
    args = ap.parse_args(argv)
    missing = [m for m in ("onnxruntime", "onnx", "onnxscript")
               if importlib.util.find_spec(m) is None]
    if missing:
        ap.error(f"{', '.join(missing)} not installed: {INSTALL}")
    if not (args.project_dir / "aesi.duckdb").is_file():
        ap.error(f"no store at {args.project_dir / 'aesi.duckdb'}: run ./scripts/run.sh "
                 "(or aesi run --project-dir DIR) first")
    texts = [t.strip() for t in mention_sentences(args.project_dir, args.sentences)]
    if not texts:
        ap.error(f"{args.project_dir}: no sentence holds a mention")
    import onnxruntime

    encoder = TransformerEncoder()
    encoder.encode(texts[:64])          # load and warm up
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "minilm.onnx"
        export_model(path, args.attention, encoder._tokenizer)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = encoder.threads
        options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(str(path), options,
                                               providers=["CPUExecutionProvider"])
    onnx_encode(session, encoder, texts[:64])
    print(f"{len(texts)} mention sentences of {args.project_dir}, {encoder.threads} threads, "
          f"batches of {encoder.batch_size}, traced with {args.attention} attention, "
          f"onnxruntime {onnxruntime.__version__}\n")
    print("| round | torch (s) | ONNX Runtime (s) | speed-up |")
    print("|---|---|---|---|")
    for round_ in range(1, args.rounds + 1):
        start = time.perf_counter()
        reference = encoder.encode(texts)
        torch_s = time.perf_counter() - start
        start = time.perf_counter()
        vectors = onnx_encode(session, encoder, texts)
        onnx_s = time.perf_counter() - start
        print(f"| {round_} | {torch_s:.1f} | {onnx_s:.1f} | {torch_s / onnx_s:.2f}× |")
    cosine = (reference * vectors).sum(axis=1)
    print(f"\nvectors: least cosine {cosine.min():.7f}, mean {cosine.mean():.7f}; largest "
          f"coordinate difference {np.abs(reference - vectors).max():.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
