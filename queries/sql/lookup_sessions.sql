-- lookup_sessions: stored sessions whose id or content hash is in the batch.
SELECT s.id, s.content_hash, s.n_turns, true AS by_id
FROM sessions s SEMI JOIN (SELECT DISTINCT id FROM temp.ingest_keys) k ON s.id = k.id
UNION ALL
SELECT s.id, s.content_hash, s.n_turns, false
FROM sessions s SEMI JOIN (SELECT DISTINCT hash FROM temp.ingest_keys) k ON s.content_hash = k.hash
ORDER BY 1, 4
