-- Row count and a hash of every row of the table named $table_name: reading every column of
-- every row is what finds a damaged (truncated, overwritten) database file that still opens.
SELECT count(*) AS row_count, sum(hash(t)) AS checksum
FROM query_table($table_name) t;
