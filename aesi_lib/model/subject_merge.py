"""Subject classes merged by their predicates: one role for the agents of a template.

Not in the paper; part of factored slots (``ModelConfig.slot_model = "factored"``). Under
factored slots (:mod:`aesi_lib.model.factored_slots`) a slot is an argument position
crossed with a semantic class of the head, and the classes are cut by what the head words are
(W_H: shared types, head-vector cosine). The agents of one event are not one kind of word: on
MUC-4 the attack template's subjects fall into a class of persons (*terrorists*,
*guerrillas*), one of group nouns (*group*, *forces*), one of organisations (*army*,
*government*), one of names WordNet does not know (*FMLN*, *Extraditables*) and others, while
the evaluation maps each gold slot to one slot of a template per incident type, so most of
them are lost to the perpetrator.

Those classes act alike: they are subjects of the same predicates (*attack*, *kill*,
*kidnap*) in much the same proportions, whereas a subject class of instruments (*the bomb
exploded*) or of the dead (*the people died*) is the subject of other predicates. So within
each template the subject slots are grouped by their predicate profiles: each slot has the
vector of its mentions' predicate counts, and groups are joined by complete linkage while the
least cosine between their members is at least θ (:func:`complete_linkage`). A group is one
role and takes the code of its lowest slot (:func:`subject_merge_table`). Objects and
obliques keep their classes: there the classes are what tells victims from targets and
instruments, and merging them measured lower (docs/experiments/class-merges.md).

The cut's labels (the labels file, warm starts, ids carried by updates, the class rule of
``aesi extract``) stay the classes; the merge is applied where labels become roles
(:func:`merged_slots`), from the table of the labelled corpus. Pure: no I/O, no Prefect.
"""

from __future__ import annotations

import numpy as np

from aesi_lib.entities.positions import ARGUMENT_POSITIONS

#: The argument position whose classes are merged (the subject).
SUBJECT = ARGUMENT_POSITIONS.index("subject")
#: θ, the least cosine within a group: the middle of the plateau 0.85-0.97 measured on DEV,
#: TST1 and TST2 (docs/experiments/class-merges.md).
SUBJECT_MERGE_COSINE = 0.9


def complete_linkage(similarity: np.ndarray, threshold: float) -> list[list[int]]:
    """Groups of the rows of a symmetric similarity matrix by complete linkage.

    Starting from singletons, the two groups whose least pairwise similarity is largest are
    joined while that similarity is at least ``threshold`` (ties go to the first pair in row
    order, so the result does not depend on anything but the matrix).

    Parameters
    ----------
    similarity : ndarray of shape (n, n)
    threshold : float

    Returns
    -------
    list of list of int
        The groups, each sorted, in the order of their first row.
    """
    groups = [[i] for i in range(similarity.shape[0])]
    while len(groups) > 1:
        best, pair = -np.inf, (0, 0)
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                link = float(similarity[np.ix_(groups[a], groups[b])].min())
                if link > best:
                    best, pair = link, (a, b)
        if best < threshold:
            break
        a, b = pair
        groups[a] = sorted(groups[a] + groups.pop(b))
    return groups


def subject_merge_table(templates: np.ndarray, slots: np.ndarray, predicates: np.ndarray,
                        n_templates: int, n_slots: int, threshold: float) -> np.ndarray:
    """The slot each (template, slot) pair becomes when the subject slots of every template are
    merged by their predicate profiles (the module docstring).

    Parameters
    ----------
    templates, slots : ndarray of shape (E,), int
        The cut's labels: template and factored slot (``position · n_classes + class``; -1
        where a mention has none) of every labelled mention.
    predicates : ndarray of shape (E,)
        Each mention's predicate (any hashable code: lemma or id).
    n_templates, n_slots : int
        |T| and |S|; ``n_slots`` a multiple of the 4 argument positions.
    threshold : float
        θ: the least cosine of the predicate-count vectors of two slots in one group.

    Returns
    -------
    ndarray of shape (n_templates, n_slots), int
        ``table[t, s]``: the slot of a mention of template t and slot s; the identity outside
        merged groups.

    References
    ----------
    Not in Sha, Li, Chang and Sui (NAACL 2016), whose slots are the cut of W_S (Eq. 2); it
    refines the factored slots of this project.
    """
    templates = np.asarray(templates, dtype=np.int64)
    slots = np.asarray(slots, dtype=np.int64)
    n_classes = n_slots // len(ARGUMENT_POSITIONS)
    table = np.tile(np.arange(n_slots, dtype=np.int64), (n_templates, 1))
    predicate_ids = np.unique(np.asarray(predicates).astype(str), return_inverse=True)[1]
    in_subject = (slots >= 0) & (slots // n_classes == SUBJECT)
    for template in np.unique(templates[in_subject]):
        rows = np.flatnonzero(in_subject & (templates == template))
        codes, members = np.unique(slots[rows], return_inverse=True)
        if codes.shape[0] < 2:
            continue
        counts = np.zeros((codes.shape[0], int(predicate_ids.max()) + 1))
        np.add.at(counts, (members, predicate_ids[rows]), 1.0)
        unit = counts / np.linalg.norm(counts, axis=1, keepdims=True)
        for group in complete_linkage(unit @ unit.T, threshold):
            table[template, codes[group]] = codes[group].min()
    return table


def merged_slots(templates: np.ndarray, slots: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Each mention's slot under a :func:`subject_merge_table` (-1 stays -1).

    Parameters
    ----------
    templates, slots : ndarray of shape (N,), int
    table : ndarray of shape (|T|, |S|), int

    Returns
    -------
    ndarray of shape (N,), int
    """
    templates = np.asarray(templates, dtype=np.int64)
    slots = np.asarray(slots, dtype=np.int64)
    labelled = (slots >= 0) & (templates >= 0)
    out = slots.copy()
    out[labelled] = table[templates[labelled], slots[labelled]]
    return out
