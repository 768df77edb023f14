"""Character offsets into the text as the user gave it.

The readers normalise a document's layout before parsing (``aesi_lib.corpus.plain``: lines of a
paragraph joined with one space, runs of blanks collapsed, paragraphs separated by one blank
line, a word broken at a line-end hyphen joined). Normalisation only removes or replaces
whitespace, so every other character of ``Document.text`` is a character of the original, in
the same order (for a MUC-4 message, after the dateline and header that the reader splits
off): :func:`offset_map` finds each one, and :func:`original_span` turns a span of the
normalised text into the span of the original that holds the same characters.
"""

from __future__ import annotations

import numpy as np


def offset_map(text: str, original: str) -> np.ndarray:
    """For each character of ``text``, the index of the same character in ``original`` (-1 for
    whitespace, which normalisation may have made up), shape (len(text),).

    ``text`` is ``original`` with its whitespace changed and, possibly, a leading part left
    out (the MUC-4 reader splits a message's dateline and bracketed header off its body): the
    characters are matched from the end.

    Raises
    ------
    ValueError
        When ``text`` is not such a copy of ``original`` (a non-whitespace character of
        ``text`` has no counterpart in order).
    """
    positions = np.full(len(text), -1, dtype=np.int64)
    j = len(original) - 1
    for i in range(len(text) - 1, -1, -1):
        char = text[i]
        if char.isspace():
            continue
        while j >= 0 and original[j] != char:
            if not original[j].isspace():
                raise ValueError(f"character {i} ({char!r}) of the text is not the previous "
                                 f"non-blank character of the original ({original[j]!r} at "
                                 f"{j})")
            j -= 1
        if j < 0:
            raise ValueError(f"character {i} ({char!r}) of the text is before the original's "
                             "start")
        positions[i] = j
        j -= 1
    return positions


def original_span(start: int, end: int, positions: np.ndarray) -> tuple[int, int]:
    """The span ``[start, end)`` of the normalised text as a span of the original: from its
    first to its last non-whitespace character; ``(-1, -1)`` for an unknown or blank span."""
    if start < 0 or end <= start or end > len(positions):
        return -1, -1
    inside = positions[start:end]
    kept = inside[inside >= 0]
    if not kept.size:
        return -1, -1
    return int(kept[0]), int(kept[-1]) + 1
