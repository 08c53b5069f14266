DELETE FROM ep_episodes WHERE simulation_id = ?
