INSERT INTO rv_decisions (simulation_id, reviewer, kind, outcome, batch, source, decided_at, revision, lead_time, client_time, prefilled)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
