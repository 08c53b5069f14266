-- ep_probe_extent: one past the largest rowid of ep_messages and of ep_tool_calls.
SELECT (SELECT coalesce(max(rowid) + 1, 0) FROM ep_messages),
       (SELECT coalesce(max(rowid) + 1, 0) FROM ep_tool_calls)
