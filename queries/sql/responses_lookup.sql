-- responses_lookup: the state of every stored key among temp.response_keys,
-- without text or raw body (what the runner needs to decide what to send).
SELECT r.key, coalesce(r.error, ''), r.permanent, r.attempts
FROM responses r SEMI JOIN (SELECT DISTINCT key FROM temp.response_keys) k ON r.key = k.key
ORDER BY r.key
