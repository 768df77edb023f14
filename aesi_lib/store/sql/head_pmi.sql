-- Document-level PMI between head lemmas (Eq. 1 of Sha et al. 2016), over the entities of the
-- documents in `wanted_docs`.
--   p(w)      = (#documents containing w) / N
--   p(w1, w2) = (#documents containing both) / N
--   pmi       = ln(p(w1, w2) / (p(w1) p(w2)))
-- Only pairs seen together in at least $min_pair_docs documents are returned; every other pair,
-- negative ones included, is treated as 0 by the caller (positive PMI). Both orders of each pair
-- are returned, and the diagonal (w, w).
WITH doc_words AS (
    SELECT DISTINCT doc_id, head_lemma AS word
    FROM entities
    WHERE doc_id IN (SELECT doc_id FROM wanted_docs)
),
n_docs AS (SELECT count(DISTINCT doc_id)::DOUBLE AS n FROM doc_words),
word_docs AS (SELECT word, count(*)::DOUBLE AS df FROM doc_words GROUP BY word),
pair_docs AS (
    SELECT a.word AS word1, b.word AS word2, count(*)::DOUBLE AS df
    FROM doc_words a JOIN doc_words b ON a.doc_id = b.doc_id
    GROUP BY a.word, b.word
    HAVING count(*) >= $min_pair_docs
)
SELECT
    p.word1, p.word2,
    ln(p.df * n.n / (w1.df * w2.df)) AS pmi,
    p.df AS pair_docs
FROM pair_docs p
JOIN word_docs w1 ON w1.word = p.word1
JOIN word_docs w2 ON w2.word = p.word2
CROSS JOIN n_docs n;
