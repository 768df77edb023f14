-- Content hash and parse configuration of every stored document.
SELECT doc_id, sha256, parse_config FROM documents;
