DELETE FROM ep_tool_calls WHERE simulation_id = ?
