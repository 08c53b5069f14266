-- responses_failed_keys: keys stored with an error; permanent ones only when
-- the parameter is true.
SELECT key FROM responses
WHERE error IS NOT NULL AND (NOT permanent OR ?)
ORDER BY key
