-- study_words_registered: fails unless the scalar function ub_words
-- (Words, registered by queries.registerWords) is in the catalog: a bind
-- of one call, where a read of duckdb_functions() lists every function
-- DuckDB has (some 20 ms at every open).
SELECT ub_words('') = 0
