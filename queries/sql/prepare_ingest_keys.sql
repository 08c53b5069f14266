-- ingest_keys: the session ids of one ingest batch, to look up stored sessions with a join.
CREATE TEMP TABLE IF NOT EXISTS ingest_keys (id VARCHAR)
