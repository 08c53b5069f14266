-- As review_tool_calls, within the rowid span the server found for the episode
-- when it started (queries.BatchSpans): DuckDB skips the row groups outside it.
SELECT c.msg_idx, c.call_idx, c.name, coalesce(CAST(c.arguments AS VARCHAR), ''), coalesce(c.call_id, '')
FROM ep_tool_calls c
WHERE c.simulation_id = ? AND c.rowid BETWEEN ? AND ?
ORDER BY c.msg_idx, c.call_idx
