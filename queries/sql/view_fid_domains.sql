-- view_fid_domains: user simulator $2's episodes per domain as grader $1
-- graded them: the episodes, those scored (f not NULL: a criterion
-- applied and P0 did not fire), those with f = 1, those P0 flagged, and
-- the mean reward over every episode.
SELECT e.domain, count(*) AS episodes,
       count(f.f) AS scored,
       count(*) FILTER (WHERE f.f = 1) AS faithful,
       count(*) FILTER (WHERE f.p0) AS p0,
       avg(e.reward) AS mean_reward
FROM ep_episodes e
JOIN ep_runs r ON r.run_id = e.run_id
LEFT JOIN episode_fidelity f ON f.simulation_id = e.simulation_id AND f.grader = $1
WHERE r.user_sim = $2
GROUP BY e.domain
ORDER BY e.domain
