-- Forget the assignments of one run (before writing them again).
DELETE FROM assignments WHERE run_id = $run_id;
