SELECT count(*) FROM ep_runs WHERE run_id = ?
