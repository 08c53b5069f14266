-- Every episode that can be sampled for review, with what strata use and
-- whether a judge-free probe fired on it; and whether its run has no
-- simulated user (solo mode) and whether it is a placeholder of a
-- simulation that never ran (tau2's infrastructure_error): review leaves
-- those out.
SELECT e.simulation_id, e.domain, e.task_id, e.reward,
       EXISTS (SELECT 1 FROM ep_probe_findings p WHERE p.simulation_id = e.simulation_id) AS probes_fired,
       coalesce(r.no_user, false), coalesce(e.termination_reason = 'infrastructure_error', false)
FROM ep_episodes e
LEFT JOIN ep_runs r USING (run_id)
ORDER BY e.simulation_id
