-- Forget a run's row (its assignments go with delete_run_assignments.sql).
DELETE FROM runs WHERE run_id = $run_id;
