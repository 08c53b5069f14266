SELECT p.probe, p.turn_idx, p.evidence
FROM ep_probe_findings p
WHERE p.simulation_id = ?
ORDER BY p.turn_idx NULLS FIRST, p.probe, p.evidence
