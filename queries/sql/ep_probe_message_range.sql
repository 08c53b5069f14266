-- ep_probe_message_range: the messages stored at rowids [?, ?), in no order.
SELECT simulation_id, idx, turn_idx, role, content, requestor, tool_call_id
FROM ep_messages
WHERE rowid >= ? AND rowid < ?
