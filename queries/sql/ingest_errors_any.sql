-- ingest_errors_any: whether the workspace holds any ingest error (ub ingest clears a file's earlier errors only then, or when the run recorded some).
SELECT EXISTS (SELECT 1 FROM ingest_errors)
