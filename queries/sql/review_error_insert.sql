INSERT INTO rv_errors (simulation_id, reviewer, idx, turn_idx, code, severity, note) VALUES (?, ?, ?, ?, ?, ?, ?)
