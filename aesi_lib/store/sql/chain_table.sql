-- The coreference chain rows of the documents in the registered relation `wanted_docs`.
SELECT c.*
FROM chains c
WHERE c.doc_id IN (SELECT doc_id FROM wanted_docs)
ORDER BY c.doc_id, c.sent_id, c.head_index;
