"""Schema report (aesi_lib.report): role summaries, examples, mapping section, HTML, run
loading."""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from aesi_lib.corpus.types import KeyFiller, KeyTemplate
from aesi_lib.errors import InputError
from aesi_lib.evaluate import ASSIGNMENT_COLUMNS
from aesi_lib.report import (
    Fold,
    Heading,
    Plot,
    Table,
    build_report,
    load_run,
    mapping_rows,
    objective_series,
    pick_examples,
    plot_objective,
    prepare_assignments,
    render_html,
    render_markdown,
    report_blocks,
    run_meta,
    schema_bars,
    schema_figure,
    scores_from_results,
    summarise_roles,
    summarise_templates,
    write_schema_report,
)
from aesi_lib.run.outputs import schema_summary
from aesi_lib.run.roles import ROLE_SHARE, template_roles

# --- helpers -------------------------------------------------------------------------------

SLOT_NO = {"Perpetrator": 10, "Victim": 19, "Target": 12, "Instrument": 6}


def key(mid: str, typ: str = "ATTACK", **slots: list[str]) -> KeyTemplate:
    """A key template; ``Perpetrator=["FMLN"]`` etc., ``/`` separates alternatives."""
    fill = {
        SLOT_NO[name]: tuple(
            KeyFiller(tuple(a.strip() for a in x.split(" / ")), False, x) for x in lines
        )
        for name, lines in slots.items()
    }
    return KeyTemplate(mid, "1", False, False, tuple(typ.split(" / ")), fill)


def irrelevant(mid: str) -> KeyTemplate:
    return KeyTemplate(mid, "*", False, True, ("*",), {})


def frame(rows: list[tuple]) -> pd.DataFrame:
    """Export rows from (doc_id, head, mention, predicate, dep, template, slot)."""
    return pd.DataFrame(
        [
            {
                "doc_id": d,
                "sent_id": i % 3,
                "entity_id": i,
                "head": h,
                "mention": m,
                "predicate": p,
                "dep": dep,
                "template": t,
                "slot": s,
            }
            for i, (d, h, m, p, dep, t, s) in enumerate(rows)
        ],
        columns=list(ASSIGNMENT_COLUMNS),
    )


# Learned template 1 is the attack schema (slot 0 perpetrators, 1 victims, 2 targets);
# template 0 is noise that matches no gold entity. D3 has no relevant incident.
ROWS = [
    ("D1", "FMLN", "THE FMLN", "attack", "nsubj", 1, 0),
    ("D1", "PRIEST", "A JESUIT PRIEST", "kill", "dobj", 1, 1),
    ("D1", "EMBASSY", "THE U.S. EMBASSY", "bomb", "dobj", 1, 2),
    ("D1", "WEATHER", "THE WEATHER", "be", "nsubj", 0, 0),
    ("D1", "MEETING", "A MEETING", "hold", "dobj", 0, 1),
    ("D2", "GUERRILLAS", "URBAN GUERRILLAS", "attack", "nsubj", 1, 0),
    ("D2", "MAYOR", "THE MAYOR", "kill", "dobj", 1, 1),
    ("D2", "DAY", "THAT DAY", "say", "prep_on", 0, 0),
    ("D2", "MINISTER", "THE MINISTER", "say", "nsubj", 0, 2),
    ("D3", "LEADER", "THE LEADER", "attack", "nsubj", 1, 0),
    ("D3", "RAIN", "<script>alert('x')</script> RAIN & | CO", "fall", "nsubj", 0, 1),
]

KEYS = [
    key("D1", Perpetrator=["FMLN"], Victim=["JESUIT PRIEST"], Target=["U.S. EMBASSY"]),
    key("D2", Perpetrator=["URBAN GUERRILLAS"], Victim=["MAYOR"]),
    irrelevant("D3"),
]


@pytest.fixture
def assignments() -> pd.DataFrame:
    return frame(ROWS)


# --- summaries -----------------------------------------------------------------------------


def test_role_summary_counts(assignments: pd.DataFrame) -> None:
    roles = summarise_roles(prepare_assignments(assignments), top_n=2)
    assert len(roles) == 2 * 3  # full grid: templates 0-1, slots 0-2
    by_role = roles.set_index(["template", "slot"])
    assert by_role.loc[(1, 0), "size"] == 3
    assert by_role.loc[(1, 0), "n_docs"] == 3
    assert by_role.loc[(1, 2), "size"] == 1
    assert by_role.loc[(0, 1), "size"] == 2
    assert by_role["size"].sum() == len(ROWS)
    # attack (3) first; only top_n=2 kept, ties broken alphabetically.
    assert by_role.loc[(1, 0), "top_predicates"] == [("attack", 3)]
    assert by_role.loc[(1, 1), "top_heads"] == [("mayor", 1), ("priest", 1)]
    assert by_role.loc[(0, 0), "top_deps"] == [("nsubj", 1), ("prep_on", 1)]
    assert by_role.loc[(1, 0), "share_of_template"] == pytest.approx(3 / 6)


def test_role_grid_includes_configured_empty_roles(assignments: pd.DataFrame) -> None:
    prepared = prepare_assignments(assignments)
    roles = summarise_roles(prepared, shape=(3, 4))
    assert len(roles) == 12
    assert roles.loc[(roles["template"] == 2), "size"].sum() == 0
    totals = summarise_templates(prepared, roles).set_index("template")
    assert totals.loc[1, "size"] == 6 and totals.loc[1, "n_slots_used"] == 3
    assert totals.loc[2, "size"] == 0 and totals.loc[2, "n_docs"] == 0


def test_prepare_rejects_bad_roles() -> None:
    bad = frame(ROWS).assign(template=["x"] + [0] * (len(ROWS) - 1))
    with pytest.raises(InputError, match="template"):
        prepare_assignments(bad)


# --- examples ------------------------------------------------------------------------------


def _big_frame() -> pd.DataFrame:
    rows = [(f"D{i % 7}", f"H{i}", f"MENTION {i}", "p", "nsubj", i % 2, i % 3) for i in range(300)]
    return frame(rows)


def test_examples_deterministic_and_members() -> None:
    df = _big_frame()
    prepared = prepare_assignments(df)
    a = pick_examples(prepared, n_examples=5, seed=3)
    b = pick_examples(prepared, n_examples=5, seed=3)
    pd.testing.assert_frame_equal(a, b)
    # The draw does not depend on the row order of the input.
    shuffled = prepare_assignments(df.sample(frac=1.0, random_state=11))
    pd.testing.assert_frame_equal(a, pick_examples(shuffled, n_examples=5, seed=3))
    assert len(a) == 6 * 5
    members = set(zip(df["template"], df["slot"], df["entity_id"], strict=True))
    assert all(
        (t, s, e) in members
        for t, s, e in zip(a["template"], a["slot"], a["entity_id"], strict=True)
    )
    # Drawn without replacement, and another seed draws other members.
    assert not a.duplicated(["template", "slot", "entity_id"]).any()
    c = pick_examples(prepared, n_examples=5, seed=4)
    assert set(c["entity_id"]) != set(a["entity_id"])


def test_examples_have_distinct_heads() -> None:
    rows = [("D1", "people" if i % 4 else f"H{i}", f"M{i}", "p", "nsubj", 0, 0)
            for i in range(40)]
    ex = pick_examples(prepare_assignments(frame(rows)), n_examples=5, seed=1)
    assert len(ex) == 5 and ex["head"].str.lower().is_unique
    assert "people" in set(ex["head"])


def test_run_facts_name_what_applies_and_the_cached_run_time() -> None:
    results = {"config": {"model": {"n_templates": 20, "n_slots": 24, "mode": "sc",
                                    "constraint_weight": 0.3, "init": "sc"}},
               "solve": {"converged": True, "n_iter": 0, "timings": {"total": 3.04}},
               "timings": {"total": 1.7},
               "steps": {"entity-table": {"state": "Cached"}, "solve": {"state": "Cached"},
                         "export": {"state": "Completed"}}}
    meta = run_meta(results)
    assert "constraint_weight" not in meta["Model"] and "init" not in meta["Model"]
    assert meta["Solver"] == "3.0 s when it was computed"
    assert meta["Run time"] == "1.7 s for this run (2 of 3 steps from the cache)"
    scaled = {"config": {"model": {"mode": "scaled", "constraint_weight": 0.1, "init": "sc"}}}
    assert run_meta(scaled)["Model"] == "mode=scaled, constraint_weight=0.1, init=sc"


def test_examples_small_role_gives_all(assignments: pd.DataFrame) -> None:
    ex = pick_examples(prepare_assignments(assignments), n_examples=5, seed=0)
    sel = ex[(ex["template"] == 1) & (ex["slot"] == 0)]
    assert sorted(sel["head"]) == ["FMLN", "GUERRILLAS", "LEADER"]
    assert list(sel["rank"]) == [0, 1, 2]


# --- mapping and scores --------------------------------------------------------------------


def test_mapping_rows_name_the_attack_template(assignments: pd.DataFrame) -> None:
    rows = mapping_rows(assignments, KEYS, [(1, 0, "Perpetrator"), (1, 1, "Victim")], "test")
    attack = rows[rows["type"] == "ATTACK"].set_index("gold_slot")
    assert set(attack["template"]) == {1}
    assert attack.loc["Perpetrator", "slot"] == 0 and attack.loc["Victim", "slot"] == 1
    assert attack.loc["Target", "slot"] == 2
    assert bool(attack.loc["Perpetrator", "kept"]) and not bool(attack.loc["Target", "kept"])


def test_mapping_section_names_learned_template(tmp_path: Path, assignments: pd.DataFrame) -> None:
    paths = write_schema_report(assignments, tmp_path, eval_keys=KEYS, map_keys=KEYS, seed=1)
    md = Path(paths["markdown"]).read_text(encoding="utf-8")
    assert "Attack template ← learned template 1" in md
    assert "Perpetrator ← slot 0" in md and "Victim ← slot 1" in md
    assert "Attack template ← learned template 0" not in md
    # Scores computed from the keys: both mappings × both matchers, recall ceiling, FP share.
    for mode in ("test-mapped", "dev-mapped"):
        for matcher in ("lenient", "strict"):
            assert f"| {mode} | {matcher} |" in md
    assert "Recall ceiling" in md
    # The only false positive (LEADER) comes from the irrelevant message D3.
    report = build_report(assignments, eval_keys=KEYS)
    row = report.scores.scores.iloc[0]
    assert (row["mode"], row["matcher"], row["fp"], row["fp_share"]) == (
        "test-mapped",
        "lenient",
        1,
        1.0,
    )
    # Without D3's guess the F1 is perfect; the mapped template holds every gold entity.
    assert (row["relevance_oracle_f1"], row["template_recall_ceiling"]) == (1.0, 1.0)
    assert "| 100.0% | 1.000 | 1.000 |" in md and "R bound, templates:" in md
    # The mapped template and its mapped roles are highlighted in the tables; the schema
    # table names the template by its predicates.
    assert "| **1: attack/kill/bomb** ★ | 6 (54.5%) |" in md and "| **0** ★ | 3 |" in md


def test_mapping_section_shows_how_close_each_type_s_choice_was(
        tmp_path: Path, assignments: pd.DataFrame) -> None:
    report = build_report(assignments, eval_keys=KEYS)
    choices = report.scores.choices
    # Only ATTACK has gold entities; template 1 holds them all, template 0 none.
    assert choices[["mode", "type", "template", "runner_up"]].values.tolist() == [
        ["test-mapped", "ATTACK", 1, 0]]
    assert choices["margin"].iloc[0] == pytest.approx(choices["best_sum"].iloc[0])
    md = render_markdown(report_blocks(report))
    assert "| Attack | 1 |" in md and "Close choice:" not in md
    # Two templates that each hold one of two perpetrators tie: the report says so.
    tied = frame([("D1", "FMLN", "THE FMLN", "attack", "nsubj", 1, 0),
                  ("D2", "GUERRILLAS", "URBAN GUERRILLAS", "attack", "nsubj", 2, 0)])
    report = build_report(tied, eval_keys=KEYS)
    assert report.scores.choices[["template", "runner_up", "margin"]].values.tolist() == [
        [1, 2, 0.0]]
    md = render_markdown(report_blocks(report))
    assert "Close choice:** Attack: the runner-up template" in md


def test_the_sweep_records_the_closest_choice_of_the_report(assignments: pd.DataFrame) -> None:
    from aesi_lib.run.experiments import MARGIN_COLUMN, score_row

    margins = build_report(assignments, eval_keys=KEYS).scores.choices["margin"]
    assert score_row(assignments, KEYS, None)[MARGIN_COLUMN] == pytest.approx(margins.min())
    assert margins.min() > 0.5
    tied = frame([("D1", "FMLN", "THE FMLN", "attack", "nsubj", 1, 0),
                  ("D2", "GUERRILLAS", "URBAN GUERRILLAS", "attack", "nsubj", 2, 0)])
    assert score_row(tied, KEYS, None)[MARGIN_COLUMN] == 0.0


def test_html_folds_every_template_and_its_examples(tmp_path: Path,
                                                   assignments: pd.DataFrame) -> None:
    paths = write_schema_report(assignments, tmp_path, eval_keys=KEYS, map_keys=KEYS, seed=1)
    page = Path(paths["html"]).read_text(encoding="utf-8")
    folds = re.findall(r"<details( open)?><summary>(.*?)</summary>", page)
    templates = {summary: bool(is_open) for is_open, summary in folds if "Template" in summary}
    # Named by their predicates, largest first, mapped or not folded: open, the three mapped
    # templates of a MUC-4 run were three screens, and their mapped roles are in the cards.
    assert [re.sub(r" — .*", "", s) for s in templates] == [
        "<h3>Template 1: attack/kill/bomb", "<h3>Template 0: say/be/fall"]
    assert not any(templates.values())
    assert [s for s in templates if "mapped as Attack (test)" in s] == [list(templates)[0]]
    # Each template's examples are folded.
    assert [is_open for is_open, summary in folds if summary == "Examples"] == [""] * len(templates)
    # Markdown does not fold: the heading and both tables are there.
    md = Path(paths["markdown"]).read_text(encoding="utf-8")
    assert "### Template 0: say/be/fall — 5 mentions" in md
    assert md.count("**Examples** random") == len(templates)


def test_scores_from_stored_results(assignments: pd.DataFrame) -> None:
    results = {
        "scores": {
            "test-mapped/strict": _stored(0.5),
            "test-mapped/lenient": _stored(0.6),
            "recall_ceiling/lenient": 0.9,
        }
    }
    st = scores_from_results(results)
    assert st is not None
    assert list(st.scores["matcher"]) == ["lenient", "strict"]
    assert st.ceilings == {"lenient": 0.9}
    lenient = st.scores.iloc[0]
    assert (lenient["fp_share"], lenient["template_recall_ceiling"]) == (0.25, 0.7)
    assert lenient["relevance_oracle_f1"] == pytest.approx(0.6 + 0.1)
    assert set(st.per_slot["gold_slot"]) == {"Perpetrator"}
    assert list(st.mapping[["template", "slot", "gold_slot"]].itertuples(index=False)) == [
        (1, 0, "Perpetrator")
    ]
    md = render_markdown(report_blocks(build_report(assignments, results=results)))
    assert "Perpetrator ← role (1, 0)" in md
    # Stored scores carry no choices; with keys the report computes them beside the mapping.
    assert st.choices.empty
    with_keys = build_report(assignments, results=results, eval_keys=KEYS)
    assert with_keys.scores.choices[["mode", "type", "template"]].values.tolist() == [
        ["test-mapped", "ATTACK", 1]]
    assert scores_from_results({"scores": "nonsense"}) is None
    assert scores_from_results(None) is None


def test_per_slot_rows_say_where_the_missed_entities_are(assignments: pd.DataFrame) -> None:
    stored = _stored(0.6)
    stored["misses"] = {"Perpetrator": {
        "found": 1, "other_slot": 1, "other_template": 0, "no_mention": 0,
        "other_slot_roles": [[1, 2, 1]], "other_templates": []}}
    results = {"scores": {"test-mapped/lenient": stored, "test-mapped/strict": _stored(0.5)}}
    st = scores_from_results(results)
    assert st is not None
    lenient, strict = (st.per_slot.iloc[i] for i in (0, 1))
    assert (lenient["missed_other_slot"], lenient["missed_no_mention"]) == (1, 0)
    assert lenient["most_in_other_slots"] == "template 1 slot 2 (1)"
    # Results stored before the breakdown: no columns to fill, and the report shows a dash.
    assert pd.isna(strict["missed_other_slot"])
    md = render_markdown(report_blocks(build_report(assignments, results=results)))
    assert "| test-mapped | lenient | Perpetrator | 0.600 | 0.600 | 0.600 | 1 | 1 | 1 | 1 | " \
        "template 1 slot 2 (1) | 0 | 0 |" in md
    assert "| test-mapped | strict | Perpetrator | 0.500 | 0.500 | 0.500 | 1 | 1 | 1 | — |  | — " \
        "| — |" in md
    # Computed from the keys, the breakdown adds up to each slot's TP and FN.
    computed = build_report(assignments, eval_keys=KEYS).scores.per_slot
    fn = computed[["missed_other_slot", "missed_other_template", "missed_no_mention"]].sum(axis=1)
    assert (fn == computed["fn"]).all()


def _stored(f1: float) -> dict:
    per = {"precision": f1, "recall": f1, "f1": f1, "tp": 1, "fp": 1, "fn": 1}
    return {
        **per,
        "per_slot": {"Perpetrator": per},
        "mapping": [{"template": 1, "slot": 0, "gold_slot": "Perpetrator"}],
        "fp_share_irrelevant": 0.25,
        "template_recall_ceiling": 0.7,
        "relevance_oracle": {**per, "f1": f1 + 0.1},
    }


# --- solver history ------------------------------------------------------------------------


def test_objective_series_and_plot() -> None:
    assert objective_series([]).empty and plot_objective(objective_series([])) is None
    assert objective_series(None).empty
    single = objective_series([{"iteration": 0, "eps1": 0.2, "seconds": 3.0, "init": "sc"}])
    assert list(single.columns) == ["eps1"]
    assert plot_objective(single) is None          # one solve, no iterations: a table only
    hist = [
        {"iteration": 0, "eps1": 0.2, "eps2": 0.4, "objective": 1e14, "flag": True},
        {"iteration": 1, "eps1": 0.1, "eps2": 0.3, "objective": 2e14, "delta": 0.5},
    ]
    series = objective_series(hist)
    assert list(series.columns) == ["objective", "eps1", "eps2", "delta"]  # bools dropped
    assert list(series.index) == [0, 1]


# --- HTML ----------------------------------------------------------------------------------


def test_html_self_contained_and_escaped(tmp_path: Path, assignments: pd.DataFrame) -> None:
    results = {"solve": {"history": [{"iteration": 0, "objective": 1.0},
                                     {"iteration": 1, "objective": 1.5}]}}
    paths = write_schema_report(assignments, tmp_path, results=results, eval_keys=KEYS)
    page = Path(paths["html"]).read_text(encoding="utf-8")
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 3  # cluster sizes, F1 per slot, objective
    assert all(base64.b64decode(i)[:4] == b"\x89PNG" for i in images)
    assert "http://" not in page and "https://" not in page
    assert "<link" not in page and "<script" not in page
    assert "&lt;script&gt;" in page
    md = Path(paths["markdown"]).read_text(encoding="utf-8")
    assert "<script>" not in md and "RAIN &amp; \\| CO" in md
    assert set(paths) == {"markdown", "html"}


def test_render_html_escapes_text() -> None:
    report = build_report(frame([("D<1>", "A&B", "<i>x</i>", "p", "d", 0, 0)]))
    page = render_html(report_blocks(report), {})
    assert "<i>x</i>" not in page and "&lt;i&gt;x&lt;/i&gt;" in page
    assert "D&lt;1&gt;" in page


# --- load_run ------------------------------------------------------------------------------


def test_load_run_roundtrip(tmp_path: Path, assignments: pd.DataFrame) -> None:
    assignments.to_csv(tmp_path / "assignments.csv", index=False)
    (tmp_path / "results.json").write_text(json.dumps({"seed": 3}), encoding="utf-8")
    df, results = load_run(tmp_path)
    assert len(df) == len(ROWS) and results == {"seed": 3}
    assert list(df["head"])[:2] == ["FMLN", "PRIEST"]


@pytest.mark.parametrize(
    ("files", "named"),
    [
        ({}, "assignments.csv"),
        ({"assignments.csv": None}, "results.json"),
        ({"assignments.csv": None, "results.json": "{not json"}, "results.json"),
        ({"assignments.csv": None, "results.json": "[1, 2]"}, "results.json"),
        ({"assignments.parquet": "garbage", "results.json": "{}"}, "assignments.parquet"),
        ({"assignments.csv": "doc_id,head\nD1,X\n", "results.json": "{}"}, "assignments.csv"),
        ({"assignments.csv": b"\xff\xfe\x00bin", "results.json": "{}"}, "assignments.csv"),
    ],
)
def test_load_run_errors_name_the_file(
    tmp_path: Path, assignments: pd.DataFrame, files: dict, named: str
) -> None:
    for name, content in files.items():
        path = tmp_path / name
        if content is None:
            assignments.to_csv(path, index=False)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_run(tmp_path)
    assert Path(info.value.path).name == named


def test_load_run_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_run(tmp_path / "nope")
    assert info.value.path.endswith("nope")


# --- the schema first ----------------------------------------------------------------------


def _wide_frame() -> pd.DataFrame:
    """Template 0: six roles of 8 down to 3 mentions and one minor slot (1 of 34 mentions,
    2.9 %); template 1: one role of two mentions."""
    rows = [(f"D{i % 4}", f"H{s}{i}", f"M{s}{i}", f"p{s}", "nsubj", 0, s)
            for s, n in enumerate((8, 7, 6, 5, 4, 3)) for i in range(n)]
    rows.append(("D0", "RARE", "RARE", "p9", "dobj", 0, 9))
    rows += [("D1", "X", "X", "q", "nsubj", 1, 0), ("D2", "Y", "Y", "q", "nsubj", 1, 0)]
    return frame(rows)


def _schema_part(blocks: list) -> list:
    """The blocks before the scores: what the first screen shows."""
    end = next(i for i, b in enumerate(blocks) if isinstance(b, Heading) and b.text == "Scores")
    return blocks[:end]


def test_the_first_blocks_are_the_schema_of_schema_json(assignments: pd.DataFrame) -> None:
    blocks = report_blocks(build_report(assignments, eval_keys=KEYS))
    head = _schema_part(blocks)
    assert isinstance(head[0], Heading) and head[0].level == 1
    assert [b.name for b in head if isinstance(b, Plot)] == ["schema"]
    assert not any(isinstance(b, Fold) for b in head)  # nothing folded on the first screen
    (table,) = [b for b in head if isinstance(b, Table)]
    # The templates of schema.json, in its order (largest first), named as it names them, each
    # with its size and every role with its share and description (up to four are shown).
    schema = schema_summary(assignments)
    assert [row[0] for row in table.rows] == [
        f"{t['template']}: {t['name']}" for t in schema["templates"]] == [
        "1: attack/kill/bomb", "0: say/be/fall"]
    for row, t in zip(table.rows, schema["templates"], strict=True):
        assert row[1].startswith(f"{t['mentions']:,} (")
        assert row[3].split("\n") == [f"{r['share']:.1%} {r['role']}" for r in t["roles"]]
    assert table.rows[0][3].startswith("50.0% subject of attack: fmln, guerrillas, leader")
    assert table.marked == (True, False) and table.header[-1] == "mapped as"


def test_the_schema_table_shortens_long_role_lists_and_counts_minor_slots() -> None:
    assignments = _wide_frame()
    roles = template_roles(assignments)
    assert [(r.slot, r.minor) for r in roles if r.template == 0][-1] == (9, True)
    assert 1 / 34 < ROLE_SHARE
    assert [(t, [r.slot for r in major], minor) for t, major, minor in schema_bars(roles)] == [
        (0, [0, 1, 2, 3, 4, 5], 1), (1, [0], 0)]
    report = build_report(assignments)
    (table,) = [b for b in _schema_part(report_blocks(report)) if isinstance(b, Table)]
    big = table.rows[0]
    assert big[:3] == ("0: p0/p1/p2", "34 (94.4%)", "6 + 1 minor (2.9%)")
    assert big[3].split("\n") == [
        "23.5% subject of p0: h00, h01, h02", "20.6% subject of p1: h10, h11, h12",
        "17.6% subject of p2: h20, h21, h22", "… 3 more, under Template 0 below"]
    # The template's own section has every role and, folded, the minor slot.
    md = render_markdown(report_blocks(report))
    assert "### Template 0: p0/p1/p2 — 34 mentions in 4 documents, 6 roles" in md
    assert "**Minor slots:** 1 slot below 3% of the template's mentions each, 2.9% of the " \
        "mentions:" in md
    assert "| 9 | 1 | 2.9% | 1 | object of p9: rare |" in md
    assert "| 5 | 3 | 8.8% | 3 | subject of p5: h50, h51, h52 |" in md


class _Tables(HTMLParser):
    """Each table of a page: its body rows and whether a closed <details> hides it."""

    def __init__(self) -> None:
        super().__init__()
        self.folds: list[bool] = []  # open or not, of each enclosing <details>
        self.tables: list[list] = []  # [rows, folded]
        self.in_body = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "details":
            self.folds.append("open" in dict(attrs))
        elif tag == "table":
            self.tables.append([0, not all(self.folds)])
        elif tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.tables[-1][0] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "details":
            self.folds.pop()
        elif tag == "tbody":
            self.in_body = False


def test_long_tables_are_folded_and_the_schema_comes_first(tmp_path: Path,
                                                          assignments: pd.DataFrame) -> None:
    paths = write_schema_report(assignments, tmp_path, eval_keys=KEYS, map_keys=KEYS, seed=1)
    page = Path(paths["html"]).read_text(encoding="utf-8")
    parser = _Tables()
    parser.feed(page)
    shown = [rows for rows, folded in parser.tables if not folded]
    # Shown: the schema (a row per template), the scores (a row per mapping × matcher) and
    # each mapping's choice of templates (a row per type); all else is folded.
    assert shown == [2, 4, 1, 1]
    folded = sorted(rows for rows, folded in parser.tables if folded)
    assert 16 in folded  # per gold slot: 2 mappings × 2 matchers × 4 slots
    assert page.index("1: attack/kill/bomb") < page.index("<h2>Scores</h2>")
    assert page.index('alt="Each bar a template') < page.index("<h2>Scores</h2>")


KEYLESS_RESULTS = {"corpus": "user", "evaluated_on": "", "documents": 3, "seed": 0,
                   "corpus_spec": {"docs_path": "/data/my-docs", "demo": False}}


def test_a_folder_without_keys_shows_no_empty_lines_or_columns(
        tmp_path: Path, assignments: pd.DataFrame) -> None:
    paths = write_schema_report(assignments, tmp_path, results=KEYLESS_RESULTS)
    md = Path(paths["markdown"]).read_text(encoding="utf-8")
    page = Path(paths["html"]).read_text(encoding="utf-8")
    for text in (md, page):
        assert "Evaluated on" not in text
        assert "mapped as" not in text and "mapped to" not in text
    assert "**Run:** corpus user (/data/my-docs), seed 0, no answer keys, so no scores;" in md
    assert "- **Corpus**: user (/data/my-docs)" in md
    assert "| template | mentions | roles | largest roles: share of the template, position of " \
        "predicates: heads |\n" in md
    assert "### Template 1: attack/kill/bomb — 6 mentions in 3 documents, 3 roles\n" in md
    assert "<h3>Template 0: say/be/fall — 5 mentions in 3 documents, 3 roles</h3>" in page
    # Every table row has as many cells as its header: no column is left empty.
    for table in re.findall(r"<table>.*?</table>", page, flags=re.S):
        header = len(re.findall(r"<th>", table))
        assert all(row.count("<td>") == header
                   for row in re.findall(r"<tr>(.*?)</tr>", table) if "<td>" in row)
        assert "<td></td>" not in table


def test_run_facts_leave_out_what_is_empty() -> None:
    meta = run_meta(KEYLESS_RESULTS)
    assert "Evaluated on" not in meta
    assert meta["Corpus"] == "user (/data/my-docs)" and meta["Documents"] == "3"
    assert run_meta({"corpus": "muc4", "evaluated_on": "TST1+TST2"})["Evaluated on"] == \
        "TST1+TST2"


def test_schema_figure_names_templates_and_has_no_legend() -> None:
    rows = [("D1", "PEOPLE", "PEOPLE", "say", "nsubj", 0, 0)] * 60
    rows += [("D1", "EXTRAORDINARILYLONGHEADWORD", "X", "say", "dobj", 0, 1)] * 2
    rows += [("D2", "FMLN", "FMLN", "attack", "nsubj", 1, 0)] * 5
    roles = template_roles(frame(rows))
    fig = schema_figure(roles, {0: "say", 1: "attack"})
    (ax,) = fig.axes
    assert ax.get_legend() is None
    assert [t.get_text() for t in ax.get_yticklabels()] == ["T0 say", "T1 attack"]
    # Segment labels are kept only where they fit inside their segment: the long head word of
    # two mentions beside sixty is dropped, the others stay.
    from matplotlib.text import Annotation

    labels = [t for t in ax.texts if not isinstance(t, Annotation)]
    assert sorted(t.get_text() for t in labels) == ["fmln", "people"]
    renderer = fig.canvas.get_renderer()
    for text in labels:
        x, y = text.get_position()
        (bar,) = [p for p in ax.patches if p.get_x() <= x <= p.get_x() + p.get_width()
                  and p.get_y() <= y <= p.get_y() + p.get_height()]
        assert text.get_window_extent(renderer).width < bar.get_window_extent(renderer).width
    assert schema_figure([], {}) is None


def test_table_cells_keep_their_lines_escaped() -> None:
    table = Table(("a",), (("one <b>\ntwo | 3",),))
    assert "<td>one &lt;b&gt;<br>two | 3</td>" in render_html([table], {})
    assert "| one &lt;b&gt;<br>two \\| 3 |" in render_markdown([table])


def test_an_empty_export_gives_a_report_without_schema(tmp_path: Path) -> None:
    paths = write_schema_report(frame([]), tmp_path)
    md = Path(paths["markdown"]).read_text(encoding="utf-8")
    assert "## Schema: 0 templates over 0 mentions in 0 documents" in md
    assert "No mention in the export: no schema." in md


def test_configured_empty_slots_and_templates_are_named(assignments: pd.DataFrame) -> None:
    results = {"config": {"model": {"n_templates": 3, "n_slots": 5}}}
    md = render_markdown(report_blocks(build_report(assignments, results=results)))
    assert "**Templates without a mention:** 2." in md
    assert md.count("**Slots without a mention:** 3, 4.") == 2
    page = render_html(report_blocks(build_report(assignments, results=results)), {})
    assert page.count("<summary>Minor slots: 0; empty slots: 2</summary>") == 2


def test_the_first_screen_shows_the_kinds_and_the_events_of_a_few_documents(
        tmp_path: Path, assignments: pd.DataFrame) -> None:
    events = pd.DataFrame([
        {"doc_id": "D2", "incident": 0, "template": 1, "template_name": "attack/kill/bomb",
         "trigger": "kill", "confidence": 0.8, "slot": 0, "role": "subject of kill: fmln",
         "entity": 0, "entity_text": "FMLN"},
        {"doc_id": "D2", "incident": 0, "template": 1, "template_name": "attack/kill/bomb",
         "trigger": "kill", "confidence": 0.8, "slot": 0, "role": "subject of kill: fmln",
         "entity": 0, "entity_text": "FMLN"},
        {"doc_id": "D1", "incident": 0, "template": 1, "template_name": "attack/kill/bomb",
         "trigger": "attack", "confidence": 0.3, "slot": 1, "role": "",
         "entity": 3, "entity_text": "embassy"}])
    paths = write_schema_report(assignments, tmp_path, results=KEYLESS_RESULTS, events=events,
                                kinds={0: "discourse", 1: "event"})
    md = Path(paths["markdown"]).read_text(encoding="utf-8")
    assert md.index("## Schema") < md.index("## Events") < md.index("## Scores")
    assert "| template | kind | mentions | roles |" in md
    assert "2 incidents in 2 of 3 documents." in md
    # The most confident document first; an entity once, however many its mentions.
    assert md.index("D2: attack/kill/bomb (kill), confidence 0.80") \
        < md.index("D1: attack/kill/bomb (attack), confidence 0.30")
    assert "FMLN (subject of kill: fmln)" in md and "FMLN, FMLN" not in md
    assert "embassy" in md
