"""Chains as tables: chain rows per mention, resolved pronouns as entity rows headed by their
antecedent, and the entity table joined with its chains."""

from __future__ import annotations

import pandas as pd
import pytest

from aesi_lib.corpus.types import Document
from aesi_lib.entities import entities_frame, extract_entities
from aesi_lib.entities.chain_tables import CHAIN_COLUMNS, chain_frames, with_chains
from aesi_lib.parse.backends import ParserConfig, make_parser

TEXT = ("THE GUERRILLAS ATTACKED THE MILITARY BASE IN SAN MIGUEL. THEY KILLED TWO SOLDIERS "
        "AND BURNED A TRUCK.")


@pytest.fixture(scope="module")
def parsed():
    parser = make_parser(ParserConfig())
    return next(iter(parser.parse([Document(doc_id="D1", text=TEXT, split="test",
                                            source="test")])))


def test_chain_rows_and_resolved_pronouns(parsed):
    chains, pronouns = chain_frames([parsed])
    assert list(chains.columns) == list(CHAIN_COLUMNS)
    guerrillas = chains[chains["head_lemma"] == "guerrilla"]["chain"].tolist()
    they = chains[chains["mention"].str.lower() == "they"]["chain"].tolist()
    assert guerrillas and they == guerrillas[:1]
    # "they" is the subject of both conjoined verbs (rule R8): one entity row per predicate,
    # headed by its antecedent.
    rows = sorted((r.head_lemma, r.mention.lower(), r.predicate, r.dep, r.chain)
                  for r in pronouns.itertuples())
    assert rows == [("guerrilla", "they", "burn", "nsubj", guerrillas[0]),
                    ("guerrilla", "they", "kill", "nsubj", guerrillas[0])]


def test_entity_table_with_chains_and_pronouns(parsed):
    table = entities_frame(extract_entities(parsed)).assign(split="test")
    chains, pronouns = chain_frames([parsed])
    joined = with_chains(table, chains)
    assert len(joined) == len(table) and joined["chain"].notna().all()
    both = with_chains(table, chains, pronouns)
    assert len(both) == len(table) + 2
    added = both[both["mention"].str.lower() == "they"]
    assert added["split"].tolist() == ["test", "test"]
    assert added["head"].str.lower().tolist() == ["guerrillas", "guerrillas"]
    order = ["doc_id", "sent_id", "head_index", "predicate", "dep"]
    assert both[order].equals(both.sort_values(order, kind="stable")[order])
    # A mention the sieve did not see keeps a null chain (its own chain in the features).
    alone = with_chains(table, chains.iloc[0:0])
    assert alone["chain"].isna().all()
    assert isinstance(alone["chain"].dtype, pd.Int64Dtype)
