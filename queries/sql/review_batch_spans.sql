-- Where each episode of a batch lies in the conversation tables: its rows'
-- rowid span and count, per table (ep_messages, ep_tool_calls,
-- ep_probe_findings). One scan of each, when the workbench starts.
WITH b AS (SELECT DISTINCT simulation_id FROM rv_assignments WHERE batch = ?)
SELECT 'm', simulation_id, min(rowid), max(rowid), count(*) FROM ep_messages WHERE simulation_id IN (SELECT simulation_id FROM b) GROUP BY ALL
UNION ALL
SELECT 'c', simulation_id, min(rowid), max(rowid), count(*) FROM ep_tool_calls WHERE simulation_id IN (SELECT simulation_id FROM b) GROUP BY ALL
UNION ALL
SELECT 'p', simulation_id, min(rowid), max(rowid), count(*) FROM ep_probe_findings WHERE simulation_id IN (SELECT simulation_id FROM b) GROUP BY ALL
