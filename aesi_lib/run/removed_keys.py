"""The configuration keys that aesi no longer has, and the values it no longer accepts.

Options measured as no gain were removed (issue 46); the behaviour each one chose is now
fixed. Configurations written before (a project's ``project.json``, a run's record in the
store, ``results.json``, older ``--config`` files) still load: a removed key given its fixed
value is dropped, and any other value is an error that names the key and says why it went
(:func:`drop_removed_keys`, which :func:`aesi_lib.run.config.validate_config` calls first).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from pydantic import TypeAdapter, ValidationError

from aesi_lib.errors import ConfigError

# The keys that configurations had and no longer have (issue 46), each with the value that
# is now fixed behaviour and why it went. A stored or given value equal to the fixed one is
# dropped silently, so that the configuration of an existing project (``project.json``, a
# run's record in the store, ``results.json``) and older ``--config`` files still load; any
# other value is an error that names the key. The last commit with the code of the options
# measured as no gain is 74202f9 (5291fcb for the entity rules R17 and R19 of issue 67,
# 28358f8 for R17 by its parts).
REMOVED_KEYS: dict[str, tuple[Any, str]] = {
    "parser.ner": (False, "the entity recognizer (NER classes for the names WordNet does not "
                   "know) measured no gain (docs/experiments/)"),
    "features.token_context": (False, "in-context token vectors measured no gain "
                               "(docs/experiments/); features.context gives the sentence "
                               "vectors"),
    "features.pmi_variant": ("pmi", "W_T's PMI is always the plain PMI: normalised PMI "
                             "measured no gain (docs/experiments/), and no PMI term is "
                             "model.similarity.pmi_weight=0"),
    "features.min_pair_docs": (1, "every pair of heads a document shares counts in the PMI "
                               "(aesi_lib.store.database.MIN_PAIR_DOCS)"),
    "features.phrasal_verbs": (False, "entity rule R13 (phrasal verbs as predicates of their "
                               "own) measured no gain (docs/experiments/)"),
    "features.chains": (False, "coreference chains measured no gain (docs/experiments/)"),
    "features.pronouns": (False, "the pronouns the coreference chains resolved went with the "
                          "chains, which measured no gain (docs/experiments/)"),
    "features.ner_as_noun": (False, "names typed as the common noun of their NER class went "
                             "with parser.ner, which measured no gain (docs/experiments/)"),
    "features.noun_modifiers": (False, "entity rule R17 (nouns inside an argument's phrase) "
                                "raised CASIE's recall ceilings but lowered its F1 and "
                                "MUC-4's (docs/experiments/reach-rules.md; code at 5291fcb)"),
    "features.number_arguments": (False, "entity rule R19 (numbers and quantifiers as "
                                  "arguments) lowered MUC-4's F1 and raised CASIE's no more "
                                  "than the predicate baseline's (docs/experiments/"
                                  "reach-rules.md; code at 5291fcb)"),
    "features.modifier_links": ("", "entity rule R17 by its parts (compounds, possessors or "
                                "prepositional objects inside an argument's phrase) lowered "
                                "MUC-4's F1 or its template filling, and moved CASIE's F1 by "
                                "less than the predicate baseline's gap (docs/experiments/"
                                "reach-rules.md; code at 28358f8)"),
    "model.solver": ("eigsh", "the eigensolver is always ARPACK's eigsh "
                     "(aesi_lib.model.ncut.spectral_embedding)"),
    "model.eig_tol": (1e-8, "the eigensolver's tolerance is always 1e-8 "
                      "(aesi_lib.model.ncut.EIG_TOL)"),
    "model.deflate": (False, "the trivial eigenpair is never deflated (no preset did)"),
    "model.tol": (1e-6, "the AMP stopping threshold is always 1e-6 "
                  "(aesi_lib.model.amp.AMP_TOL)"),
    "model.similarity.cosine": ("shift", "cosines are always shifted to (1 + cos) / 2 "
                                "(aesi_lib.model.terms.CosineTerm)"),
    "model.similarity.clip_chunk": (2048, "it served the clipped cosine, which went with "
                                    "model.similarity.cosine"),
    "model.similarity.diagonal": ("keep", "the graphs always keep their self-similarity"),
    "model.similarity.pmi": ("positive", "W_T always clips negative PMI to 0 "
                             "(aesi_lib.model.similarity.positive_pmi)"),
    "model.similarity.term_normalization": ("none", "graph terms normalised by their mean "
                                            "degree measured no gain (docs/experiments/)"),
    "model.similarity.salience_smoothing": (5.0, "the salience's smoothing is always 5 "
                                            "(aesi_lib.model.salience.SALIENCE_SMOOTHING)"),
    "model.similarity.salience_min_count": (20, "the salience's least count is always 20 "
                                            "(aesi_lib.model.salience.SALIENCE_MIN_COUNT)"),
    "model.similarity.document_context_weight": (0.0, "document vectors in W_T measured no "
                                                 "gain (docs/experiments/)"),
    "model.similarity.predicate_context_weight": (0.0, "in-context predicate vectors in W_T "
                                                  "measured no gain (docs/experiments/)"),
    "model.similarity.head_context_weight": (0.0, "in-context head vectors in W_S and W_H "
                                             "measured no gain (docs/experiments/)"),
    "model.similarity.chain_weight": (0.0, "coreference chains in W_T measured no gain "
                                      "(docs/experiments/)"),
    "model.similarity.chain_h_weight": (0.0, "coreference chains in W_H measured no gain "
                                        "(docs/experiments/)"),
}

# Values of remaining keys that are no longer choices, with why.
REMOVED_VALUES: dict[str, dict[Any, str]] = {
    "model.template_unit": {"chain": "templates tied by coreference chain measured no gain "
                                     "(docs/experiments/); use 'mention' or 'predicate'"},
}


def drop_removed_keys(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a configuration as nested dicts) without the keys of :data:`REMOVED_KEYS`
    whose value is the behaviour that is now fixed; ``data`` itself is left as it was.

    Raises
    ------
    ConfigError
        One problem per removed key given another value, and per value of
        :data:`REMOVED_VALUES`, each saying that it was removed and why.
    """
    out = copy.deepcopy(data)
    problems = []
    for key, (fixed, why) in REMOVED_KEYS.items():
        *parents, name = key.split(".")
        node: Any = out
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict) or name not in node:
            continue
        given = node.pop(name)
        if not _same_value(given, fixed):
            # A value typed on the command line reads better as typed: true, not "true".
            shown = (given if isinstance(given, str) and not isinstance(fixed, str)
                     else json.dumps(given))
            problems.append((key, f"removed; {why}; delete the key (given {shown}, only its "
                             f"fixed value {json.dumps(fixed)} is accepted)"))
    for key, values in REMOVED_VALUES.items():
        node = out
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, str | int | float | bool) and node in values:
            problems.append((key, f"{json.dumps(node)} was removed; {values[node]}"))
    if problems:
        raise ConfigError(problems)
    return out


def _same_value(given: Any, fixed: Any) -> bool:
    """Whether ``given`` (a JSON value, or a string from the command line) is ``fixed``."""
    if isinstance(given, str) and not isinstance(fixed, str):
        try:
            given = TypeAdapter(type(fixed)).validate_python(given)
        except ValidationError:
            return False
    if isinstance(fixed, bool) or isinstance(given, bool):
        return type(given) is type(fixed) and given == fixed
    return type(given) in (int, float, str) and given == fixed
