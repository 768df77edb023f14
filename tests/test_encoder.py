"""The encoder pass (``aesi_lib.lexicon.encoder``): sentence vectors equal to
sentence-transformers' mean pooling, in-context token vectors, the per-document cache keyed by
the recipe, the mention rows, the static encoder, and the context terms against their dense
definitions."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pandas as pd
import pytest
from dense_reference import (
    dense_head_class_similarity,
    dense_slot_similarity,
    dense_template_similarity,
)
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

    def encode(self, sentences, spans):
        self.calls.append(list(sentences))
        vectors = np.asarray([[len(s), 1.0, 0.0] for s in sentences], dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        tokens = [np.asarray([[0.0, a, b] for a, b in row], dtype=np.float32).reshape(-1, 3)
                  for row in spans]
        return vectors, tokens


def test_sentence_vectors_are_sentence_transformers_mean_pooling(minilm):
    st = pytest.importorskip("sentence_transformers")
    texts = ["Guerrillas bombed the power station.", "Terrorists blew up an electricity "
             "plant in the north of the country yesterday.", "The minister spoke."]
    ours, _ = minilm.encode(texts, [[] for _ in texts])
    model = st.SentenceTransformer(str(enc.model_dir(minilm.cache_dir)), device="cpu",
                                   local_files_only=True)
    reference = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    np.testing.assert_allclose(ours, reference, atol=2e-6)
    assert ours.dtype == np.float32
    assert ours[0] @ ours[1] > ours[0] @ ours[2] + 0.2


def test_a_token_vector_depends_on_its_context(minilm):
    a = "Armed men attacked the village."
    b = "Two men were killed in the village."
    c = "Armed men attacked the town."
    _, tokens = minilm.encode([a, b, c], [[(6, 9)], [(4, 7)], [(6, 9)]])
    men_a, men_b, men_c = (t[0] / np.linalg.norm(t[0]) for t in tokens)
    assert men_a @ men_c > men_a @ men_b
    assert not np.allclose(men_a, men_b)


def test_the_model_is_loaded_only_for_uncached_documents(tmp_path):
    if enc._version(enc.MODEL_PACKAGE) == "absent":
        pytest.skip("the context extra is not installed")
    docs = [(["A bomb exploded."], [[(2, 6)]])]
    first = enc.TransformerEncoder(tmp_path / "m", threads=1)
    vectors, embedded = document_vectors(first, docs, tmp_path / "cache")
    assert embedded == 1 and first.loaded
    second = enc.TransformerEncoder(tmp_path / "m", threads=1)
    again, embedded = document_vectors(second, docs, tmp_path / "cache")
    assert embedded == 0 and not second.loaded
    np.testing.assert_array_equal(again[0].sentences, vectors[0].sentences)
    np.testing.assert_array_equal(again[0].tokens[0], vectors[0].tokens[0])


def test_documents_are_embedded_once_in_one_call_and_the_recipe_names_the_cache(tmp_path):
    fake = CountingEncoder()
    docs = [(["A bomb exploded.", "Two died."], [[(2, 6)], []]), (["The army attacked."], [[]])]
    first, embedded = document_vectors(fake, docs, tmp_path)
    assert embedded == 2 and len(fake.calls) == 1
    assert [b.sentences.shape[0] for b in first] == [2, 1]
    again, embedded = document_vectors(fake, docs + [(["A new one."], [[]])], tmp_path)
    assert embedded == 1 and fake.calls[-1] == ["A new one."]
    np.testing.assert_array_equal(again[0].sentences, first[0].sentences)
    # Another recipe (a new model version, pooling, maximum length) embeds again.
    fake.recipe = dataclasses.replace(fake.recipe, max_length=128)
    _, embedded = document_vectors(fake, docs, tmp_path)
    assert embedded == 2
    # A damaged file is embedded again instead of read.
    damaged = next((tmp_path / fake.recipe.key()).rglob("*.npz"))
    damaged.write_bytes(b"not a zip")
    _, embedded = document_vectors(fake, docs, tmp_path)
    assert embedded == 1


def test_a_gpu_recipe_caches_apart_and_a_cpu_recipe_keeps_its_old_key():
    import hashlib
    import json

    cpu = enc.EncoderRecipe(encoder="minilm", model="m", versions=(("torch", "2"),))
    # The key of a CPU recipe is the hash of the fields it had before ``device`` existed, so
    # that the caches of earlier runs stay valid.
    before = {k: v for k, v in dataclasses.asdict(cpu).items() if k != "device"}
    digest = hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:16]
    assert cpu.key() == f"minilm-{digest}"
    gpu = dataclasses.replace(cpu, device="cuda")
    assert gpu.key() != cpu.key() and gpu.key().startswith("minilm-")
    assert enc.encoder_recipe_key("minilm", device="cuda") == enc.transformer_recipe("cuda").key()
    assert enc.encoder_recipe_key("minilm") == enc.transformer_recipe().key()


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
    ours, tokens = encoder.encode(texts, [[(0, 10)], [], [(11, 19)]])
    modules = [st.models.Transformer(str(tiny_model_folder), max_seq_length=62),
               st.models.Pooling(16, "mean"), st.models.Normalize()]
    reference = st.SentenceTransformer(modules=modules, device="cpu").encode(
        texts, convert_to_numpy=True)
    np.testing.assert_allclose(ours, reference, atol=2e-6)
    assert [t.shape for t in tokens] == [(1, 16), (0, 16), (1, 16)]
    assert not np.allclose(tokens[0][0], ours[0])


def test_a_pass_reports_each_forward_batch_and_the_step_logs_it(tiny_model_folder, tmp_path):
    from tasks.features import EmbeddingProgress

    calls: list[int] = []
    encoder = enc.TransformerEncoder(tmp_path, threads=1, batch_size=2,
                                     model_folder=tiny_model_folder, progress=calls.append)
    texts = ["One.", "Two words.", "Three words here.", "Four words are here.", "Five."]
    quiet, _ = enc.TransformerEncoder(tmp_path, threads=1, batch_size=2,
                                      model_folder=tiny_model_folder).encode(texts, [[]] * 5)
    reported, _ = encoder.encode(texts, [[]] * 5)
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


def test_token_spans_follow_the_sentence_text():
    text = "Guerrillas attacked the U.S. embassy , killing 2."
    tokens = ["Guerrillas", "attacked", "the", "U.S.", "embassy", ",", "killing", "2", "."]
    spans = mc.token_spans(text, tokens)
    assert [text[a:b] for a, b in spans] == tokens
    assert mc.token_spans("a b", ["a", "x", "b"]) == [(0, 1), (-1, -1), (2, 3)]


def _frames():
    sentences = pd.DataFrame({"doc_id": ["a", "a", "a", "b"], "sent_id": [0, 1, 2, 0],
                              "text": ["A bomb exploded .", "Nothing here .",
                                       "Police found it .", "The army attacked rebels ."]})
    tokens = pd.DataFrame([(d, s, i, w) for d, s, t in sentences.itertuples(index=False)
                           for i, w in enumerate(t.split())],
                          columns=["doc_id", "sent_id", "token_id", "text"])
    mentions = pd.DataFrame({"doc_id": ["b", "a", "b", "a"], "sent_id": [0, 0, 0, 2],
                             "head_index": [1, 1, 3, 0], "predicate_index": [2, 2, 2, -1]})
    return mentions, sentences, tokens


def test_mention_rows_take_their_sentence_and_tokens(tmp_path):
    mentions, sentences, tokens = _frames()
    fake = CountingEncoder()
    ctx = mc.mention_context_vectors(mentions, sentences, tokens, fake, tmp_path)
    # Only sentences that hold a mention are embedded: not "Nothing here ."
    assert sorted(s for call in fake.calls for s in call) == [
        "A bomb exploded .", "Police found it .", "The army attacked rebels ."]
    assert (ctx.n_sentences, ctx.embedded) == (3, 2)
    # One vector per mention sentence, (doc_id, sent_id) order; mentions 0 and 2 share b's.
    assert ctx.sentence.shape == (3, 3) and ctx.head.shape == ctx.predicate.shape == (4, 3)
    assert ctx.sentence_rows.tolist() == [2, 0, 2, 1]
    # The fake token vector is (0, start, end), made unit length: spans of the right words.
    army, rebels = (np.array([0, 4, 8]), np.array([0, 18, 24]))
    np.testing.assert_allclose(ctx.head[0], army / np.linalg.norm(army), atol=1e-6)
    np.testing.assert_allclose(ctx.head[2], rebels / np.linalg.norm(rebels), atol=1e-6)
    attacked = np.array([0, 9, 17])
    np.testing.assert_allclose(ctx.predicate[0], attacked / np.linalg.norm(attacked), atol=1e-6)
    # An unknown predicate token (-1) falls back to the sentence vector.
    np.testing.assert_allclose(ctx.predicate[3], ctx.sentence[1], atol=1e-6)
    arrays = ctx.feature_arrays(token_context=False)
    assert list(arrays) == ["context_vectors", "context_rows"]
    assert set(ctx.feature_arrays(token_context=True)) == {
        "context_vectors", "context_rows", "predicate_context_vectors", "head_context_vectors"}
    # Without the token arrays: the same sentence vectors, from the same cache entries.
    again = CountingEncoder()
    sentence_only = mc.mention_context_vectors(mentions, sentences, tokens, again, tmp_path,
                                                token_vectors=False)
    assert again.calls == [] and sentence_only.embedded == 0
    np.testing.assert_array_equal(sentence_only.sentence, ctx.sentence)
    np.testing.assert_array_equal(sentence_only.sentence_rows, ctx.sentence_rows)
    assert sentence_only.head is None and sentence_only.predicate is None
    with pytest.raises(ValueError, match="token vectors were not computed"):
        sentence_only.feature_arrays(token_context=True)


def test_the_tables_may_come_in_any_row_order_and_a_missing_sentence_is_named(tmp_path):
    mentions, sentences, tokens = _frames()
    reference = mc.mention_context_vectors(mentions, sentences, tokens, CountingEncoder(),
                                           tmp_path)
    # Rows shuffled, each sentence's tokens kept in their order, object strings instead of
    # pandas' Arrow-backed ones: the same vectors and rows.
    shuffled = mc.mention_context_vectors(
        mentions, sentences.iloc[[3, 1, 0, 2]].astype({"text": object}),
        tokens.sort_values("doc_id", ascending=False, kind="stable"), CountingEncoder(),
        tmp_path)
    np.testing.assert_array_equal(shuffled.sentence, reference.sentence)
    np.testing.assert_array_equal(shuffled.sentence_rows, reference.sentence_rows)
    np.testing.assert_array_equal(shuffled.head, reference.head)
    np.testing.assert_array_equal(shuffled.predicate, reference.predicate)
    with pytest.raises(ValueError, match="sentence 2 of document 'a'"):
        mc.mention_context_vectors(mentions, sentences.iloc[[0, 1, 3]], tokens,
                                   CountingEncoder(), tmp_path)
    none = mc.mention_context_vectors(mentions.iloc[:0], sentences, tokens, CountingEncoder(),
                                      tmp_path)
    assert none.sentence.shape == (0, 3) and none.head.shape == (0, 3) and none.embedded == 0


def test_documents_are_built_only_as_the_pass_reaches_them(tmp_path):
    docs = [([f"Sentence {i}."], [[(0, 8)]]) for i in range(6)]
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
    vectors, tokens = static.encode(["A bomb exploded", "ARMY"], [[(2, 6)], [(0, 4)]])
    assert vectors.shape == (2, 2)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(tokens[0][0], [1.0, 0.0])
    np.testing.assert_allclose(tokens[1][0], [1.0, 1.0])
    assert static.recipe.encoder == "static" and "toy" in static.recipe.model


def test_the_context_terms_match_their_dense_definitions():
    rng = np.random.default_rng(0)
    f = random_features(25, seed=2)
    f = dataclasses.replace(f, context_vectors=rng.standard_normal((25, 8)),
                            predicate_context_vectors=rng.standard_normal((25, 8)),
                            head_context_vectors=rng.standard_normal((25, 8)))
    options = SimilarityOptions(context_weight=0.7, predicate_context_weight=0.4,
                                head_context_weight=0.3)
    np.testing.assert_allclose(template_similarity(f, options) @ np.eye(25),
                               dense_template_similarity(f, options), atol=1e-12)
    np.testing.assert_allclose(head_class_similarity(f, options) @ np.eye(25),
                               dense_head_class_similarity(f, options), atol=1e-12)
    names = [t.name for _, t in template_similarity(f, options).terms]
    assert names == ["pmi", "cos_hp", "context", "predicate_context"]
    assert [t.name for _, t in head_class_similarity(f, options).terms] == [
        "type", "cos_h", "head_context"]
    # The heads in context are the slots' evidence in either slot model: W_H and W_S.
    np.testing.assert_allclose(slot_similarity(f, options) @ np.eye(25),
                               dense_slot_similarity(f, options), atol=1e-12)
    assert [t.name for _, t in slot_similarity(f, options).terms] == [
        "cos_p", "dep", "type", "head_context"]
    new = dataclasses.replace(random_features(6, seed=5),
                              head_context_vectors=rng.standard_normal((6, 8)))
    np.testing.assert_allclose(slot_similarity(f, options, rows=new) @ np.eye(25),
                               dense_slot_similarity(f, options, rows=new), atol=1e-12)


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
    docs = [([f"Sentence {i} of {'x' * i}.", f"Second {i}."], [[(0, 8)], []])
            for i in range(7)]
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
        np.testing.assert_array_equal(got.sentences, want.sentences)
        np.testing.assert_array_equal(got.tokens[0], want.tokens[0])
