SELECT simulation_id, msg_idx, call_idx, call_id, name, CAST(arguments AS VARCHAR)
FROM ep_tool_calls
ORDER BY simulation_id, msg_idx, call_idx
