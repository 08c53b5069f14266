-- One episode with its task's private blueprint and the run's guidelines.
-- The episode is found first by its primary key's index (MATERIALIZED: a
-- filter on the joined scan would read every episode).
WITH e AS MATERIALIZED (SELECT * FROM ep_episodes WHERE simulation_id = ?)
SELECT e.simulation_id, e.domain, e.task_id, e.trial, e.reward, coalesce(e.termination_reason, ''),
       r.user_sim, r.agent,
       coalesce(t.reason_for_call, ''), coalesce(t.known_info, ''), coalesce(t.unknown_info, ''),
       coalesce(t.task_instructions, ''), coalesce(t.persona, ''), coalesce(t.instruction, ''),
       coalesce(r.guidelines, '')
FROM e
JOIN ep_runs r USING (run_id)
LEFT JOIN ep_tasks t ON t.task_key = e.task_key
ORDER BY e.simulation_id
