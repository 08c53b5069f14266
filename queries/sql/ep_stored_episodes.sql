-- ep_stored_episodes: every stored episode's content hash, for ingest's add/replace/unchanged decision.
SELECT simulation_id, content_hash FROM ep_episodes ORDER BY simulation_id
