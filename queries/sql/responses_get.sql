-- responses_get: the full stored row of every key among temp.response_keys.
SELECT r.key, r.backend, r.model, CAST(r.request AS VARCHAR), coalesce(r.text, ''),
       coalesce(r.tokens_in, 0), coalesce(r.tokens_out, 0), coalesce(r.latency_ms, 0),
       coalesce(r.finish_reason, ''), coalesce(r.error, ''), r.permanent, r.attempts,
       r.via_batch, CAST(r.raw AS VARCHAR)
FROM responses r SEMI JOIN (SELECT DISTINCT key FROM temp.response_keys) k ON r.key = k.key
ORDER BY r.key
