"""Records produced by the corpus readers."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Document:
    """One message or document.

    ``doc_id`` is the message ID (for MUC-4 the first token of the ID line, e.g.
    ``TST1-MUC3-0001``); ``text`` is the body that gets parsed (for MUC-4: without the ID line,
    dateline and bracketed header, paragraphs kept, separated by blank lines); ``header`` holds
    what was separated from the body; ``split`` names the split (``dev``, ``tst1`` ... ``tst4``
    for MUC-4, ``demo`` for the embedded corpus, a user-chosen name otherwise); ``source`` is the
    path of the file it came from; ``original`` is the text as the user gave it when the reader
    changed its layout (``""``: the same as ``text``), the text that exported character offsets
    index (``aesi_lib.corpus.offsets``).
    """

    doc_id: str
    text: str
    split: str
    source: str
    header: str = ""
    original: str = ""


@dataclass(frozen=True)
class KeyFiller:
    """One filler line of an answer-key slot.

    ``alternatives`` are the strings of the filler with quotes stripped: the parts of a
    ``" / "`` alternative list, and for a colon clause ``"A": "B"`` both A and B. ``optional``
    is True when the line starts with ``?``. ``raw`` is the line's value text as in the file.
    """

    alternatives: tuple[str, ...]
    optional: bool
    raw: str


@dataclass(frozen=True)
class KeyTemplate:
    """One block of a MUC-4 answer key (25 numbered slots).

    ``message_id`` is the first token of slot 0 (site tags dropped). ``is_irrelevant`` is True for
    an all-``*`` block (the message has no relevant incident). ``optional`` is True when slot 1
    carries ``(OPTIONAL)``. ``incident_types`` lists the types of slot 4, split on ``/``
    (``("BOMBING", "ATTACK")`` for ``BOMBING / ATTACK``). ``slots`` maps a slot number (0-24) to
    its filler lines; ``-`` and ``*`` give an empty tuple.
    """

    message_id: str
    template_number: str
    optional: bool
    is_irrelevant: bool
    incident_types: tuple[str, ...]
    slots: dict[int, tuple[KeyFiller, ...]] = field(default_factory=dict)
    source: str = ""
