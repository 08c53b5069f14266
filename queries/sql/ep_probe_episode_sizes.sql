-- ep_probe_episode_sizes: each episode with its task key and how many rows of
-- ep_messages and ep_tool_calls it has, so that the probes know when a
-- scan in storage order has brought all of an episode; and whether its
-- run has no simulated user and whether it is a placeholder of a
-- simulation that never ran (tau2's infrastructure_error).
SELECT e.simulation_id, e.task_key, coalesce(m.n, 0), coalesce(c.n, 0),
       coalesce(r.no_user, false), coalesce(e.termination_reason = 'infrastructure_error', false)
FROM ep_episodes e
LEFT JOIN ep_runs r USING (run_id)
LEFT JOIN (SELECT simulation_id, count(*) AS n FROM ep_messages GROUP BY simulation_id) m USING (simulation_id)
LEFT JOIN (SELECT simulation_id, count(*) AS n FROM ep_tool_calls GROUP BY simulation_id) c USING (simulation_id)
