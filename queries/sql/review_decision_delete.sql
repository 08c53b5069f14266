DELETE FROM rv_decisions WHERE simulation_id = ? AND reviewer = ?
