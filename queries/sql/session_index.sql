-- session_index: what ingest needs to decide insert, skip or replace.
SELECT id, content_hash, n_turns FROM sessions ORDER BY id
