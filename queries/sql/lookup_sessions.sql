-- lookup_sessions: stored sessions whose id is in the batch.
SELECT s.id, s.content_hash, s.n_turns
FROM sessions s SEMI JOIN (SELECT DISTINCT id FROM temp.ingest_keys) k ON s.id = k.id
ORDER BY 1
