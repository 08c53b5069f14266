-- A reviewer's current decision on an episode. The episode's rows are
-- found first by the index on simulation_id alone (DuckDB uses an index
-- only for a filter on one column; MATERIALIZED keeps the reviewer's filter
-- out of the scan), then the reviewer's.
WITH e AS MATERIALIZED (SELECT * FROM rv_decisions WHERE simulation_id = ?)
SELECT d.kind, d.outcome, coalesce(d.batch, ''), d.source, d.decided_at, d.revision,
       d.lead_time, d.client_time, coalesce(d.prefilled, '')
FROM e d
WHERE d.reviewer = ?
ORDER BY d.simulation_id
