"""What the commands print: step tables, scores with their bounds, per-document slots."""

from __future__ import annotations

from typing import Any


def print_steps(results: dict[str, Any]) -> None:
    print("| step | state | seconds |")
    print("|---|---|---|")
    for name, record in results.get("steps", {}).items():
        print(f"| {name} | {record['state']} | {record['seconds']:.1f} |")


def print_scores(results: dict[str, Any]) -> None:
    scores = results.get("scores") or {}
    if not scores:
        print("no answer keys: nothing scored")
        return
    print(f"scores on {results.get('evaluated_on', '')}:")
    print("| mapping/matcher | P | R | F1 | TP | FP | FN |")
    print("|---|---|---|---|---|---|---|")
    for name, s in scores.items():
        if isinstance(s, dict):
            print(f"| {name} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | "
                  f"{s['tp']} | {s['fp']} | {s['fn']} |")
    for name, s in scores.items():
        if not isinstance(s, dict):
            print(f"{name}: {s:.3f}")
    print_bounds({name: s for name, s in scores.items() if isinstance(s, dict)})


def print_bounds(entries: dict[str, dict[str, Any]]) -> None:
    """What a perfect part would allow (``aesi_lib.evaluate.bounds``), per score entry."""
    rows = [(name, e) for name, e in entries.items() if "template_recall_ceiling" in e]
    if not rows:
        return
    print("bounds (oracles that use the keys; not scores):")
    print("| mapping/matcher | FP from irrelevant messages | recall bound, mapped templates "
          "| F1 if irrelevant messages gave nothing |")
    print("|---|---|---|---|")
    for name, e in rows:
        print(f"| {name} | {e['fp_share_irrelevant']:.0%} | {e['template_recall_ceiling']:.3f} "
              f"| {e['relevance_oracle']['f1']:.3f} |")


def print_documents(summary: dict[str, Any], limit: int = 10) -> None:
    for doc_id, entry in list(summary.items())[:limit]:
        slots = "; ".join(f"slot {s}: {', '.join(m)}" for s, m in entry["slots"].items())
        print(f"  {doc_id}: {entry['mentions']} mentions, template {entry['template']} "
              f"({slots})")
    if len(summary) > limit:
        print(f"  ... and {len(summary) - limit} more documents")
