-- How many rows the documents listed in the registered relation `doomed` have in each table
-- (what deleting them removes).
SELECT
    (SELECT count(*) FROM documents WHERE doc_id IN (SELECT doc_id FROM doomed)) AS documents,
    (SELECT count(*) FROM sentences WHERE doc_id IN (SELECT doc_id FROM doomed)) AS sentences,
    (SELECT count(*) FROM tokens WHERE doc_id IN (SELECT doc_id FROM doomed)) AS tokens,
    (SELECT count(*) FROM entities WHERE doc_id IN (SELECT doc_id FROM doomed)) AS entities;
