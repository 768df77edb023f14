"""Pairwise quality of the coreference chains (aesi_lib.entities.chains) on MUC-4 TST1+TST2.

The entity mentions of each message (distinct ``(sent_id, head_index)`` of ``extract_entities``
on the default parse) are matched to the message's gold entities (all four gold slots) with the
lenient matcher of evaluation.md: a mention matches a gold entity when its head matches a token
of ``pre(m)`` of one of its alternatives. Over the pairs of entity mentions of one message:

- a pair is gold-positive when both heads match the same gold entity;
- a pair is predicted-positive when both mentions are in the same chain.

``P`` = TP / predicted pairs; ``P(gold)`` = TP / predicted pairs whose two mentions both match
some gold entity (links between mentions the key says nothing about are not counted wrong);
``R`` = TP / gold-positive pairs. The second table counts only pairs whose head lemmas differ:
the scorer pools a message's mentions by head word already, so only links across heads can add
anything. Rows add one sieve at a time, in the sieve order. ``pronouns`` counts the pronouns
that join a chain with a noun phrase (``args``: those of them that are verb arguments, i.e.
would become entity mentions; ``→gold``: of those, the ones whose chain holds a gold-matched
entity mention).

Usage::

    .venv/bin/python benchmarks/chain_quality.py [--muc4-dir DIR] [--cache-dir DIR]
        [--pronoun-window N] [--repeat N]

Parses are cached (``aesi_lib.parse.cache``) under ``--cache-dir`` (default: a folder in the
system temp dir), so reruns skip parsing. Prints Markdown tables and the sieve's time per 1,000
documents.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from aesi_lib.corpus.muc4 import load_muc4_split
from aesi_lib.corpus.muc4_keys import read_muc4_keys
from aesi_lib.entities import EntityRecord, extract_entities
from aesi_lib.entities.chains import SIEVES, ChainOptions, resolve_coreference
from aesi_lib.evaluate.gold import GOLD_SLOTS, extract_gold
from aesi_lib.evaluate.matching import guess_token, match_keys
from aesi_lib.parse.backends import ParserConfig, make_parser
from aesi_lib.parse.cache import parse_with_cache
from aesi_lib.parse.types import ParsedDocument

DEFAULT_MUC4 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "muc4"
KEY_FILES = {"tst1": "tst1/key-tst1.v7", "tst2": "tst2/key-tst2.v4"}
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "aesi-chain-quality-parses"

Key = tuple[int, int]
Pair = tuple[str, Key, Key]


@dataclass
class Message:
    """One parsed message with its entity mentions and their gold entities."""

    parsed: ParsedDocument
    entities: list[EntityRecord]
    lemma: dict[Key, str]
    gold_of: dict[Key, set[tuple[str, int]]]


def load_messages(muc4_dir: Path, cache_dir: Path) -> tuple[list[Message], int]:
    """Parse (cached) TST1+TST2 and attach gold entities; also return the parse count."""
    docs = [d for split in KEY_FILES for d in load_muc4_split(muc4_dir, split).documents]
    keys = [t for split, path in KEY_FILES.items() for t in read_muc4_keys(muc4_dir / path)]
    gold = extract_gold(keys, [d.doc_id for d in docs])
    parsed, stats = parse_with_cache(make_parser(ParserConfig()), docs, cache_dir)
    messages = []
    for doc in parsed:
        entities = extract_entities(doc)
        lemma: dict[Key, str] = {}
        head: dict[Key, str] = {}
        for r in entities:
            lemma[(r.sent_id, r.head_index)] = r.head_lemma
            head[(r.sent_id, r.head_index)] = r.head
        matchers = [((slot, n), match_keys(ent.alternatives, "lenient"))
                    for slot in GOLD_SLOTS for n, ent in enumerate(gold[doc.doc_id][slot])]
        gold_of = {k: {gid for gid, keyset in matchers if guess_token(h) in keyset}
                   for k, h in head.items()}
        messages.append(Message(doc, entities, lemma, gold_of))
    return messages, stats.parsed


def gold_pairs(messages: Sequence[Message]) -> set[Pair]:
    out: set[Pair] = set()
    for msg in messages:
        doc_id = msg.parsed.doc_id
        for a, b in combinations(sorted(msg.gold_of), 2):
            if msg.gold_of[a] & msg.gold_of[b]:
                out.add((doc_id, a, b))
    return out


@dataclass
class Row:
    label: str
    predicted: set[Pair]
    pronouns: int
    pronoun_args: int
    pronoun_gold: int


def run_config(messages: Sequence[Message], label: str, options: ChainOptions) -> Row:
    predicted: set[Pair] = set()
    pronouns = args = to_gold = 0
    for msg in messages:
        result = resolve_coreference(msg.parsed, options, msg.entities)
        by_chain: dict[int, list[Key]] = {}
        for k in msg.lemma:
            by_chain.setdefault(result.chains[k], []).append(k)
        for members in by_chain.values():
            for a, b in combinations(sorted(members), 2):
                predicted.add((msg.parsed.doc_id, a, b))
        gold_chains = {result.chains[k] for k, g in msg.gold_of.items() if g}
        for p in result.linked_pronouns():
            pronouns += 1
            if p.arguments:
                args += 1
                to_gold += result.chains[p.key] in gold_chains
        del by_chain
    return Row(label, predicted, pronouns, args, to_gold)


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


def print_table(title: str, rows: Sequence[Row], gold: set[Pair],
                messages: Sequence[Message], cross_only: bool) -> None:
    lemma = {(m.parsed.doc_id, k): v for m in messages for k, v in m.lemma.items()}
    matched = {(m.parsed.doc_id, k) for m in messages for k, g in m.gold_of.items() if g}

    def keep(p: Pair) -> bool:
        return not cross_only or lemma[(p[0], p[1])] != lemma[(p[0], p[2])]

    g = {p for p in gold if keep(p)}
    print(f"\n{title} (gold-positive pairs: {len(g)})\n")
    print("| sieves | predicted pairs | TP | P | P(gold) | R | pronouns | args | →gold |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        pred = {p for p in row.predicted if keep(p)}
        tp = len(pred & g)
        on_gold = sum((p[0], p[1]) in matched and (p[0], p[2]) in matched for p in pred)
        print(f"| {row.label} | {len(pred)} | {tp} | {_ratio(tp, len(pred))} | "
              f"{_ratio(tp, on_gold)} | {_ratio(tp, len(g))} | {row.pronouns} | "
              f"{row.pronoun_args} | {row.pronoun_gold} |")


def time_sieve(messages: Sequence[Message], repeat: int) -> dict[str, tuple[float, float]]:
    """Best-of-``repeat`` (wall, CPU) seconds per 1,000 documents, for the sieve alone
    (entities given) and with entity extraction included. CPU time is the process's own, so
    it is less affected by other work on the machine than wall time."""
    runs = {"sieve, entities given": lambda m: resolve_coreference(m.parsed, None, m.entities),
            "sieve with entity extraction": lambda m: resolve_coreference(m.parsed)}
    best = {name: (float("inf"), float("inf")) for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            w0, c0 = time.perf_counter(), time.process_time()
            for msg in messages:
                run(msg)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    scale = 1000 / len(messages)
    return {name: (w * scale, c * scale) for name, (w, c) in best.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--muc4-dir", type=Path, default=DEFAULT_MUC4)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--pronoun-window", type=int, default=ChainOptions().pronoun_window)
    ap.add_argument("--repeat", type=int, default=3, help="timing repetitions (best is shown)")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    messages, n_parsed = load_messages(args.muc4_dir, args.cache_dir)
    n_mentions = sum(len(m.lemma) for m in messages)
    n_matched = sum(bool(g) for m in messages for g in m.gold_of.values())
    print(f"TST1+TST2: {len(messages)} messages ({n_parsed} parsed, the rest from the cache "
          f"{args.cache_dir}, {time.perf_counter() - t0:.1f} s); {n_mentions} entity mentions "
          f"(distinct heads), {n_matched} match a gold entity (lenient); pronoun window "
          f"{args.pronoun_window} sentences")

    gold = gold_pairs(messages)
    rows = [run_config(messages, "none", ChainOptions.only((), args.pronoun_window))]
    for n in range(1, len(SIEVES) + 1):
        label = SIEVES[0] if n == 1 else "+ " + SIEVES[n - 1]
        rows.append(run_config(messages, label,
                               ChainOptions.only(SIEVES[:n], args.pronoun_window)))
    print_table("All pairs of entity mentions", rows, gold, messages, cross_only=False)
    print_table("Pairs with different head lemmas", rows, gold, messages, cross_only=True)

    times = time_sieve(messages, args.repeat)
    print(f"\nTime per 1,000 documents (best of {args.repeat}, wall / CPU seconds): "
          + "; ".join(f"{name}: {w:.2f} / {c:.2f} s" for name, (w, c) in times.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
