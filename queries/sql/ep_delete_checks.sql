DELETE FROM ep_checks WHERE simulation_id = ?
