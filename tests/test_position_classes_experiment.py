"""experiments/position_classes.py: classes cut within each template and argument position,
with the subject position's own number, reaching the solve only inside their block."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from aesi_lib.model import factored_slots
from aesi_lib.model.features import EntityFeatures
from experiments import position_classes


def _features() -> EntityFeatures:
    """Two templates' mentions: heads 0-5 as subjects, heads 6-11 as objects, of two kinds
    of head vector each (the first half of each group alike, the second half alike)."""
    heads = np.repeat(np.arange(12), 2)
    n = heads.shape[0]
    kind = (heads % 6 >= 3).astype(float)
    vectors = np.stack([1 - kind, kind, 0.1 * (heads % 3)], axis=1)
    return EntityFeatures(
        head_ids=heads, head_vectors=vectors, predicate_vectors=np.ones((n, 3)),
        dep_ids=(heads >= 6).astype(np.int64),
        types=sp.csr_matrix((np.ones(n), (np.arange(n), np.zeros(n, dtype=np.int64))),
                            shape=(n, 1)),
        sentence_ids=np.arange(n), doc_ids=np.arange(n) // 4, pmi=sp.csr_matrix((12, 12)),
        predicate_ids=np.zeros(n, dtype=np.int64),
        argument_positions=(heads >= 6).astype(np.int64))


def test_each_position_of_each_template_has_its_own_number_of_classes():
    features = _features()
    templates = np.arange(features.head_ids.shape[0]) % 2
    classes = position_classes.classes_within_positions(features, templates, [2, 1, 9, 9])
    subjects = features.argument_positions == 0
    for template in (0, 1):
        inside = templates == template
        assert len(set(classes[inside & subjects])) == 2
        assert set(classes[inside & ~subjects]) == {0}       # one object class
        # The two kinds of subject head part.
        kinds = features.head_vectors[inside & subjects, 1]
        assert len(set(zip(kinds, classes[inside & subjects], strict=True))) == 2


def test_the_cut_reaches_the_factored_slots_it_is_passed_to():
    features = _features()
    templates = np.zeros(features.head_ids.shape[0], dtype=np.int64)
    parts = position_classes.subject_classes(2, others=1)
    slots = factored_slots.factored_slot_labels(
        features, 36, templates=templates, classes_by_template=parts.classes_by_template)
    library = factored_slots.factored_slot_labels(features, 36, templates=templates)
    assert not np.array_equal(slots, library)
    subjects = features.argument_positions == 0
    assert len(set(slots[subjects])) == 2 and set(slots[subjects]) <= set(range(9))
    assert set(slots[~subjects]) == {9}                      # object position, class 0
