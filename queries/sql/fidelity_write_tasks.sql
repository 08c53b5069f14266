-- Every task to write a rubric for (domain '' for all), first version per
-- (domain, task id), with a run's guidelines, the user tools its episodes
-- called and a sample episode (the first by id; '' when none).
SELECT t.domain, t.task_id,
       coalesce(t.reason_for_call, ''), coalesce(t.known_info, ''), coalesce(t.unknown_info, ''),
       coalesce(t.task_instructions, ''), coalesce(t.persona, ''), coalesce(t.instruction, ''),
       coalesce(g.guidelines, ''), coalesce(u.tools, ''), coalesce(s.sample_id, '')
FROM ep_tasks t
LEFT JOIN (SELECT e.domain, e.task_id, min(r.guidelines) AS guidelines
           FROM ep_episodes e JOIN ep_runs r USING (run_id) GROUP BY e.domain, e.task_id) g
       ON g.domain = t.domain AND g.task_id = t.task_id
LEFT JOIN (SELECT e.domain, e.task_id, string_agg(DISTINCT tc.name, ',' ORDER BY tc.name) AS tools
           FROM ep_tool_calls tc JOIN ep_episodes e USING (simulation_id)
           WHERE tc.requestor = 'user' GROUP BY e.domain, e.task_id) u
       ON u.domain = t.domain AND u.task_id = t.task_id
LEFT JOIN (SELECT domain, task_id, min(simulation_id) AS sample_id FROM ep_episodes GROUP BY domain, task_id) s
       ON s.domain = t.domain AND s.task_id = t.task_id
WHERE ? = '' OR t.domain = ?
QUALIFY row_number() OVER (PARTITION BY t.domain, t.task_id ORDER BY t.task_key) = 1
ORDER BY t.domain, t.task_id
