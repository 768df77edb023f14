"""Coreference chains as tables: one row per mention with its chain, and the entity rows of the
pronouns the chains resolve.

These are what the store keeps (``chains``) and what the model reads: the ``chain`` column of
the entity table (``aesi_lib.model.features``) and, as an option, the resolved pronouns as
entity mentions of their own. A resolved pronoun's head is the head of its chain's
representative (``they`` in "they kidnapped the mayor" becomes a subject of *kidnap* headed
by *guerrillas*), so that its role counts for the entity it refers to; its mention text stays
the pronoun's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import astuple

import numpy as np
import pandas as pd

from aesi_lib.corpus.types import Document
from aesi_lib.entities.chains import ChainOptions, CoreferenceResult, resolve_coreference
from aesi_lib.entities.entity_table import spans_in_original
from aesi_lib.entities.rules import (
    ENTITY_COLUMNS,
    EntityRecord,
    character_span,
    extract_entities,
)
from aesi_lib.parse.types import ParsedDocument

#: Columns of the chain table: one row per mention of a document.
CHAIN_COLUMNS: tuple[str, ...] = ("doc_id", "sent_id", "head_index", "chain", "kind", "head",
                                  "head_lemma", "mention")


def chain_rows(result: CoreferenceResult) -> list[tuple]:
    """One row (:data:`CHAIN_COLUMNS`) per mention of one document's coreference result."""
    return [(result.doc_id, m.sent_id, m.head_index, result.chains[m.key], m.kind, m.head,
             m.head_lemma, m.text) for m in result.mentions]


def pronoun_records(result: CoreferenceResult, parsed: ParsedDocument
                    ) -> list[tuple[EntityRecord, int]]:
    """The entity records of the resolved pronouns of ``parsed`` (its coreference
    ``result``), headed by their chain's representative, each with its chain id; the
    character span is the pronoun's."""
    out: list[tuple[EntityRecord, int]] = []
    for m in result.linked_pronouns():
        chain = result.chains[m.key]
        rep = result.representative(chain)
        start, end = character_span(parsed.sentences[m.sent_id].tokens, m.start, m.end - 1)
        for predicate, dep in m.arguments:
            out.append((EntityRecord(doc_id=result.doc_id, sent_id=m.sent_id,
                                     head_index=m.head_index, head=rep.head,
                                     head_lemma=rep.head_lemma, mention=m.text,
                                     predicate=predicate, dep=dep, ner="", start_char=start,
                                     end_char=end), chain))
    return out


def chain_frames(parses: Iterable[ParsedDocument], options: ChainOptions | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Chains and resolved pronouns of several documents.

    Parameters
    ----------
    parses : iterable of ParsedDocument
    options : ChainOptions, optional
        Which sieves run (all by default).

    Returns
    -------
    chains : DataFrame with :data:`CHAIN_COLUMNS`
        One row per mention (``chain`` is the chain id within its document).
    pronouns : DataFrame with the entity columns and ``chain``
        One row per (resolved pronoun, predicate it is an argument of).
    """
    chains: list[tuple] = []
    pronouns: list[tuple] = []
    for parsed in parses:
        result = resolve_coreference(parsed, options, extract_entities(parsed))
        chains += chain_rows(result)
        pronouns += [(*astuple(record), chain) for record, chain in pronoun_records(result, parsed)]
    chain_frame = pd.DataFrame(chains, columns=list(CHAIN_COLUMNS))
    pronoun_frame = pd.DataFrame(pronouns, columns=[*ENTITY_COLUMNS, "chain"])
    types = {"sent_id": "int64", "head_index": "int64", "chain": "int64"}
    return chain_frame.astype(types), pronoun_frame.astype(types)


def with_chains(table: pd.DataFrame, chains: pd.DataFrame, pronouns: pd.DataFrame | None = None
                ) -> pd.DataFrame:
    """The entity table with each mention's ``chain`` (null where the sieve saw no mention),
    and the resolved pronouns' rows added when ``pronouns`` is given, in the entity table's
    order (document, sentence, head position, predicate, dependency)."""
    key = ["doc_id", "sent_id", "head_index"]
    out = table.drop(columns=["chain"], errors="ignore").merge(
        chains[[*key, "chain"]].drop_duplicates(key), on=key, how="left")
    if pronouns is not None and len(pronouns):
        extra = pronouns[pronouns["doc_id"].isin(set(table["doc_id"]))]
        if "split" in out.columns:
            splits = table.drop_duplicates("doc_id").set_index("doc_id")["split"]
            extra = extra.assign(split=extra["doc_id"].map(splits))
        out = pd.concat([out, extra[[c for c in out.columns if c in extra.columns]]],
                        ignore_index=True)
        out = out.sort_values(["doc_id", "sent_id", "head_index", "predicate", "dep"],
                              kind="stable").reset_index(drop=True)
    out["chain"] = out["chain"].astype("Int64")
    return out


def chained_entity_table(table: pd.DataFrame, parses: Sequence[ParsedDocument],
                         documents: Sequence[Document], pronouns: bool,
                         options: ChainOptions | None = None
                         ) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """The entity table with chains (:func:`with_chains`), as the flow's coreference step and
    the notebook path both make it.

    Parameters
    ----------
    table : the entity table of ``documents``
    parses : their parses, in the same order
    documents : the documents as stored (their ``original``, where set, is what the resolved
        pronouns' ``start_char``/``end_char`` index, as the entity rows' do)
    pronouns : add the resolved pronouns' rows (``features.pronouns``)
    options : which sieves run (all by default)

    Returns
    -------
    chained : the table with ``chain`` (and the pronoun rows), ``entity_id`` renumbered
    chains : the chain rows (:data:`CHAIN_COLUMNS`), what the store keeps
    n_pronouns : resolved pronoun rows found (added or not)
    """
    chains, pronoun_rows = chain_frames(parses, options)
    pronoun_rows = spans_in_original(pronoun_rows, documents)
    chained = with_chains(table, chains, pronoun_rows if pronouns else None)
    chained["entity_id"] = np.arange(len(chained), dtype=np.int64)
    return chained, chains, len(pronoun_rows)
