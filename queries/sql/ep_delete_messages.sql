DELETE FROM ep_messages WHERE simulation_id = ?
