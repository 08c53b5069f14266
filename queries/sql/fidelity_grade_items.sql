-- Every (episode, accepted criterion of its task) to grade, with the
-- criterion and the blueprint of the task version the episode ran. Neither
-- the user simulator nor the agent is selected: the grader is blind.
SELECT e.simulation_id, c.criterion_id, c.family, c.mode, c.quote, c.quote_source, c.text,
       coalesce(c.applies_when, ''),
       coalesce(t.reason_for_call, ''), coalesce(t.known_info, ''), coalesce(t.unknown_info, ''),
       coalesce(t.task_instructions, ''), coalesce(t.persona, ''), coalesce(t.instruction, '')
FROM ep_episodes e
JOIN ep_rubric_criteria c ON c.domain = e.domain AND c.task_id = e.task_id AND c.status = 'accepted'
LEFT JOIN ep_tasks t ON t.task_key = e.task_key
WHERE ? = '' OR e.domain = ?
ORDER BY e.simulation_id, c.criterion_id
