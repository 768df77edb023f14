-- Mark a run finished with its status and results (JSON text).
UPDATE runs SET finished_at = $finished_at, status = $status, results = $results
WHERE run_id = $run_id;
