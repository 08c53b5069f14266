INSERT INTO rv_revision_errors (simulation_id, reviewer, revision, idx, turn_idx, code, severity, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
