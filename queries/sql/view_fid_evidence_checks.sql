-- view_fid_evidence_checks: view_fid_checks of each episode $1 names (a
-- JSON array of simulation ids), by episode, then as view_fid_checks.
SELECT simulation_id, kind, idx, coalesce(name, ''), coalesce(requestor, ''), met, coalesce(CAST(detail AS VARCHAR), '')
FROM ep_checks
WHERE simulation_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY simulation_id, kind, idx
