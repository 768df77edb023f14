-- Remove the chain rows of the documents listed in the registered relation `doomed`.
DELETE FROM chains WHERE doc_id IN (SELECT doc_id FROM doomed);
