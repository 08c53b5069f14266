-- ep_report_episodes: every episode with its run, cost and P0 flag, for the report;
-- and whether its run has no simulated user (solo mode) and whether it is a
-- placeholder of a simulation that never ran (tau2's infrastructure_error).
SELECT v.simulation_id, r.format, v.domain, v.user_sim, v.agent, v.task_id, v.reward, v.source_file,
       v.user_cost, v.cost_estimated, f.task_mismatch, r.git_commit, r.tau2_version, v.trial,
       coalesce(r.no_user, false), coalesce(v.termination_reason = 'infrastructure_error', false)
FROM episodes v
JOIN ep_runs r USING (run_id)
JOIN episode_flags f USING (simulation_id)
ORDER BY v.simulation_id
