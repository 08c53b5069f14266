-- Every episode that can be sampled for review, with what strata use and
-- whether a judge-free probe fired on it.
SELECT e.simulation_id, e.domain, e.task_id, e.reward,
       EXISTS (SELECT 1 FROM ep_probe_findings p WHERE p.simulation_id = e.simulation_id) AS probes_fired
FROM ep_episodes e
ORDER BY e.simulation_id
