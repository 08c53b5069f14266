-- Every stored episode with its task, its last turn (-1 without messages)
-- and its user turns, for checking verdicts.
SELECT e.simulation_id, e.domain, e.task_id,
       coalesce(max(m.turn_idx), -1) AS last_turn,
       coalesce(list(DISTINCT m.turn_idx ORDER BY m.turn_idx) FILTER (WHERE m.role = 'user'), []) AS user_turns
FROM ep_episodes e
LEFT JOIN ep_messages m USING (simulation_id)
GROUP BY e.simulation_id, e.domain, e.task_id
ORDER BY e.simulation_id
