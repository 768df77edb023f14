-- Keep the assignments of the $keep most recently started runs; delete every other run's
-- (and rows of runs no longer recorded). The runs' own rows (configuration, results) stay.
DELETE FROM assignments
WHERE run_id NOT IN (
    SELECT run_id FROM runs ORDER BY started_at DESC, run_id DESC LIMIT $keep
);
