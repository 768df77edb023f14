-- The tables of the store's database (whatever schema version made it).
SELECT table_name
FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main'
ORDER BY table_name;
