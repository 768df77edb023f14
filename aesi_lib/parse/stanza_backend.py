"""Stanza backend (UD labels): the parser the design names, for users who have its models.

Stanza is an optional extra (``pip install aesi[stanza]``; install the CPU build of torch first).
Its English models are not on any package registry: they are downloaded from Stanza's model hub
with ``stanza.download``. By default this backend never downloads (``download_method=None``);
when the models are absent it raises :class:`~aesi_lib.errors.ResourceMissingError` naming the
directory and the command that fetches them.

The conversion :func:`stanza_doc_to_parsed` needs no model and no torch call: it reads any
``stanza.Document`` (for example one built from CoNLL-U text with
``stanza.utils.conll.CoNLL.conll2doc``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aesi_lib.corpus.types import Document
from aesi_lib.errors import ResourceMissingError
from aesi_lib.parse.apostrophes import APOSTROPHES_VERSION
from aesi_lib.parse.base import format_config_id
from aesi_lib.parse.casing import CASING_VERSION, DEFAULT_CASING, get_casing
from aesi_lib.parse.insertions import INSERTIONS_VERSION
from aesi_lib.parse.spacy_backend import parser_text
from aesi_lib.parse.types import ParsedDocument, Sentence, Token

BASE_PROCESSORS = "tokenize,pos,lemma,depparse"
# None: never download; the others are Stanza's DownloadMethod names.
DOWNLOAD_METHODS: tuple[str | None, ...] = (None, "none", "reuse_resources",
                                            "download_resources")


def default_model_dir() -> str:
    """Stanza's own default: ``$STANZA_RESOURCES_DIR`` or its per-user cache folder."""
    from stanza.resources.common import DEFAULT_MODEL_DIR

    return str(DEFAULT_MODEL_DIR)


def download_command(model_dir: str, lang: str = "en") -> str:
    """The shell command that downloads the models into ``model_dir``."""
    return f"python -c \"import stanza; stanza.download('{lang}', model_dir='{model_dir}')\""


def _missing(model_dir: str, lang: str, what: str) -> ResourceMissingError:
    return ResourceMissingError(
        f"Stanza models for {lang!r} are missing: {what} (model dir {model_dir}). "
        f"Download them with: {download_command(model_dir, lang)} "
        "(needs internet), or pass the folder that holds them as model_dir, or use the "
        "spaCy backend (the embedded default)."
    )


def load_stanza_pipeline(model_dir: str | os.PathLike[str] | None = None, lang: str = "en",
                         processors: str = BASE_PROCESSORS, download_method: str | None = None,
                         use_gpu: bool = False, package: str = "default") -> Any:
    """Build a ``stanza.Pipeline`` that reads its models from ``model_dir``.

    Parameters
    ----------
    model_dir
        Folder with ``resources.json`` and ``<lang>/``; Stanza's default when None.
    lang, processors, package
        Passed to ``stanza.Pipeline``.
    download_method
        ``None`` (default): never download; ``"reuse_resources"`` / ``"download_resources"``:
        Stanza's download behaviours (need internet).
    use_gpu
        Run on a GPU when one is available.

    Raises
    ------
    ResourceMissingError
        When stanza is not installed or the models are not in ``model_dir``.
    """
    try:
        import stanza
    except ImportError as exc:
        raise ResourceMissingError(
            "stanza is not installed; install the optional extra: "
            "`pip install torch==2.13.0 stanza==1.15.0` (CPU torch first)."
        ) from exc
    folder = str(model_dir) if model_dir is not None else default_model_dir()
    if download_method not in DOWNLOAD_METHODS:
        raise ValueError(f"unknown download_method {download_method!r}; "
                         f"choose one of {DOWNLOAD_METHODS}")
    if download_method in (None, "none"):
        if not (Path(folder) / "resources.json").is_file():
            raise _missing(folder, lang, f"no resources.json in {folder}")
        if not (Path(folder) / lang).is_dir():
            raise _missing(folder, lang, f"no {lang}/ folder in {folder}")
    try:
        return stanza.Pipeline(lang=lang, processors=processors, dir=folder, package=package,
                               download_method=download_method, use_gpu=use_gpu,
                               logging_level="WARN")
    except (FileNotFoundError, KeyError, ValueError) as exc:
        # Missing model files, or a resources.json without the entries for these processors
        # (Stanza reports the latter as KeyError / "No processors to load" ValueError).
        raise _missing(folder, lang, f"{type(exc).__name__}: {exc}") from exc


def _ner_type(tag: str | None) -> str:
    """``S-PERSON`` / ``B-ORG`` / ``E-GPE`` -> the type; ``O`` or None -> ``""``."""
    if not tag or tag == "O":
        return ""
    return tag.split("-", 1)[1] if "-" in tag[:2] else tag


def stanza_doc_to_parsed(doc: Any, doc_id: str, original_text: str | None = None
                         ) -> ParsedDocument:
    """Convert a ``stanza.Document`` into the neutral format.

    Parameters
    ----------
    doc
        A Stanza Document with words carrying head/deprel (from a pipeline or from CoNLL-U).
    doc_id
        The id to give the result.
    original_text
        The document text before casing (same length as the text Stanza saw); word texts are
        taken from it where Stanza has character offsets.

    Returns
    -------
    ParsedDocument
        One token per syntactic word (multi-word tokens are split as Stanza splits them),
        heads 0-based within the sentence, root -1; NER type from the token's BIOES tag;
        ``start_char`` -1 where Stanza has no offsets.
    """
    sentences: list[Sentence] = []
    for sent in doc.sentences:
        tokens: list[Token] = []
        for tok in sent.tokens:
            words = tok.words
            ent = _ner_type(getattr(tok, "ner", None))
            tok_start = tok.start_char if tok.start_char is not None else -1
            space_after = tok.spaces_after != ""
            for k, word in enumerate(words):
                start = word.start_char if word.start_char is not None else (
                    tok_start if k == 0 else -1)
                end = word.end_char if word.end_char is not None else (
                    tok.end_char if len(words) == 1 else None)
                text = word.text
                if original_text is not None and start >= 0 and end is not None:
                    piece = original_text[start:end]
                    if piece.lower() == text.lower():
                        text = piece
                tokens.append(Token(
                    text=text, lemma=word.lemma or "", upos=word.upos or "",
                    tag=word.xpos or "", head=(word.head or 0) - 1, dep=word.deprel or "",
                    ent_type=ent, start_char=start,
                    whitespace_after=space_after if k == len(words) - 1 else False,
                ))
        if tokens:
            sentences.append(Sentence(tokens=tuple(tokens)))
    return ParsedDocument(doc_id=doc_id, sentences=tuple(sentences))


@dataclass
class StanzaParser:
    """The Stanza parser backend.

    Parameters
    ----------
    model_dir
        Folder of Stanza's models; Stanza's default (``$STANZA_RESOURCES_DIR``) when None.
    casing
        Casing strategy name (:data:`aesi_lib.parse.casing.CASING_STRATEGIES`).
    download_method
        ``None`` (never download, the default) or a Stanza download method name.
    batch_size
        Documents per ``bulk_process`` call.
    use_gpu
        Use a GPU when available.
    package
        Stanza model package (``default``, ``default_accurate``, ...).
    """

    model_dir: str | None = None
    casing: str = DEFAULT_CASING
    download_method: str | None = None
    batch_size: int = 16
    use_gpu: bool = False
    package: str = "default"
    lang: str = "en"
    _nlp: Any = field(default=None, init=False, repr=False)

    @property
    def processors(self) -> str:
        """Stanza's processors: the entities need no ``ner`` (``Token.ent_type`` stays
        empty)."""
        return BASE_PROCESSORS

    @property
    def nlp(self) -> Any:
        """The Stanza pipeline, loaded on first use."""
        if self._nlp is None:
            self._nlp = load_stanza_pipeline(self.model_dir, self.lang, self.processors,
                                             self.download_method, self.use_gpu, self.package)
        return self._nlp

    @property
    def config_id(self) -> str:
        import stanza

        return format_config_id("stanza", stanza=stanza.__version__, lang=self.lang,
                                package=self.package, processors=self.processors,
                                casing=self.casing, casing_version=CASING_VERSION,
                                insertions=INSERTIONS_VERSION,
                                apostrophes=APOSTROPHES_VERSION)

    def parse(self, docs: Iterable[Document]) -> Iterator[ParsedDocument]:
        """Parse ``docs`` in batches with ``bulk_process``; one result per document, in order."""
        import stanza

        casing = get_casing(self.casing)
        batch: list[Document] = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= self.batch_size:
                yield from self._parse_batch(stanza, casing, batch)
                batch = []
        if batch:
            yield from self._parse_batch(stanza, casing, batch)

    def _parse_batch(self, stanza: Any, casing: Any, batch: list[Document]
                     ) -> Iterator[ParsedDocument]:
        inputs = [stanza.Document([], text=parser_text(d.text, casing)) for d in batch]
        outputs = self.nlp.bulk_process(inputs)
        for doc, out in zip(batch, outputs, strict=True):
            yield stanza_doc_to_parsed(out, doc.doc_id, doc.text)
