"""Prefect tasks: thin wrappers around ``aesi_lib`` with cache keys, retries and result paths.

Installed and imported as ``aesi_tasks`` (the folder is ``tasks/``). One module per stage of
a run: :mod:`aesi_tasks.ingest` (corpus, changed documents, parse batches, store writes;
:mod:`aesi_tasks.parsers` keeps the loaded parsers), :mod:`aesi_tasks.features` (entity table,
PMI, features), :mod:`aesi_tasks.solve` (the solve and the exports),
:mod:`aesi_tasks.evaluate` (scores) and :mod:`aesi_tasks.extract` (slot filling).
:mod:`aesi_tasks.keys` builds the cache keys and :mod:`aesi_tasks.retry` the retry policy;
the files themselves are written and read by ``aesi_lib`` (``aesi_lib.run.table_files``,
``aesi_lib.model.feature_files``, ``aesi_lib.model.solution_files``,
``aesi_lib.lexicon.context_files``).

Caching: the steps whose inputs can be named by content (entity table, PMI, features, solve,
evaluation) carry a ``cache_key_fn`` built in :mod:`aesi_tasks.keys` (input content + library
fingerprint + the task's source) and persist their result, which is a small dict of file paths
(Parquet / ``.npz`` / JSON under the project folder), never the arrays themselves.

Importing this package changes no setting: Prefect's environment is set by whoever starts the
flows (the ``aesi`` command line, ``aesi_flows.cli.environment``; a deployment's ``job_variables``
in ``prefect.yaml``).
"""
