-- As review_probes, within the rowid span the server found for the episode
-- when it started (queries.BatchSpans): DuckDB skips the row groups outside it.
SELECT p.probe, p.turn_idx, p.evidence
FROM ep_probe_findings p
WHERE p.simulation_id = ? AND p.rowid BETWEEN ? AND ?
ORDER BY p.turn_idx NULLS FIRST, p.probe, p.evidence
