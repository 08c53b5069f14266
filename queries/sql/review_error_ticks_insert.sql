INSERT INTO rv_error_ticks (simulation_id, reviewer, idx, tick_start, tick_end) VALUES (?, ?, ?, ?, ?)
