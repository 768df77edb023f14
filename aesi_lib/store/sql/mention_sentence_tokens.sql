-- The tokens of the sentences that hold an entity mention, of the documents in the registered
-- relation `wanted_docs`, in order: what the encoder needs to find a token's characters.
SELECT t.doc_id, t.sent_id, t.token_id, t.text
FROM tokens t
WHERE t.doc_id IN (SELECT doc_id FROM wanted_docs)
  AND (t.doc_id, t.sent_id) IN (SELECT DISTINCT doc_id, sent_id FROM entities)
ORDER BY t.doc_id, t.sent_id, t.token_id;
