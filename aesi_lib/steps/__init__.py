"""The steps of a run, each declared once (``aesi_lib.steps.declaration``): what it does, the
files it writes, its cache key and its retries, whoever runs it: the in-process executor
(``aesi_flows.in_process``) or Prefect (``aesi_tasks.prefect_task``). One module per stage:
:mod:`aesi_lib.steps.ingest` (corpus, changed documents, parse batches, store writes;
:mod:`aesi_lib.steps.parsers` keeps the loaded parsers), :mod:`aesi_lib.steps.features`
(entity table, PMI, context vectors, features), :mod:`aesi_lib.steps.solve` (the solve,
placement, ids and the exports), :mod:`aesi_lib.steps.events` (events and what a person reads),
:mod:`aesi_lib.steps.evaluate` (scores), :mod:`aesi_lib.steps.export_changes` (the labels that
moved) and :mod:`aesi_lib.steps.extract` (slot filling). :mod:`aesi_lib.steps.keys` builds the
cache keys and :mod:`aesi_lib.steps.retry` the retry policy; the files themselves are written
and read by the rest of ``aesi_lib`` (``aesi_lib.run.table_files``,
``aesi_lib.model.feature_files``, ``aesi_lib.model.solution_files``,
``aesi_lib.lexicon.context_files``).

Caching: the steps whose inputs can be named by content (entity table, PMI, context vectors,
features, solve, placement, ids, events, evaluation) carry a key (input content + library
fingerprint + the step's source), and their result is a small value of file paths (Parquet /
``.npz`` / JSON under the project folder) or scores, never the arrays themselves.
"""
