-- ep_probe_messages: every message with its tool calls (a JSON list), by episode and position.
WITH c AS (
    SELECT simulation_id, msg_idx,
           CAST(to_json(list({'id': call_id, 'name': name, 'arguments': arguments} ORDER BY call_idx)) AS VARCHAR) AS calls
    FROM ep_tool_calls
    GROUP BY simulation_id, msg_idx
)
SELECT m.simulation_id, m.idx, m.turn_idx, m.role, m.content, m.requestor, m.tool_call_id, c.calls
FROM ep_messages m
LEFT JOIN c ON c.simulation_id = m.simulation_id AND c.msg_idx = m.idx
ORDER BY m.simulation_id, m.idx
