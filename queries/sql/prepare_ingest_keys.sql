-- ingest_keys: the ids and hashes of one ingest batch, to look up stored sessions with a join.
CREATE TEMP TABLE IF NOT EXISTS ingest_keys (id VARCHAR, hash VARCHAR)
