DELETE FROM rv_decision_context WHERE simulation_id = ? AND reviewer = ?
