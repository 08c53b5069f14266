-- ep_probe_episodes: each episode with its run's simulator and its task's blueprint.
SELECT e.simulation_id, e.task_key, t.reason_for_call, t.known_info, t.unknown_info,
       t.task_instructions, t.persona, t.instruction, t.user_id, CAST(t.initial_state AS VARCHAR)
FROM ep_episodes e
LEFT JOIN ep_tasks t ON t.task_key = e.task_key
ORDER BY e.simulation_id
