"""The neutral parse format every backend produces.

A parse is a list of sentences; a sentence a list of tokens. Token indices and heads are 0-based
within the sentence; the root's head is -1. ``dep`` keeps the backend's own label (UD or
ClearNLP); ``aesi_lib.entities`` maps both label sets onto the same entity dependencies.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    lemma: str
    upos: str
    tag: str
    head: int
    dep: str
    ent_type: str = ""
    start_char: int = -1
    whitespace_after: bool = True


@dataclass(frozen=True, slots=True)
class Sentence:
    tokens: tuple[Token, ...]


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    doc_id: str
    sentences: tuple[Sentence, ...]

    def to_conllu(self) -> str:
        """Render as CoNLL-U (1-based ids, head 0 for the root, NER type in MISC)."""
        out: list[str] = []
        for sent_id, sentence in enumerate(self.sentences):
            out.append(f"# sent_id = {self.doc_id}-{sent_id}")
            out.append("# text = " + "".join(
                t.text + (" " if t.whitespace_after else "") for t in sentence.tokens).strip())
            for i, tok in enumerate(sentence.tokens):
                misc = []
                if tok.ent_type:
                    misc.append(f"NER={tok.ent_type}")
                if not tok.whitespace_after:
                    misc.append("SpaceAfter=No")
                out.append("\t".join([
                    str(i + 1), tok.text, tok.lemma or "_", tok.upos or "_", tok.tag or "_", "_",
                    str(tok.head + 1), tok.dep or "_", "_", "|".join(misc) or "_",
                ]))
            out.append("")
        return "\n".join(out) + ("\n" if out else "")


# One sentence as nine parallel columns, in the field order of :class:`Token` (text, lemma,
# upos, tag, head, dep, ent_type, start_char, whitespace_after). Parse worker processes send
# parses in this form: lists of strings and ints pickle and unpickle at C speed, while a
# pickled Token is rebuilt field by field through Python code (about 3x slower).
SentenceColumns = tuple[list[str], list[str], list[str], list[str], list[int], list[str],
                        list[str], list[int], list[bool]]


def sentence_from_columns(columns: SentenceColumns) -> Sentence:
    """The :class:`Sentence` whose tokens the columns describe (see :data:`SentenceColumns`)."""
    return Sentence(tokens=tuple(map(Token, *columns)))


def sentence_columns(sentence: Sentence) -> SentenceColumns:
    """Inverse of :func:`sentence_from_columns`."""
    toks = sentence.tokens
    return ([t.text for t in toks], [t.lemma for t in toks], [t.upos for t in toks],
            [t.tag for t in toks], [t.head for t in toks], [t.dep for t in toks],
            [t.ent_type for t in toks], [t.start_char for t in toks],
            [t.whitespace_after for t in toks])
