-- The sentences of the documents in the registered relation `wanted_docs`, in order.
SELECT s.doc_id, s.sent_id, s.text
FROM sentences s
WHERE s.doc_id IN (SELECT doc_id FROM wanted_docs)
ORDER BY s.doc_id, s.sent_id;
