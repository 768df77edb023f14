"""Options shared by several subcommands, and turning them into a run configuration, a task
runner and early checks of the corpus (the environment Prefect needs before it is imported is
in :mod:`aesi_cli.environment`)."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

from aesi_lib.errors import AesiError
from aesi_lib.run.presets import PRESETS, deep_merge, preset

# The named options of the configuration: flag, metavar, key, help. Their types, choices,
# ranges and defaults are the configuration's own (aesi_lib.run.config): the help shows them
# when it is printed (ConfigHelpFormatter) and run_config() checks the values, so none is
# repeated here.
# Every other key is reachable with --set KEY=VALUE.
CONFIG_FLAGS: tuple[tuple[str, str, str, str], ...] = (
    ("--templates", "N", "model.n_templates", "|T|, number of templates"),
    ("--slots", "N", "model.n_slots", "|S|, number of slots"),
    ("--mode", "MODE", "model.mode", "sc: independent cuts (-SC); literal: the appendix's AMP "
     "as written; scaled: AMP with a constraint weight"),
    ("--weight", "W", "model.constraint_weight", "constraint weight of the scaled mode"),
    ("--slot-model", "MODEL", "model.slot_model", "cut: slots are the normalized cut of W_S "
     "(the paper); factored: argument position x semantic class of the head (needs --mode sc "
     "and --slots a multiple of 4)"),
    ("--init", "INIT", "model.init", "AMP initialisation"),
    ("--max-iter", "N", "model.max_iter", "AMP iteration cap"),
    ("--n-init", "N", "model.n_init", "Yu-Shi discretisations per cut (the best is kept)"),
    ("--seed", "N", "model.seed", "random seed"),
    ("--parser", "NAME", "parser.backend", "parser backend"),
    ("--casing", "NAME", "parser.casing", "re-casing of upper-case text before parsing"),
    ("--stanza-dir", "DIR", "parser.stanza_dir", "Stanza model folder"),
    ("--parse-processes", "N", "parser.n_process", "processes that parse, each with its own "
     "model (about 0.4 GiB); 0: one per usable core, fewer for a few documents"),
    ("--type-scheme", "SCHEME", "features.type_scheme",
     "semantic types: hypernyms, lexname or depth:N"),
    ("--vectors", "FILE", "vectors_path", "word vectors file (word2vec, GloVe or gensim .kv); "
     "none: the embedded GloVe 6B 50d vectors"),
    ("--wordnet", "DIR", "wordnet_path", "WordNet database folder; none: NLTK's or the "
     "system's WordNet"),
)

MAX_DOC_CHARS_DEFAULT = 1_000_000
"""``aesi_lib.corpus.plain.DEFAULT_MAX_DOC_CHARS``, for the help (without importing the reader;
``tests/test_cli.py`` checks that they agree)."""
SET_EXAMPLES = "model.n_init=8, features.type_scheme=lexname, model.similarity.pmi_weight=0.5"


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


class ConfigHelpFormatter(argparse.HelpFormatter):
    """Adds to the help of a configuration option its choices and this command's default.

    They are read from the configuration when the help is printed, so they cannot drift from
    it, and building the parser does not import the model.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        key = getattr(action, "config_key", None)
        if key is None:
            return text
        note = key_note(key, getattr(action, "config_base", "preset"))
        return f"{text} ({note.replace('%', '%%')})"


def key_note(key: str, base: str) -> str:
    """``key``, its choices and its default as a command whose configuration starts from
    ``base`` ("preset": the default preset; "project": the project's last run) sees them."""
    from aesi_lib.run.config import field_choices

    parts = [key]
    choices = field_choices(key)
    if choices:
        parts.append("one of " + ", ".join(str(c) for c in choices))
    if base == "project":
        parts.append("default: as in the project's last run")
    else:
        parts.append(f"default: {_json_value(_lookup(default_config(), key))}")
    return "; ".join(parts)


def _json_value(value: Any) -> str:
    if value is None:
        return "none"
    return value if isinstance(value, str) else json.dumps(value)


def _lookup(config: dict[str, Any], key: str) -> Any:
    for part in key.split("."):
        config = config[part]
    return config


def default_config() -> dict[str, Any]:
    """The complete configuration of ``aesi run`` without options: the default preset."""
    from aesi_lib.run.config import RunConfig

    return RunConfig.from_dict(preset("default")).to_dict()


def add_config_options(p: argparse.ArgumentParser, base: str = "preset") -> None:
    """The configuration options of a command.

    ``base`` is what they override: "preset" (``--preset``, the default preset unless named)
    or "project" (``aesi update``: the configuration of the project's last run).
    """
    g = p.add_argument_group("model, parser and feature options (override --preset and "
                             "--config)")
    starts = ("the default preset" if base == "preset"
              else "the configuration of the project's last run")
    g.add_argument("--preset", choices=sorted(PRESETS),
                   help="starting configuration: default (the best found on DEV/TST1/TST2), "
                   "tied-cut (the best with slots cut from W_S), reproduction (the paper's "
                   "model), reproduction-sc, literal; --config and the options below override "
                   f"it (default: {starts})")
    g.add_argument("--config", metavar="FILE",
                   help="JSON file with a RunConfig or part of one (`aesi config --schema` "
                   "prints its JSON schema); the options below override it")
    for flag, metavar, key, text in CONFIG_FLAGS:
        action = g.add_argument(flag, metavar=metavar, help=text)
        action.config_key = key           # type: ignore[attr-defined]
        action.config_base = base         # type: ignore[attr-defined]
    g.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help=f"set any key of the configuration, e.g. {SET_EXAMPLES}; repeatable, "
                   "applied after the options above; VALUE null is JSON's null, e.g. "
                   "vectors_path=null for the embedded vectors (`aesi config --schema` lists "
                   "every key)")
    p.set_defaults(config_base=base)


#: ``--dask`` given without an address: a temporary local cluster.
LOCAL_DASK = "local"


def add_runner_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("execution")
    g.add_argument("--dask", nargs="?", const=LOCAL_DASK, default=None, metavar="ADDRESS",
                   help="parse and embed on Dask (prefect-dask DaskTaskRunner): on the running "
                   "cluster whose scheduler is at ADDRESS (e.g. tcp://10.0.0.5:8786; its "
                   "workers need aesi installed and the project folder on a shared path), or "
                   "without ADDRESS on a temporary local cluster")
    g.add_argument("--dask-workers", type=int, default=2,
                   help="workers of the local cluster of --dask (default 2)")
    g.add_argument("--dask-threads", action="store_true",
                   help="local cluster workers as threads of this process instead of processes")
    g.add_argument("--batch-size", type=int, default=50,
                   help="documents per mapped parse task (default 50)")


def add_corpus_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("corpus")
    g.add_argument("--muc4-dir", help="MUC-4 folder (default: $AESI_MUC4_DIR or "
                   "../shared/data/muc4 when present)")
    g.add_argument("--docs", help="your own corpus: a folder of .txt files or a JSONL file "
                   "with id and text")
    g.add_argument("--demo", action="store_true",
                   help="the embedded demo corpus (40 invented messages with a key)")
    add_reading_options(g)


def add_reading_options(g: Any) -> None:
    """How the files of --docs are read (an argument group or a parser)."""
    g.add_argument("--encoding", default=None,
                   help="text encoding of every --docs file (a Python codec name such as "
                   "utf-8, latin-1 or cp1252; default: each file is read as UTF-8 when it is "
                   "UTF-8, else in the encoding detected, named in the log)")
    g.add_argument("--skip-bad", action="store_true",
                   help="leave out unreadable or too long --docs files or JSONL lines with a "
                   "warning that names each, instead of stopping (default: stop and list them "
                   "all)")
    g.add_argument("--keep-non-english", action="store_true",
                   help="keep the --docs documents that are not English (default: leave each "
                   "out with a warning that names it and the language found; results.json "
                   "lists them under left_out)")
    g.add_argument("--max-doc-chars", type=int, metavar="N", default=MAX_DOC_CHARS_DEFAULT,
                   help="the most characters a --docs document may have; a longer one stops "
                   "the command before any parsing (or is left out with --skip-bad); 0: no "
                   f"limit (default {MAX_DOC_CHARS_DEFAULT:,})")


def add_project_options(p: argparse.ArgumentParser, out_default: str) -> None:
    p.add_argument("--project-dir", default=".aesi",
                   help="store, parse cache and cached results (default: .aesi)")
    p.add_argument("--out", default=out_default,
                   help=f"export folder (default: {out_default})")
    add_wait_option(p)


def add_wait_option(p: argparse.ArgumentParser) -> None:
    """``--wait``: queue behind another aesi process that writes the same project."""
    p.add_argument("--wait", action="store_true",
                   help="when another aesi process writes the project, wait for it to finish "
                   "and then start (default: stop at once with one line)")


def run_config(args: argparse.Namespace) -> dict[str, Any]:
    """The configuration the command line names, checked before any work.

    The preset (when the command has one), ``--config``, the named options and ``--set``, each
    overriding the one before. Every value is checked and coerced (``--templates 8`` becomes
    8) and the resource paths must exist: a problem raises ``AesiError`` with one line that
    names the key, where its value came from and what is allowed.

    Returns
    -------
    dict
        The merged overrides (nested like ``RunConfig.to_dict()``), not the full configuration:
        ``aesi update`` merges them into the project's last configuration.
    """
    from aesi_lib.errors import ConfigError
    from aesi_lib.run.config import read_config_file, validate_config
    from aesi_lib.run.resources import absolute_resource_paths, check_resources

    config: dict[str, Any] = {}
    sources: dict[str, str] = {}
    if getattr(args, "preset", None):
        config = preset(args.preset)
        _note_sources(config, "", f"preset {args.preset}", sources)
    if getattr(args, "config", None):
        from_file = read_config_file(Path(args.config))
        config = deep_merge(config, from_file)
        _note_sources(from_file, "", args.config, sources)
    for flag, _, key, _ in CONFIG_FLAGS:
        value = getattr(args, _dest(flag), None)
        if value is not None:
            _set_key(config, key, value)
            sources[key] = flag
    for item in getattr(args, "set", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise AesiError(f"--set {item!r}: expected KEY=VALUE, e.g. {SET_EXAMPLES}")
        key = key.strip()
        _set_key(config, key, None if value.strip() == "null" else value.strip())
        sources[key] = "--set"
    try:
        config = validate_config(config, complete=getattr(args, "config_base", "") != "project")
    except ConfigError as exc:
        raise AesiError("bad configuration: " + "; ".join(
            f"{_with_source(key, sources)}: {message}" for key, message in exc.problems)
        ) from exc
    # Stored in the project as given, a relative path breaks a later run from another folder.
    config = absolute_resource_paths(config)
    check_resources(config)
    return config


def _set_key(config: dict[str, Any], key: str, value: Any) -> None:
    *parents, leaf = key.split(".")
    node = config
    for i, part in enumerate(parents):
        if not isinstance(node.get(part, {}), dict):
            raise AesiError(f"bad configuration: {'.'.join(parents[:i + 1])} is a value, so "
                            f"{key} cannot be set")
        node = node.setdefault(part, {})
    node[leaf] = value


def _note_sources(data: dict[str, Any], prefix: str, source: str,
                  sources: dict[str, str]) -> None:
    for key, value in data.items():
        sources[prefix + key] = source
        if isinstance(value, dict):
            _note_sources(value, f"{prefix}{key}.", source, sources)


def _with_source(key: str, sources: dict[str, str]) -> str:
    """``key (from --templates)``: the key and where its value came from, when known.

    A problem of a whole section (``features``: options that only fail together) also names
    the keys within it that came from somewhere else, since those are usually its cause:
    ``features (from preset default; features.event_nouns from --set)``.
    """
    if not key:
        return "configuration"
    source = sources.get(key)
    within = [f"{inner} from {inner_source}" for inner, inner_source in sources.items()
              if inner.startswith(key + ".") and inner_source != source]
    where = "; ".join(([f"from {source}"] if source else []) + within)
    return f"{key} ({where})" if where else key


def cmd_config(args: argparse.Namespace) -> int:
    """``aesi config``: print the complete configuration the options name, or with
    ``--schema`` the JSON schema of a ``--config`` file."""
    from aesi_lib.run.config import RunConfig

    if args.schema:
        from aesi_lib.run.config import json_schema

        # A key a --config file leaves out keeps the value of the preset the command starts
        # from: those are the defaults to show.
        defaults = RunConfig.from_dict(run_config(args)).to_dict()
        print(json.dumps(json_schema(defaults), indent=1))
        return 0

    config = RunConfig.from_dict(run_config(args))
    print(json.dumps(config.to_dict(), indent=1))
    return 0


def check_dask_scheduler(address: str, timeout: float = 5.0) -> None:
    """That a Dask scheduler answers at ``address``, before any work is sent to it.

    Raises
    ------
    AesiError
        ``address`` is not a Dask address, or no scheduler answers there within ``timeout``
        seconds.
    """
    from distributed import Client
    from distributed.comm import parse_address

    try:
        parse_address(address, strict=True)
    except ValueError:
        raise AesiError(f"--dask {address}: not a Dask scheduler address; give one such as "
                        "tcp://10.0.0.5:8786") from None
    try:
        with Client(address, timeout=timeout):
            pass
    except (OSError, TimeoutError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise AesiError(f"--dask {address}: no Dask scheduler answers there ({reason}); start "
                        "one (`dask scheduler`) or give another address") from None


def check_runner(args: argparse.Namespace) -> None:
    """The execution options, checked before any work: ``--dask ADDRESS`` must reach a
    scheduler (:func:`check_dask_scheduler`)."""
    dask = getattr(args, "dask", None)
    if dask and dask != LOCAL_DASK:
        check_dask_scheduler(dask)


def dask_options(args: argparse.Namespace) -> dict[str, Any] | None:
    """The cluster ``--dask`` asks for: its scheduler ``address`` (None: a local cluster),
    ``n_workers`` and ``processes``; None without ``--dask``. Unless ``--verbose``,
    ``distributed``'s own log levels are lowered to warnings (it sets them when imported)."""
    dask = getattr(args, "dask", None)
    if not dask:
        return None
    if not args.verbose:
        logging.getLogger("distributed").setLevel(logging.WARNING)
    return {"address": None if dask == LOCAL_DASK else dask, "n_workers": args.dask_workers,
            "processes": not args.dask_threads}


def with_runner(flow_fn: Any, args: argparse.Namespace) -> Any:
    """The flow with the task runner the options ask for (default: the flow's own)."""
    cluster = dask_options(args)
    if cluster is None:
        return flow_fn
    from aesi_flows.common import dask_task_runner

    return flow_fn.with_options(task_runner=dask_task_runner(**cluster))


def reading(args: argparse.Namespace) -> dict[str, Any]:
    """The --docs reading options as the flows take them.

    Raises
    ------
    AesiError
        ``--max-doc-chars`` is negative.
    """
    max_doc_chars = getattr(args, "max_doc_chars", MAX_DOC_CHARS_DEFAULT)
    if max_doc_chars < 0:
        raise AesiError(f"--max-doc-chars must be 0 (no limit) or more, not {max_doc_chars}")
    return {"encoding": getattr(args, "encoding", None),
            "skip_bad": bool(getattr(args, "skip_bad", False)),
            "max_doc_chars": max_doc_chars,
            "keep_non_english": bool(getattr(args, "keep_non_english", False))}


def check_docs(path: str, encoding: str | None = None, skip_bad: bool = False,
               max_doc_chars: int | None = MAX_DOC_CHARS_DEFAULT,
               keep_non_english: bool = False) -> None:
    """Fail early, with the reader's message, on an unusable --docs (a document above
    ``max_doc_chars`` too, before anything is parsed). The lines a --skip-bad reading warns
    about (and the documents it leaves out as not English) are left to the flow's own reading,
    which prints them once."""
    from aesi_lib.corpus import plain

    reader_log = logging.getLogger(plain.__name__)
    was_disabled, reader_log.disabled = reader_log.disabled, True
    try:
        plain.read_plain_documents(path, on_error="skip" if skip_bad else "raise",
                                   encoding=encoding, max_chars=max_doc_chars,
                                   keep_non_english=keep_non_english)
    finally:
        reader_log.disabled = was_disabled


def check_corpus(args: argparse.Namespace) -> None:
    """Fail early on an unusable corpus option; ``--encoding`` is checked even without
    ``--docs``, so that a typo is never silently ignored."""
    if getattr(args, "encoding", None):
        from aesi_lib.corpus.plain import check_encoding

        check_encoding(args.encoding)
    if getattr(args, "docs", None):
        check_docs(args.docs, **reading(args))
    elif getattr(args, "muc4_dir", None) and not getattr(args, "demo", False):
        from aesi_lib.corpus.muc4 import resolve_muc4_dir

        resolve_muc4_dir(args.muc4_dir)
