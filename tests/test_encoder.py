"""The encoder pass (``aesi_lib.lexicon.encoder``): sentence vectors equal to
sentence-transformers' mean pooling, the per-document cache keyed by the recipe, the mention
rows, the static encoder, and the context term against its dense definition."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pandas as pd
import pytest
from dense_reference import dense_template_similarity
from test_similarity import random_features, with_shared_sentences

from aesi_lib.lexicon import encoder as enc
from aesi_lib.lexicon import mention_context as mc
from aesi_lib.model.similarity import (
    SimilarityOptions,
    head_class_similarity,
    slot_similarity,
    template_similarity,
)


def document_vectors(encoder, documents, cache_dir):
    """Every document's vectors, and how many were embedded now."""
    pairs = list(enc.iter_document_vectors(encoder, documents, cache_dir))
    return [v for v, _ in pairs], sum(now for _, now in pairs)


@pytest.fixture(scope="module")
def minilm(tmp_path_factory):
    try:
        enc.check_transformer_encoder()
    except Exception as exc:            # pragma: no cover - only without the context extra
        pytest.skip(f"all-MiniLM-L6-v2 unavailable: {exc}")
    return enc.TransformerEncoder(tmp_path_factory.mktemp("cache"), threads=1)


class CountingEncoder:
    """A fake encoder that records what it was asked to embed."""

    dimension = 3

    def __init__(self) -> None:
        self.recipe = enc.EncoderRecipe(encoder="fake", model="counting")
        self.calls: list[list[str]] = []

    def encode(self, sentences):
        self.calls.append(list(sentences))
        vectors = np.asarray([[len(s), 1.0, 0.0] for s in sentences], dtype=np.float32)
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).reshape(-1, 3)


def test_sentence_vectors_are_sentence_transformers_mean_pooling(minilm):
    st = pytest.importorskip("sentence_transformers")
    texts = ["Guerrillas bombed the power station.", "Terrorists blew up an electricity "
             "plant in the north of the country yesterday.", "The minister spoke."]
    ours = minilm.encode(texts)
    model = st.SentenceTransformer(str(enc.model_dir(minilm.cache_dir)), device="cpu",
                                   local_files_only=True)
    reference = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    np.testing.assert_allclose(ours, reference, atol=2e-6)
    assert ours.dtype == np.float32
    assert ours[0] @ ours[1] > ours[0] @ ours[2] + 0.2


def test_the_model_is_loaded_only_for_uncached_documents(tmp_path):
    if enc._version(enc.MODEL_PACKAGE) == "absent":
        pytest.skip("the context extra is not installed")
    docs = [["A bomb exploded."]]
    first = enc.TransformerEncoder(tmp_path / "m", threads=1)
    vectors, embedded = document_vectors(first, docs, tmp_path / "cache")
    assert embedded == 1 and first.loaded
    second = enc.TransformerEncoder(tmp_path / "m", threads=1)
    again, embedded = document_vectors(second, docs, tmp_path / "cache")
    assert embedded == 0 and not second.loaded
    np.testing.assert_array_equal(again[0], vectors[0])


def test_documents_are_embedded_once_in_one_call_and_the_recipe_names_the_cache(tmp_path):
    fake = CountingEncoder()
    docs = [["A bomb exploded.", "Two died."], ["The army attacked."]]
    first, embedded = document_vectors(fake, docs, tmp_path)
    assert embedded == 2 and len(fake.calls) == 1
    assert [b.shape[0] for b in first] == [2, 1]
    again, embedded = document_vectors(fake, docs + [["A new one."]], tmp_path)
    assert embedded == 1 and fake.calls[-1] == ["A new one."]
    np.testing.assert_array_equal(again[0], first[0])
    # Another recipe (a new model version, pooling, maximum length) embeds again.
    fake.recipe = dataclasses.replace(fake.recipe, max_length=128)
    _, embedded = document_vectors(fake, docs, tmp_path)
    assert embedded == 2
    # A damaged file is embedded again instead of read.
    damaged = next((tmp_path / fake.recipe.key()).rglob("*.npz"))
    damaged.write_bytes(b"not a zip")
    _, embedded = document_vectors(fake, docs, tmp_path)
    assert embedded == 1


def test_gpu_and_onnx_recipes_cache_apart_and_a_torch_cpu_recipe_keeps_its_old_key():
    import hashlib
    import json

    cpu = enc.EncoderRecipe(encoder="minilm", model="m", versions=(("torch", "2"),))
    # The key of a torch CPU recipe is the hash of the fields it had before ``device`` and
    # ``runtime`` existed, so that the caches of earlier runs stay valid.
    before = {k: v for k, v in dataclasses.asdict(cpu).items()
              if k not in ("device", "runtime")}
    digest = hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:16]
    assert cpu.key() == f"minilm-{digest}"
    gpu = dataclasses.replace(cpu, device="cuda")
    onnx = dataclasses.replace(cpu, runtime="onnxruntime")
    assert len({cpu.key(), gpu.key(), onnx.key()}) == 3
    assert all(r.key().startswith("minilm-") for r in (gpu, onnx))
    assert enc.encoder_recipe_key("minilm", device="cuda") == enc.transformer_recipe("cuda").key()
    assert enc.encoder_recipe_key("minilm") == enc.transformer_recipe().key()
    # The CPU runs in ONNX Runtime, a GPU in torch; the versions name what computes them.
    assert enc.transformer_recipe().runtime == "onnxruntime"
    assert "onnxruntime" in dict(enc.transformer_recipe().versions)
    assert enc.transformer_recipe("cuda").runtime == "torch"
    with pytest.raises(ValueError, match="cannot run the encoder on 'cuda'"):
        enc.check_transformer_encoder("cuda", runtime="onnxruntime")


@pytest.fixture(scope="module")
def tiny_model_folder(tmp_path_factory, minilm):
    """A small random BERT saved as a model folder, with all-MiniLM-L6-v2's tokenizer: what a
    user's ``features.encoder_model`` holds, 64 positions long."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("tiny-model")
    tokenizer = transformers.AutoTokenizer.from_pretrained(
        str(enc.model_dir(minilm.cache_dir)), local_files_only=True)
    tokenizer.save_pretrained(folder)
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16,
                                     num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(folder)
    return folder


def test_a_model_folder_is_pooled_as_sentence_transformers_pools_it(tiny_model_folder,
                                                                    tmp_path):
    st = pytest.importorskip("sentence_transformers")
    encoder = enc.make_encoder("transformer", cache_dir=tmp_path, model_folder=tiny_model_folder)
    assert isinstance(encoder, enc.TransformerEncoder) and encoder.dimension == 16
    # 64 positions: fewer word pieces than the default maximum length are kept.
    assert encoder.recipe.encoder == "transformer" and encoder.recipe.max_length == 62
    texts = ["Guerrillas bombed the power station.", "The minister spoke.",
             " ".join(["Terrorists attacked the village again."] * 20)]
    ours = encoder.encode(texts)
    modules = [st.models.Transformer(str(tiny_model_folder), max_seq_length=62),
               st.models.Pooling(16, "mean"), st.models.Normalize()]
    reference = st.SentenceTransformer(modules=modules, device="cpu").encode(
        texts, convert_to_numpy=True)
    np.testing.assert_allclose(ours, reference, atol=2e-6)


def test_a_pass_reports_each_forward_batch_and_the_step_logs_it(tiny_model_folder, tmp_path):
    from aesi_lib.steps.features import EmbeddingProgress

    calls: list[int] = []
    encoder = enc.TransformerEncoder(tmp_path, threads=1, batch_size=2,
                                     model_folder=tiny_model_folder, progress=calls.append)
    texts = ["One.", "Two words.", "Three words here.", "Four words are here.", "Five."]
    quiet = enc.TransformerEncoder(tmp_path, threads=1, batch_size=2,
                                   model_folder=tiny_model_folder).encode(texts)
    reported = encoder.encode(texts)
    assert sorted(calls) == [1, 2, 2]
    np.testing.assert_array_equal(reported, quiet)     # reporting changes no vector

    class Log:
        lines: list[str] = []

        def info(self, message, *args):
            self.lines.append(message % args)

    log = Log()
    every_call = EmbeddingProgress(log, total=10, every=0.0)
    every_call(3)
    every_call(4)
    assert len(log.lines) == 2 and log.lines[-1].startswith(
        "context vectors: 7 of at most 10 mention sentences embedded")
    # The time left at most, at the rate so far: 3 sentences at 7 a second or slower.
    assert log.lines[-1].endswith(" s left)") and "at most 0 s left" in log.lines[-1]
    EmbeddingProgress(log, total=10, every=3600.0)(5)
    assert len(log.lines) == 2


def test_the_recipe_of_a_model_folder_names_the_folder_and_its_files(tmp_path):
    from test_config_validation import fake_model_folder

    folder = fake_model_folder(tmp_path / "model")
    key = enc.encoder_recipe_key("transformer", model_folder=folder)
    assert key.startswith("transformer-") and key != enc.encoder_recipe_key("minilm")
    assert enc.transformer_recipe(model_folder=folder).model.startswith(str(folder.resolve()))
    # Another model copied into the same folder embeds again.
    weights = folder / "model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 10**9))
    assert enc.encoder_recipe_key("transformer", model_folder=folder) != key
    with pytest.raises(ValueError, match="needs features.encoder_model"):
        enc.encoder_recipe_key("transformer")


def test_a_gpu_that_torch_cannot_see_fails_before_any_work():
    if enc._version(enc.MODEL_PACKAGE) == "absent":
        pytest.skip("the context extra is not installed")
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    with pytest.raises(enc.ResourceMissingError, match="encoder_device=cuda.*no CUDA GPU"):
        enc.TransformerEncoder(device="cuda")
    with pytest.raises(ValueError, match="unknown encoder device 'tpu'"):
        enc.check_transformer_encoder("tpu")


def _frames():
    sentences = pd.DataFrame({"doc_id": ["a", "a", "a", "b"], "sent_id": [0, 1, 2, 0],
                              "text": ["A bomb exploded .", "Nothing here .",
                                       "Police found it .", "The army attacked rebels ."]})
    mentions = pd.DataFrame({"doc_id": ["b", "a", "b", "a"], "sent_id": [0, 0, 0, 2],
                             "head_index": [1, 1, 3, 0], "predicate_index": [2, 2, 2, -1]})
    return mentions, sentences


def test_mention_rows_take_their_sentence(tmp_path):
    mentions, sentences = _frames()
    fake = CountingEncoder()
    ctx = mc.mention_context_vectors(mentions, sentences, fake, tmp_path)
    # Only sentences that hold a mention are embedded: not "Nothing here ."
    assert sorted(s for call in fake.calls for s in call) == [
        "A bomb exploded .", "Police found it .", "The army attacked rebels ."]
    assert (ctx.n_sentences, ctx.embedded) == (3, 2)
    # One vector per mention sentence, (doc_id, sent_id) order; mentions 0 and 2 share b's.
    assert ctx.sentence.shape == (3, 3)
    assert ctx.sentence_rows.tolist() == [2, 0, 2, 1]
    np.testing.assert_allclose(ctx.sentence, fake.encode(
        ["A bomb exploded .", "Police found it .", "The army attacked rebels ."]), atol=1e-7)
    arrays = ctx.feature_arrays()
    assert list(arrays) == ["context_vectors", "context_rows"]
    # Again: the same vectors, from the cache.
    again = CountingEncoder()
    cached = mc.mention_context_vectors(mentions, sentences, again, tmp_path)
    assert again.calls == [] and cached.embedded == 0
    np.testing.assert_array_equal(cached.sentence, ctx.sentence)
    np.testing.assert_array_equal(cached.sentence_rows, ctx.sentence_rows)


def test_the_tables_may_come_in_any_row_order_and_a_missing_sentence_is_named(tmp_path):
    mentions, sentences = _frames()
    reference = mc.mention_context_vectors(mentions, sentences, CountingEncoder(), tmp_path)
    # Rows shuffled, object strings instead of pandas' Arrow-backed ones: the same vectors
    # and rows.
    shuffled = mc.mention_context_vectors(
        mentions, sentences.iloc[[3, 1, 0, 2]].astype({"text": object}), CountingEncoder(),
        tmp_path)
    np.testing.assert_array_equal(shuffled.sentence, reference.sentence)
    np.testing.assert_array_equal(shuffled.sentence_rows, reference.sentence_rows)
    with pytest.raises(ValueError, match="sentence 2 of document 'a'"):
        mc.mention_context_vectors(mentions, sentences.iloc[[0, 1, 3]], CountingEncoder(),
                                   tmp_path)
    none = mc.mention_context_vectors(mentions.iloc[:0], sentences, CountingEncoder(),
                                      tmp_path)
    assert none.sentence.shape == (0, 3) and none.embedded == 0


def test_documents_are_built_only_as_the_pass_reaches_them(tmp_path):
    docs = [[f"Sentence {i}."] for i in range(6)]
    drawn: list[int] = []

    def lazily():
        for i, doc in enumerate(docs):
            drawn.append(i)
            yield doc

    encoder = CountingEncoder()
    # Cold, in calls of 2 sentences: each pair of documents is out before the next is built.
    cold = [len(drawn) for _ in enc.iter_document_vectors(encoder, lazily(), tmp_path,
                                                          chunk_sentences=2)]
    assert cold == [2, 2, 4, 4, 6, 6] and len(encoder.calls) == 3
    drawn.clear()
    cached = [len(drawn) for _ in enc.iter_document_vectors(encoder, lazily(), tmp_path)]
    assert cached == [1, 2, 3, 4, 5, 6]


def test_static_encoder_means_word_vectors():
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=2)
    kv.add_vectors(["bomb", "exploded", "army"], np.array([[1.0, 0], [0, 1.0], [1.0, 1.0]]))
    static = enc.StaticEncoder(kv, "toy")
    vectors = static.encode(["A bomb exploded", "ARMY"])
    assert vectors.shape == (2, 2)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(vectors[1], [2 ** -0.5, 2 ** -0.5], atol=1e-6)
    assert static.recipe.encoder == "static" and "toy" in static.recipe.model


def test_the_context_term_matches_its_dense_definition():
    rng = np.random.default_rng(0)
    f = random_features(25, seed=2)
    f = dataclasses.replace(f, context_vectors=rng.standard_normal((25, 8)))
    options = SimilarityOptions(context_weight=0.7)
    np.testing.assert_allclose(template_similarity(f, options) @ np.eye(25),
                               dense_template_similarity(f, options), atol=1e-12)
    names = [t.name for _, t in template_similarity(f, options).terms]
    assert names == ["pmi", "cos_hp", "context"]
    # The sentence vectors are evidence of the templates only.
    assert [t.name for _, t in head_class_similarity(f, options).terms] == ["type", "cos_h"]
    assert [t.name for _, t in slot_similarity(f, options).terms] == ["cos_p", "dep", "type"]


def test_sentence_vectors_shared_by_sentence_give_the_per_mention_graph():
    rng = np.random.default_rng(1)
    f = random_features(30, seed=3)
    shared, per_mention, sentence_vectors, rows = with_shared_sentences(f, 9, 8, rng)
    shared.validate()
    options = SimilarityOptions(context_weight=0.8)
    np.testing.assert_allclose(template_similarity(shared, options) @ np.eye(30),
                               template_similarity(per_mention, options) @ np.eye(30),
                               atol=1e-12)
    np.testing.assert_allclose(template_similarity(shared, options) @ np.eye(30),
                               dense_template_similarity(shared, options), atol=1e-12)
    # New mentions as rows (extraction), their sentence vectors shared too.
    new = random_features(12, seed=4)
    new_rows = rng.integers(3, size=12)
    new_vectors = rng.standard_normal((3, 8)).astype(np.float32)
    block = template_similarity(shared, options, rows=dataclasses.replace(
        new, context_vectors=new_vectors, context_rows=new_rows)) @ np.eye(30)
    reference = template_similarity(per_mention, options, rows=dataclasses.replace(
        new, context_vectors=new_vectors[new_rows])) @ np.eye(30)
    np.testing.assert_allclose(block, reference, atol=1e-12)
    with pytest.raises(ValueError, match="context_rows"):
        dataclasses.replace(f, context_vectors=sentence_vectors[:4], context_rows=rows).validate()


def test_a_cold_pass_embeds_in_bounded_calls_and_keeps_document_order(tmp_path):
    docs = [[f"Sentence {i} of {'x' * i}.", f"Second {i}."] for i in range(7)]
    whole = CountingEncoder()
    reference, _ = document_vectors(whole, docs, tmp_path / "whole")
    chunked = CountingEncoder()
    # Document 2 is cached already: it is read, in its place, between embedded ones.
    list(enc.iter_document_vectors(chunked, docs[2:3], tmp_path / "chunked"))
    chunked.calls.clear()
    pairs = list(enc.iter_document_vectors(chunked, docs, tmp_path / "chunked",
                                           chunk_sentences=4))
    assert [now for _, now in pairs] == [True, True, False, True, True, True, True]
    # At least 4 sentences a call (2 documents), the last call what is left.
    assert [len(call) for call in chunked.calls] == [4, 4, 4]
    for (got, _), want in zip(pairs, reference, strict=True):
        np.testing.assert_array_equal(got, want)


def test_onnx_runtime_gives_torchs_vectors_whatever_the_batch(tiny_model_folder, tmp_path):
    texts = ["Guerrillas bombed the power station.", "The minister spoke.",
             "Terrorists blew up an electricity plant in the north of the country."]
    onnx = enc.TransformerEncoder(tmp_path, threads=1, model_folder=tiny_model_folder)
    torch_encoder = enc.TransformerEncoder(tmp_path, threads=1, model_folder=tiny_model_folder,
                                           runtime="torch")
    assert onnx.runtime == "onnxruntime" and onnx.recipe.key() != torch_encoder.recipe.key()
    together = onnx.encode(texts)
    np.testing.assert_allclose(together, torch_encoder.encode(texts), atol=1e-5)
    # A sentence's vector is the same alone as beside longer ones (torch's may differ in
    # the last bits), so an update embeds what a full run does.
    alone = np.vstack([onnx.encode([t]) for t in texts])
    np.testing.assert_array_equal(alone, together)


def test_mean_pooling_leaves_the_padding_out_and_gives_unit_vectors():
    states = np.array([[[2.0, 0, 0], [4.0, 2, 0], [9.0, 9, 9]],
                       [[0.0, 3, 0], [7.0, 7, 7], [7.0, 7, 7]]], dtype=np.float32)
    mask = np.array([[1, 1, 0], [1, 0, 0]])
    pooled = enc.mean_pooled(states, mask)
    means = np.array([[3.0, 1, 0], [0.0, 3, 0]])
    np.testing.assert_allclose(pooled, means / np.linalg.norm(means, axis=1, keepdims=True),
                               rtol=1e-6)
    assert pooled.dtype == np.float32


def _graph_path(encoder):
    from aesi_lib.lexicon.onnx_graph import graph_file

    return graph_file(encoder.cache_dir, encoder.recipe.model, encoder.recipe.versions)


def test_the_graph_is_traced_once_and_a_damaged_one_again(tiny_model_folder, tmp_path,
                                                          monkeypatch):
    from aesi_lib.lexicon import onnx_graph

    first = enc.TransformerEncoder(tmp_path, threads=1, model_folder=tiny_model_folder)
    vectors = first.encode(["A bomb exploded."])
    path = _graph_path(first)
    assert path.is_file() and not list(path.parent.glob("*.part"))

    def no_trace(*args):
        raise AssertionError("traced again")

    with monkeypatch.context() as patch:
        patch.setattr(onnx_graph, "_trace", no_trace)
        again = enc.TransformerEncoder(tmp_path, threads=1, model_folder=tiny_model_folder)
        np.testing.assert_array_equal(again.encode(["A bomb exploded."]), vectors)
    path.write_bytes(b"not a graph")
    mended = enc.TransformerEncoder(tmp_path, threads=1, model_folder=tiny_model_folder)
    np.testing.assert_array_equal(mended.encode(["A bomb exploded."]), vectors)
    assert path.stat().st_size > 1000


def test_a_graph_whose_states_are_not_torchs_is_refused_and_not_kept(tiny_model_folder,
                                                                    tmp_path, monkeypatch):
    from aesi_lib.lexicon import onnx_graph

    real = onnx_graph._torch_states
    monkeypatch.setattr(onnx_graph, "_torch_states",
                        lambda model, batches: [s + 0.01 for s in real(model, batches)])
    encoder = enc.TransformerEncoder(tmp_path, threads=1, model_folder=tiny_model_folder)
    with pytest.raises(enc.InputError, match=r"\.onnx: the ONNX graph's states are not"):
        encoder.encode(["A bomb exploded."])
    path = _graph_path(encoder)
    assert not path.exists() and not list(path.parent.glob("*.part"))
