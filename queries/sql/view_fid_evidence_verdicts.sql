-- view_fid_evidence_verdicts: view_fid_verdicts of grader $1 on each
-- episode $2 names (a JSON array of simulation ids), by episode, then as
-- view_fid_verdicts.
SELECT v.simulation_id, v.criterion_id, coalesce(c.family, ''), coalesce(c.mode, ''), coalesce(c.text, ''),
       coalesce(c.quote, ''), coalesce(c.status, ''), v.verdict, v.turn_idx, coalesce(v.reason, '')
FROM ep_verdicts v
LEFT JOIN ep_rubric_criteria c ON c.criterion_id = v.criterion_id
WHERE v.simulation_id IN (SELECT unnest(from_json($2::JSON, '["VARCHAR"]'))) AND v.grader = $1
ORDER BY v.simulation_id, v.verdict <> 'fail', v.criterion_id
