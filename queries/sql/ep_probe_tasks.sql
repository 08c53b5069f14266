-- ep_probe_tasks: the blueprint of each task an episode refers to whose
-- last row the probes' scan reads at a step in [?, ?) (ep_probe_plan.sql).
SELECT t.task_key, t.reason_for_call, t.known_info, t.unknown_info, t.task_instructions, t.persona,
       t.instruction, t.user_id, CAST(t.initial_state AS VARCHAR)
FROM ep_tasks t
WHERE t.task_key IN (SELECT task_key FROM temp.ub_probe_plan WHERE step >= ? AND step < ? AND stored)
ORDER BY t.task_key
