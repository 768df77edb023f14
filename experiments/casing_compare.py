"""Compare casing strategies on the upper-case MUC-4 TST4 texts against their mixed-case twin.

For every strategy the upper-case messages are parsed and their entity quadruples (head lemma,
predicate lemma, dependency) counted per message; the reference is the same count on the parse
of the original mixed-case text (``tst4-muc4.mixed-case``, parsed as is). Precision, recall
and F1 are micro-averaged over messages on multisets. Token-level agreement with the reference
parse (UPOS, labelled attachment) is shown too.

Usage::

    .venv/bin/python -m experiments.casing_compare [--muc4-dir DIR] [--model NAME]

Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from aesi_lib.corpus.muc4 import read_muc4_messages
from aesi_lib.entities import extract_entities
from aesi_lib.parse.casing import CASING_STRATEGIES
from aesi_lib.parse.spacy_backend import DEFAULT_SPACY_MODEL, SpacyParser
from aesi_lib.parse.types import ParsedDocument

DEFAULT_MUC4 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "muc4"


def quadruples(parsed: ParsedDocument) -> Counter[tuple[str, str, str]]:
    """Multiset of (head lemma, predicate, dependency) of one message."""
    return Counter((r.head_lemma, r.predicate, r.dep) for r in extract_entities(parsed))


def token_agreement(sys_doc: ParsedDocument, ref_doc: ParsedDocument) -> tuple[int, int, int]:
    """(tokens aligned by offset, same UPOS, same head offset and label) against the reference."""
    def table(doc: ParsedDocument) -> dict[int, tuple[str, int, str]]:
        out = {}
        for sent in doc.sentences:
            for tok in sent.tokens:
                head = sent.tokens[tok.head].start_char if tok.head >= 0 else -1
                out[tok.start_char] = (tok.upos, head, tok.dep)
        return out

    sys_t, ref_t = table(sys_doc), table(ref_doc)
    aligned = upos = las = 0
    for start, (r_upos, r_head, r_dep) in ref_t.items():
        got = sys_t.get(start)
        if got is None:
            continue
        aligned += 1
        upos += got[0] == r_upos
        las += got[1] == r_head and got[2] == r_dep
    return aligned, upos, las


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--muc4-dir", type=Path, default=DEFAULT_MUC4)
    ap.add_argument("--model", default=DEFAULT_SPACY_MODEL)
    args = ap.parse_args(argv)

    upper = read_muc4_messages(args.muc4_dir / "tst4" / "tst4-muc4", "tst4")
    mixed = read_muc4_messages(args.muc4_dir / "tst4" / "tst4-muc4.mixed-case", "tst4")
    assert [d.doc_id for d in upper] == [d.doc_id for d in mixed]
    assert all(len(u.text) == len(m.text) for u, m in zip(upper, mixed, strict=True))
    words = sum(len(d.text.split()) for d in upper)

    def parser(casing: str) -> SpacyParser:
        # Parsers of one model share the loaded pipeline.
        return SpacyParser(model=args.model, casing=casing)

    reference = list(parser("asis").parse(mixed))
    ref_quads = [quadruples(p) for p in reference]
    n_ref = sum(sum(q.values()) for q in ref_quads)

    print(f"TST4: {len(upper)} messages, {words} words; reference (mixed-case parse): "
          f"{n_ref} entity quadruples; model {args.model}\n")
    print("| casing | entities | P | R | F1 | UPOS agree | LAS agree | parse s |")
    print("|---|---|---|---|---|---|---|---|")
    for casing in CASING_STRATEGIES:
        t0 = time.perf_counter()
        parsed = list(parser(casing).parse(upper))
        seconds = time.perf_counter() - t0
        tp = n_sys = 0
        aligned = upos = las = 0
        for sys_doc, ref_doc, ref_q in zip(parsed, reference, ref_quads, strict=True):
            q = quadruples(sys_doc)
            tp += sum((q & ref_q).values())
            n_sys += sum(q.values())
            a, u, l = token_agreement(sys_doc, ref_doc)
            aligned, upos, las = aligned + a, upos + u, las + l
        p = tp / n_sys if n_sys else 0.0
        r = tp / n_ref if n_ref else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        print(f"| {casing} | {n_sys} | {p:.3f} | {r:.3f} | {f1:.3f} | {upos / aligned:.3f} | "
              f"{las / aligned:.3f} | {seconds:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
