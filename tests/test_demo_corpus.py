"""The embedded demo corpus: shape, key quirks covered, consistency between texts and key."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from aesi_lib.corpus.demo import DEMO_KEY_FILE, DEMO_TEXT_FILE, demo_data_dir, load_demo_corpus
from aesi_lib.corpus.muc4 import Muc4Split

STRING_SLOTS = (6, 9, 10, 12, 18, 19)


@pytest.fixture(scope="module")
def demo() -> Muc4Split:
    return load_demo_corpus()


def test_forty_messages_in_order(demo: Muc4Split) -> None:
    assert demo.name == "demo"
    assert [d.doc_id for d in demo.documents] == [f"DEMO-{i:04d}" for i in range(1, 41)]
    assert {d.split for d in demo.documents} == {"demo"}


def test_messages_have_header_and_three_to_eight_sentences(demo: Muc4Split) -> None:
    for doc in demo.documents:
        assert re.search(r", \d{1,2} [A-Z]{3} 91 \([A-Z ]+\) -- .*\[(TEXT|EXCERPTS)\]$",
                         doc.header), doc.doc_id
        assert doc.text == doc.text.upper()
        sentences = re.findall(r"[.?!](?:\s|$)", doc.text)
        assert 3 <= len(sentences) <= 8, doc.doc_id


def test_key_covers_every_message(demo: Muc4Split) -> None:
    assert demo.keys is not None
    assert [k.message_id for k in demo.keys if k.template_number in ("1", "*")] == [
        d.doc_id for d in demo.documents]


def test_a_quarter_of_the_messages_are_irrelevant(demo: Muc4Split) -> None:
    irrelevant = {k.message_id for k in demo.keys if k.is_irrelevant}
    assert len(irrelevant) == 10
    assert all(not k.is_irrelevant for k in demo.keys if k.message_id not in irrelevant)


def test_key_uses_the_format_quirks(demo: Muc4Split) -> None:
    keys = demo.keys
    fillers = [f for k in keys for fs in k.slots.values() for f in fs]
    assert len(keys) == 43
    assert sum(k.optional for k in keys) >= 1
    assert sum(f.optional for f in fillers) >= 3
    assert any(" / " in f.raw for f in fillers)
    assert any(re.fullmatch(r'"[^"]+"( / "[^"]+")*: "[^"]+"', f.raw) for f in fillers)
    assert any(len(k.slots[6]) > 1 for k in keys)
    raw = (demo_data_dir() / DEMO_KEY_FILE).read_text()
    assert raw.startswith(";;;") and raw.count("\n;") >= 1


def test_incident_types_and_recurring_organisations(demo: Muc4Split) -> None:
    real = [k for k in demo.keys if not k.is_irrelevant]
    types = Counter(t for k in real for t in k.incident_types)
    assert {"ATTACK", "BOMBING", "KIDNAPPING", "ARSON"} <= set(types)
    assert min(types[t] for t in ("ATTACK", "BOMBING", "KIDNAPPING", "ARSON")) >= 4
    orgs = Counter(
        f.alternatives[0] for k in real for f in k.slots[10]
        if f.alternatives[0] != "PRV"
    )
    for org in ("PEOPLE'S REVOLUTIONARY VANGUARD", "RED JAGUAR COMMANDOS",
                "SIERRA NEGRA CARTEL", "WHITE HAND"):
        assert orgs[org] >= 4, org


def test_key_strings_occur_in_their_message(demo: Muc4Split) -> None:
    texts = {d.doc_id: f"{d.header} {d.text}".replace("\n", " ") for d in demo.documents}
    for k in demo.keys:
        for n in STRING_SLOTS:
            for f in k.slots[n]:
                for alt in f.alternatives:
                    assert alt in texts[k.message_id], (k.message_id, n, alt)


def test_data_files_are_package_data() -> None:
    folder = demo_data_dir()
    assert (folder / DEMO_TEXT_FILE).is_file() and (folder / DEMO_KEY_FILE).is_file()
    text = (folder / DEMO_TEXT_FILE).read_text()
    assert text.isascii() and "FMLN" not in text and "SALVADOR" not in text
