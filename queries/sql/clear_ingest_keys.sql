DELETE FROM temp.ingest_keys
