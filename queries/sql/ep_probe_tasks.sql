-- ep_probe_tasks: the blueprint of each task an episode refers to.
SELECT t.task_key, t.reason_for_call, t.known_info, t.unknown_info, t.task_instructions, t.persona,
       t.instruction, t.user_id, CAST(t.initial_state AS VARCHAR)
FROM ep_tasks t
WHERE t.task_key IN (SELECT task_key FROM ep_episodes)
ORDER BY t.task_key
