-- Every stored document with its text and hashes, for the document journal.
SELECT doc_id, split, source, sha256, header, parse_config, text
FROM documents
ORDER BY doc_id;
