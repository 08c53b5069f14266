SELECT simulation_id, idx, turn_idx, role, content, requestor, tool_call_id
FROM ep_messages
ORDER BY simulation_id, idx
