-- Every stored episode with its task, for checking verdicts.
SELECT simulation_id, domain, task_id
FROM ep_episodes
ORDER BY simulation_id
