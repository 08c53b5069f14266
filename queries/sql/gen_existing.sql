-- gen_existing: the stored generations of one simulator, to tell what a run must make.
SELECT id, request_key, key_parts, error IS NULL AS ok FROM generations WHERE simulator = ? ORDER BY id
