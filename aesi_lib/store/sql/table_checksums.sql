-- Row count and a hash of every row of each table: reading every column of every row is what
-- finds a damaged (truncated, overwritten) database file that still opens.
SELECT 'documents' AS table_name, count(*) AS row_count, sum(hash(t)) AS checksum
FROM documents t
UNION ALL
SELECT 'sentences', count(*), sum(hash(t)) FROM sentences t
UNION ALL
SELECT 'tokens', count(*), sum(hash(t)) FROM tokens t
UNION ALL
SELECT 'entities', count(*), sum(hash(t)) FROM entities t
UNION ALL
SELECT 'chains', count(*), sum(hash(t)) FROM chains t
UNION ALL
SELECT 'runs', count(*), sum(hash(t)) FROM runs t
UNION ALL
SELECT 'assignments', count(*), sum(hash(t)) FROM assignments t;
