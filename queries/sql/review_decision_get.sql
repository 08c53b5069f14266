SELECT d.kind, d.outcome, coalesce(d.batch, ''), d.source, d.decided_at, d.revision,
       d.lead_time, d.client_time, coalesce(d.prefilled, '')
FROM rv_decisions d
WHERE d.simulation_id = ? AND d.reviewer = ?
ORDER BY d.simulation_id
