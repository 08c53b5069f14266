-- view_fid_same_task: every episode of task $2 in domain $1 (of every user
-- simulator and trial), from ub_view_episodes (view_fid_warm), with f
-- (NULL: not scored) and its reward; by simulator, trial, id. At most $3
-- rows.
SELECT simulation_id, user_sim, trial, reward, f
FROM ub_view_episodes
WHERE domain = $1 AND task_id = $2
ORDER BY user_sim, trial NULLS FIRST, simulation_id
LIMIT $3
