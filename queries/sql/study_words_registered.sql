-- study_words_registered: whether the scalar function ub_words (Words, registered by queries.registerWords) is in the catalog.
SELECT count(*) > 0 FROM duckdb_functions() WHERE function_name = 'ub_words'
