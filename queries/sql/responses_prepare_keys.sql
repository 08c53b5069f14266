-- responses_prepare_keys: the scratch table of request keys that
-- responses_lookup and responses_get join against.
CREATE TEMP TABLE IF NOT EXISTS response_keys (key VARCHAR)
