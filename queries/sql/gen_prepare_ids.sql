-- gen_prepare_ids: the scratch table of generation ids that gen_delete_ids
-- deletes (filled by an appender, cleared by gen_clear_ids).
CREATE TEMP TABLE IF NOT EXISTS generation_ids (id VARCHAR)
