DELETE FROM rv_errors WHERE simulation_id = ? AND reviewer = ?
