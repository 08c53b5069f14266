-- view_user_sims: the user simulators of the stored tau2 runs and the
-- domains each has episodes in.
SELECT DISTINCT r.user_sim, e.domain
FROM ep_episodes e
JOIN ep_runs r ON r.run_id = e.run_id
ORDER BY r.user_sim, e.domain
