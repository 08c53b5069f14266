SELECT content_hash FROM ep_episodes WHERE simulation_id = ?
