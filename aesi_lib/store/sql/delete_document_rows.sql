-- Remove the derived rows of the documents listed in the registered relation `doomed`.
DELETE FROM sentences WHERE doc_id IN (SELECT doc_id FROM doomed);
DELETE FROM tokens WHERE doc_id IN (SELECT doc_id FROM doomed);
DELETE FROM entities WHERE doc_id IN (SELECT doc_id FROM doomed);
DELETE FROM documents WHERE doc_id IN (SELECT doc_id FROM doomed);
