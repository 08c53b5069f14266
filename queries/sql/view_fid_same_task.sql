-- view_fid_same_task: every episode of task $3 in domain $2 (of every user
-- simulator and trial) with f as grader $1 graded it (NULL: not scored)
-- and its reward; by simulator, trial, id. At most $4 rows.
SELECT e.simulation_id, r.user_sim, e.trial, e.reward, f.f
FROM ep_episodes e
JOIN ep_runs r ON r.run_id = e.run_id
LEFT JOIN episode_fidelity f ON f.simulation_id = e.simulation_id AND f.grader = $1
WHERE e.domain = $2 AND e.task_id = $3
ORDER BY r.user_sim, e.trial NULLS FIRST, e.simulation_id
LIMIT $4
