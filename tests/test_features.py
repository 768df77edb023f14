"""From an entity table to EntityFeatures: PMI matrix, type indicator, vectors, file round trip."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors

from aesi_lib.entities.positions import argument_position
from aesi_lib.errors import InputError
from aesi_lib.model.feature_files import load_features, save_features
from aesi_lib.model.features import (
    FeatureOptions,
    build_features,
    pmi_matrix,
    type_indicator,
)


def _table() -> pd.DataFrame:
    return pd.DataFrame({
        "doc_id": ["D1", "D1", "D1", "D2"], "sent_id": [0, 0, 1, 0],
        "head_lemma": ["bomb", "house", "guerrilla", "bomb"],
        "predicate": ["destroy", "destroy", "attack", "explode"],
        "dep": ["nsubj", "dobj", "nsubj", "nsubj"], "ner": ["", "", "", ""],
    })


def _vectors() -> KeyedVectors:
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["bomb", "house", "destroy", "attack"],
                   np.eye(4, 3, dtype=np.float32) + 0.1)
    return kv


def _pmi() -> pd.DataFrame:
    return pd.DataFrame({"word1": ["bomb", "house", "bomb"],
                         "word2": ["house", "bomb", "guerrilla"],
                         "pmi": [0.5, 0.5, -0.2]})


def test_pmi_matrix_keeps_signed_values_and_drops_unknown_words():
    vocab = {"bomb": 0, "house": 1}
    matrix = pmi_matrix(_pmi(), vocab).toarray()
    np.testing.assert_allclose(matrix, [[0, 0.5], [0.5, 0]])
    assert pmi_matrix(_pmi().iloc[:0], vocab).nnz == 0


def test_type_indicator_marks_each_entity_types():
    matrix, names = type_indicator([("a", "b"), (), ("b",)])
    assert names == ("a", "b")
    np.testing.assert_array_equal(matrix.toarray(), [[1, 1], [0, 0], [0, 1]])


def test_build_features_aligns_rows_and_ids():
    features, vocab = build_features(_table(), _pmi(), _vectors(), None, FeatureOptions())
    assert features.n_entities == 4
    assert [vocab.heads[i] for i in features.head_ids] == ["bomb", "house", "guerrilla", "bomb"]
    assert [vocab.predicates[i] for i in features.predicate_ids] == [
        "destroy", "destroy", "attack", "explode"]
    # Same document and sentence -> same sentence id; the second document's sentence differs.
    assert features.sentence_ids[0] == features.sentence_ids[1] != features.sentence_ids[2]
    deps = list(_table()["dep"])
    assert list(features.argument_positions) == [argument_position(d) for d in deps]
    np.testing.assert_allclose(features.head_vectors[0], _vectors()["bomb"])
    # Unknown words get a non-zero vector so cosines stay defined.
    assert np.linalg.norm(features.head_vectors[2]) > 0
    # bomb, house, destroy, attack are known; guerrilla and explode are not: 2 of 6 words.
    assert vocab.oov_rate == pytest.approx(2 / 6)
    bomb, guerrilla = vocab.heads.index("bomb"), vocab.heads.index("guerrilla")
    assert features.pmi[bomb, guerrilla] == pytest.approx(-0.2)


def test_support_verbs_need_event_nouns():
    with pytest.raises(ValueError, match="features.event_nouns"):
        FeatureOptions(support_verbs=True)
    assert FeatureOptions(event_nouns=True, support_verbs=True).support_verbs


def test_agentive_modifiers_need_event_nouns():
    with pytest.raises(ValueError, match="features.event_nouns"):
        FeatureOptions(agentive_modifiers=True)
    assert FeatureOptions(event_nouns=True, agentive_modifiers=True).agentive_modifiers


def test_event_noun_senses_need_event_nouns():
    with pytest.raises(ValueError, match="event_noun_senses=abstract needs features.event_nouns"):
        FeatureOptions(event_noun_senses="abstract")
    assert FeatureOptions(event_nouns=True, event_noun_senses="abstract").event_nouns


def test_turning_event_nouns_off_names_everything_that_reads_them_at_once():
    with pytest.raises(ValueError) as error:
        FeatureOptions(event_noun_senses="abstract", support_verbs=True,
                       agentive_modifiers=True, attribution_verbs=True)
    message = str(error.value)
    for key in ("event_noun_senses=abstract", "support_verbs (R14)",
                "agentive_modifiers (R15)", "attribution_verbs (R16)"):
        assert f"features.{key}" in message
    assert " need features.event_nouns" in message


def test_only_the_transformer_runs_on_a_gpu():
    with pytest.raises(ValueError, match="encoder_device=cuda needs features.encoder=minilm "
                       "or transformer"):
        FeatureOptions(context=True, encoder="static", encoder_device="cuda")
    assert FeatureOptions(context=True, encoder_device="cuda").encoder_device == "cuda"
    assert FeatureOptions(context=True, encoder="transformer", encoder_model="m",
                          encoder_device="cuda").encoder_device == "cuda"


def test_a_model_folder_goes_with_the_transformer_encoder_only():
    with pytest.raises(ValueError, match="encoder=transformer needs features.encoder_model"):
        FeatureOptions(context=True, encoder="transformer")
    with pytest.raises(ValueError, match="set features.encoder=transformer too"):
        FeatureOptions(context=True, encoder_model="some/folder")
    assert FeatureOptions(context=True, encoder="transformer",
                          encoder_model="some/folder").encoder_model == "some/folder"


def test_features_file_round_trip_and_damage(tmp_path):
    features, vocab = build_features(_table(), _pmi(), _vectors(), None)
    path = tmp_path / "f.npz"
    save_features(path, features, vocab)
    loaded, loaded_vocab = load_features(path)
    assert loaded_vocab == vocab
    np.testing.assert_array_equal(loaded.predicate_ids, features.predicate_ids)
    np.testing.assert_array_equal(loaded.argument_positions, features.argument_positions)
    np.testing.assert_array_equal(loaded.pmi.toarray(), features.pmi.toarray())
    np.testing.assert_array_equal(loaded.types.toarray(), features.types.toarray())
    path.write_bytes(b"not a zip file")
    with pytest.raises(InputError, match="f.npz"):
        load_features(path)


def test_a_subset_keeps_the_id_spaces_and_the_shared_sentence_vectors():
    import dataclasses

    from aesi_lib.model.synthetic import planted_features

    features, _, _ = planted_features(60, seed=1)
    sentences = np.unique(features.sentence_ids, return_inverse=True)[1].reshape(-1)
    shared = dataclasses.replace(
        features, context_rows=sentences,
        context_vectors=np.arange(2 * (sentences.max() + 1), dtype=np.float32).reshape(-1, 2))
    rows = np.array([5, 0, 17, 17])
    part = shared.subset(rows)
    part.validate()
    assert part.n_entities == 4
    np.testing.assert_array_equal(part.head_ids, features.head_ids[rows])
    np.testing.assert_array_equal(part.types.toarray(), features.types[rows].toarray())
    assert part.pmi is features.pmi and part.context_vectors is shared.context_vectors
    np.testing.assert_array_equal(part.mention_context_vectors(),
                                  shared.mention_context_vectors()[rows])


def test_attribution_verbs_need_event_nouns():
    with pytest.raises(ValueError, match="features.event_nouns"):
        FeatureOptions(attribution_verbs=True)
    assert FeatureOptions(event_nouns=True, attribution_verbs=True).attribution_verbs


def test_the_sense_choices_of_the_options_are_the_rules():
    from typing import get_args, get_type_hints

    from aesi_lib.entities.event_nouns import SENSE_CHOICES

    assert get_args(get_type_hints(FeatureOptions)["event_noun_senses"]) == SENSE_CHOICES
