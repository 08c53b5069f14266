-- view_search_message_at: the user simulator, domain and task of episode
-- $1 (no row when the workspace does not hold it).
SELECT r.user_sim, e.domain, e.task_id
FROM ep_episodes e
JOIN ep_runs r ON r.run_id = e.run_id
WHERE e.simulation_id = $1
