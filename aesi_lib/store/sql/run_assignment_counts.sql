-- Every recorded run, newest first, with the number of assignment rows it still has.
SELECT r.run_id, r.started_at, r.status, count(a.run_id) AS assignments
FROM runs r
LEFT JOIN assignments a USING (run_id)
GROUP BY r.run_id, r.started_at, r.status
ORDER BY r.started_at DESC, r.run_id DESC;
