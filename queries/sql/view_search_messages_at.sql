-- view_search_messages_at: the user simulator, domain and task of each
-- episode $1 names (a JSON array of simulation ids: those of a search
-- page's hits in messages); no row for one the workspace does not hold.
SELECT e.simulation_id, r.user_sim, e.domain, e.task_id
FROM ep_episodes e
JOIN ep_runs r ON r.run_id = e.run_id
WHERE e.simulation_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY e.simulation_id
