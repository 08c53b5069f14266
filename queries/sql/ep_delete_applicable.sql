DELETE FROM ep_probe_applicable WHERE simulation_id = ?
