DELETE FROM rv_error_ticks WHERE simulation_id = ? AND reviewer = ?
