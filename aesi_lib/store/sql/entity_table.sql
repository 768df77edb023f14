-- The entity table in a stable order (document, sentence, head position, predicate, dependency),
-- with the corpus-wide ordinal that becomes `entity_id`, restricted to the splits in `wanted`.
SELECT
    row_number() OVER (ORDER BY e.doc_id, e.sent_id, e.head_index, e.predicate, e.dep) - 1
        AS entity_id,
    e.doc_id, d.split, e.sent_id, e.head_index, e.head, e.head_lemma, e.mention,
    e.predicate, e.dep, e.ner, e.start_char, e.end_char, e.predicate_index,
    e.phrase, e.proper
FROM entities e
JOIN documents d USING (doc_id)
WHERE d.split IN (SELECT split FROM wanted)
ORDER BY entity_id;
