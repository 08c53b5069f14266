-- ep_probe_tasks: the blueprint of each task an episode refers to that
-- completes in window ? of the probes' scan (ep_probe_task_plan.sql).
SELECT task_key, reason_for_call, known_info, unknown_info, task_instructions, persona,
       instruction, user_id, initial_state
FROM temp.ub_probe_tasks
WHERE win = ?
ORDER BY task_key
