"""What the commands print: step tables, scores with their bounds, per-document slots."""

from __future__ import annotations

from typing import Any

from aesi_lib.markdown import markdown_table


def print_steps(results: dict[str, Any]) -> None:
    rows = [(name, r["state"], f"{r['seconds']:.1f}")
            for name, r in results.get("steps", {}).items()]
    print(markdown_table(["step", "state", "seconds"], rows), end="")


def print_label_changes(results: dict[str, Any]) -> None:
    """The labels that moved since the project's last export, as exported (a project's first
    run prints nothing)."""
    from aesi_lib.run.export_changes import describe_changes

    if results.get("labels"):
        print(f"\n{describe_changes(results['labels'])}")


def print_scores(results: dict[str, Any]) -> None:
    scores = results.get("scores") or {}
    if not scores:
        print("no answer keys: nothing scored")
        return
    print(f"scores on {results.get('evaluated_on', '')}:")
    rows = [(name, f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}", s["tp"],
             s["fp"], s["fn"]) for name, s in scores.items() if isinstance(s, dict)]
    print(markdown_table(["mapping/matcher", "P", "R", "F1", "TP", "FP", "FN"], rows), end="")
    for name, s in scores.items():
        if not isinstance(s, dict):
            print(f"{name}: {s:.3f}")
    print_bounds({name: s for name, s in scores.items() if isinstance(s, dict)})
    print_template_filling(results.get("template_filling"), results.get("evaluated_on", ""))


def print_template_filling(result: dict[str, Any] | None, split: str = "") -> None:
    """The template-filling metric of GTT and IterX (``aesi_lib.evaluate.template_filling``),
    per role and micro-averaged, when there is one."""
    if not result:
        return
    where = f" on {split}" if split else ""
    print(f"template filling (the metric of GTT and IterX, mapped on DEV){where}:")
    names = ["micro", "incident_type", "PerpInd", "PerpOrg", "Target", "Victim", "Weapon"]
    rows = [(name, f"{result[name]['p']:.3f}", f"{result[name]['r']:.3f}",
             f"{result[name]['f1']:.3f}", f"{result[name]['p_num']}/{result[name]['p_den']}",
             f"{result[name]['r_num']}/{result[name]['r_den']}")
            for name in names if name in result]
    print(markdown_table(["role", "P", "R", "F1", "correct/predicted", "found/gold"], rows),
          end="")


def print_bounds(entries: dict[str, dict[str, Any]]) -> None:
    """What a perfect part would allow (``aesi_lib.evaluate.bounds``), per score entry."""
    rows = [(name, e) for name, e in entries.items() if "template_recall_ceiling" in e]
    if not rows:
        return
    print("bounds (oracles that use the keys; not scores):")
    header = ["mapping/matcher", "FP from irrelevant messages", "recall bound, mapped templates",
              "F1 if irrelevant messages gave nothing"]
    print(markdown_table(header, [
        (name, f"{e['fp_share_irrelevant']:.0%}", f"{e['template_recall_ceiling']:.3f}",
         f"{e['relevance_oracle']['f1']:.3f}") for name, e in rows]), end="")
    print_misses(entries)


def print_misses(entries: dict[str, dict[str, Any]]) -> None:
    """Where each gold slot's missed entities are (``aesi_lib.evaluate.misses``), for the
    lenient entries (all entries when none is lenient)."""
    rows = [(name, e["misses"]) for name, e in entries.items() if "misses" in e]
    if not rows:
        return
    lenient = [(name, m) for name, m in rows if name.endswith("/lenient")]
    print("found and missed gold entities (non-optional misses; uses the keys):")
    header = ["mapping/matcher", "gold slot", "found", "missed: other slot", "most in",
              "missed: other template", "most in", "missed: no mention"]
    print(markdown_table(header, [
        (name, slot, m["found"], m["other_slot"],
         ", ".join(f"t{t} s{s} ({n})" for t, s, n in m["other_slot_roles"]),
         m["other_template"], ", ".join(f"t{t} ({n})" for t, n in m["other_templates"]),
         m["no_mention"])
        for name, misses in (lenient or rows) for slot, m in misses.items()]), end="")
    print_unreached(entries)


def print_unreached(entries: dict[str, dict[str, Any]]) -> None:
    """What the gold entities no mention matches are (``aesi_lib.evaluate.reach``), by gold
    slot, under the first lenient entry (the same under every mapping of one matcher)."""
    from aesi_lib.evaluate.reach import MISSED_KINDS

    found = [(name, e["unreached"]) for name, e in entries.items() if "unreached" in e]
    if not found:
        return
    name, unreached = next(((n, u) for n, u in found if n.endswith("/lenient")), found[0])
    kinds = [k for k in MISSED_KINDS if any(k in counts for counts in unreached.values())]
    if not kinds:
        return
    print(f"gold entities no mention reaches, by what they are ({name.split('/')[-1]}):")
    print(markdown_table(("kind", *unreached), [
        (kind, *(counts.get(kind, 0) for counts in unreached.values())) for kind in kinds]),
        end="")


def print_documents(summary: dict[str, Any], limit: int = 10) -> None:
    """Each document's incidents in brief (``aesi_lib.run.outputs.event_summary``)."""
    for doc_id, incidents in list(summary.items())[:limit]:
        if not incidents:
            print(f"  {doc_id}: no event")
        for incident in incidents:
            roles = "; ".join(f"slot {s}: {', '.join(texts)}"
                              for s, texts in incident["roles"].items())
            print(f"  {doc_id}: {incident['template_name']} ({incident['trigger']}, template "
                  f"{incident['template']}, confidence {incident['confidence']:.2f})"
                  + (f": {roles}" if roles else ""))
    if len(summary) > limit:
        print(f"  ... and {len(summary) - limit} more documents")


def print_annotation_scores(scores: dict[str, Any]) -> None:
    """The figures of ``aesi evaluate --annotations`` (``aesi_lib.evaluate.annotations``): one
    row per system and mapping, then each role's F1 and recall ceiling, then what no mention
    reaches."""
    from aesi_lib.evaluate.reach import MISSED_KINDS

    systems = [k for k in scores if "/" in k]
    first = scores[systems[0]]
    averaged = first["roles_averaged"]
    print(f"{scores['documents']} annotated documents, {scores['gold_arguments']} gold "
          f"arguments; roles mapped on one half of the documents and scored on the other, "
          f"both ways; macro over {len(averaged)} roles")
    print(markdown_table(("cells", "mapping", "micro P", "micro R", "micro F1", "macro F1"), [
        (name.split("/")[0], name.split("/")[1], f"{s['micro']['p']:.3f}",
         f"{s['micro']['r']:.3f}", f"{s['micro']['f1']:.3f}", f"{s['macro_f1']:.3f}")
        for name, s in ((n, scores[n]) for n in systems)]), end="")
    roles = sorted(first["roles"], key=lambda r: -first["roles"][r]["r_den"])
    print(markdown_table(
        ("role", "gold", "recall ceiling", *(f"{n} F1" for n in systems)),
        [(role, first["roles"][role]["r_den"], f"{scores['ceiling'][role]:.2f}",
          *(f"{scores[n]['roles'][role]['f1']:.3f}" for n in systems)) for role in roles]),
        end="")
    missed = scores.get("missed") or []
    if missed:
        top = roles[:5]
        kinds = [k for k in MISSED_KINDS if any(m["kind"] == k for m in missed)]
        total = sum(m["entities"] for m in missed)
        print(f"gold entities no mention reaches ({total}), by what they are:")
        print(markdown_table(("kind", "all roles", *top), [
            (kind, sum(m["entities"] for m in missed if m["kind"] == kind),
             *(sum(m["entities"] for m in missed if m["kind"] == kind and m["role"] == r)
               for r in top)) for kind in kinds]), end="")
