-- Every episode that can be sampled for review, with what strata use.
SELECT e.simulation_id, e.domain, e.task_id, e.reward
FROM ep_episodes e
ORDER BY e.simulation_id
