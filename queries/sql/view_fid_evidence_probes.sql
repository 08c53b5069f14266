-- view_fid_evidence_probes: review_probes of each episode $1 names (a JSON
-- array of simulation ids), by episode, then as review_probes.
SELECT p.simulation_id, p.probe, p.turn_idx, p.evidence
FROM ep_probe_findings p
WHERE p.simulation_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY p.simulation_id, p.turn_idx NULLS FIRST, p.probe, p.evidence
