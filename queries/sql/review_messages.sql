SELECT m.idx, m.turn_idx, m.role, coalesce(m.content, ''), coalesce(m.requestor, ''),
       coalesce(m.tool_error, false), coalesce(m.tool_call_id, '')
FROM ep_messages m
WHERE m.simulation_id = ?
ORDER BY m.idx
