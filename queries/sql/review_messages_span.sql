-- As review_messages, within the rowid span the server found for the episode
-- when it started (queries.BatchSpans): DuckDB skips the row groups outside it.
SELECT m.idx, m.turn_idx, m.role, coalesce(m.content, ''), coalesce(m.requestor, ''),
       coalesce(m.tool_error, false), coalesce(m.tool_call_id, '')
FROM ep_messages m
WHERE m.simulation_id = ? AND m.rowid BETWEEN ? AND ?
ORDER BY m.idx
