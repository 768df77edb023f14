"""Editorial insertions: the bracketed notes a transcriber or an editor put into a text.

News transcripts (the FBIS texts of MUC-4 among them) carry notes in square brackets in the
middle of sentences: what the transcriber could not hear (``[words indistinct]``,
``[passage omitted]``), who speaks (``[reporter]``, ``[Cristiani]``), and what a name or a
date stands for (``the Farabundo Marti National Liberation Front [FMLN] attacked``,
``last Friday [17 November]``). They are not part of the sentence, and a parser that reads
them as words tags their contents ``X`` and breaks the tree around them: in the example the
subject *members* is lost and *front* becomes a clause. The parsers therefore see each
bracket group as blanks of the same length, so offsets and token texts still refer to the
document (the mention spans keep the user's text), and the sentence reads as it would
without the note.

A bracket that stands in for words of a quotation (``"[the mayor] must resign"``) is blanked
too, and its words are then no argument. In the MUC-4 transcripts such brackets are rare:
13 of the 4,134 groups begin with an article or a pronoun, most of them glosses (*[a caudillo
who was assassinated in 1835]*), few stand-ins (*[the FMLN commanders]*).
"""

from __future__ import annotations

import re

#: Bump when the blanking changes: it is part of the parsers' config ids, so a store parsed
#: under another rule parses its documents again.
INSERTIONS_VERSION = 1

# One bracket group inside a line: no nested brackets, no line break.
_INSERTION_RE = re.compile(r"\[[^\[\]\n]*\]")


def blank_insertions(text: str) -> str:
    """``text`` with every bracket group (``[`` to the next ``]`` on the same line, nothing
    nested) replaced by as many spaces; the length is kept.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        Of the same length as ``text``; a bracket without its partner stays.
    """
    return _INSERTION_RE.sub(lambda match: " " * len(match.group(0)), text)
