SELECT c.msg_idx, c.call_idx, c.name, coalesce(CAST(c.arguments AS VARCHAR), ''), coalesce(c.call_id, '')
FROM ep_tool_calls c
WHERE c.simulation_id = ?
ORDER BY c.msg_idx, c.call_idx
