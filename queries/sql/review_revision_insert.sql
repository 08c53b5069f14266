INSERT INTO rv_revisions (simulation_id, reviewer, revision, kind, outcome, batch, source, decided_at, lead_time, client_time, prefilled, undone_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
