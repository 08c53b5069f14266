-- view_fid_evidence_messages: review_messages of each episode $1 names (a
-- JSON array of simulation ids), by episode, then as review_messages.
SELECT m.simulation_id, m.idx, m.turn_idx, m.role, coalesce(m.content, ''), coalesce(m.requestor, ''),
       coalesce(m.tool_error, false), coalesce(m.tool_call_id, '')
FROM ep_messages m
WHERE m.simulation_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY m.simulation_id, m.idx
