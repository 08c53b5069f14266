-- view_fid_evidence_tool_calls: review_tool_calls of each episode $1 names
-- (a JSON array of simulation ids), by episode, then as review_tool_calls.
SELECT c.simulation_id, c.msg_idx, c.call_idx, c.name, coalesce(CAST(c.arguments AS VARCHAR), ''), coalesce(c.call_id, '')
FROM ep_tool_calls c
WHERE c.simulation_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY c.simulation_id, c.msg_idx, c.call_idx
