-- Row counts per split, for `aesi report` and progress messages.
SELECT d.split,
       count(DISTINCT d.doc_id) AS documents,
       (SELECT count(*) FROM sentences s JOIN documents d2 USING (doc_id)
         WHERE d2.split = d.split) AS sentences,
       (SELECT count(*) FROM entities e JOIN documents d3 USING (doc_id)
         WHERE d3.split = d.split) AS entities
FROM documents d
GROUP BY d.split
ORDER BY d.split;
