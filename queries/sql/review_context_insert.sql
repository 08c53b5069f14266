INSERT INTO rv_decision_context (simulation_id, reviewer, domain, task_id, reward) VALUES (?, ?, ?, ?, ?)
