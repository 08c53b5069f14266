DELETE FROM ep_probe_findings WHERE simulation_id = ?
