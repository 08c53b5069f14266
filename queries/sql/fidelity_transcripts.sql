-- The messages of every episode that has a criterion to grade, with the
-- tool calls each made ("name(arguments)", in call order).
SELECT m.simulation_id, m.idx, m.turn_idx, m.role, coalesce(m.content, ''),
       coalesce(string_agg(tc.name || '(' || coalesce(tc.arguments::VARCHAR, '') || ')', '; ' ORDER BY tc.call_idx), '')
FROM ep_messages m
JOIN ep_episodes e ON e.simulation_id = m.simulation_id
LEFT JOIN ep_tool_calls tc ON tc.simulation_id = m.simulation_id AND tc.msg_idx = m.idx
WHERE (? = '' OR e.domain = ?)
  AND EXISTS (SELECT 1 FROM ep_rubric_criteria c WHERE c.domain = e.domain AND c.task_id = e.task_id AND c.status = 'accepted')
GROUP BY m.simulation_id, m.idx, m.turn_idx, m.role, m.content
ORDER BY m.simulation_id, m.idx
