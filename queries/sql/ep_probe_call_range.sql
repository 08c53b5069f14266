-- ep_probe_call_range: the tool calls stored at rowids [?, ?), in no order;
-- each call as the JSON object the probes decode (to_json writes the
-- arguments as it writes them in a list).
SELECT simulation_id, msg_idx, call_idx,
       CAST(to_json({'id': call_id, 'name': name, 'arguments': arguments}) AS VARCHAR)
FROM ep_tool_calls
WHERE rowid >= ? AND rowid < ?
