-- view_fid_domains: user simulator $1's episodes per domain, from
-- ub_view_episodes (view_fid_warm): the episodes, those scored (f not
-- NULL: a criterion applied and P0 did not fire), those with f = 1, those
-- P0 flagged, and the mean reward over every episode.
SELECT domain, count(*) AS episodes,
       count(f) AS scored,
       count(*) FILTER (WHERE f = 1) AS faithful,
       count(*) FILTER (WHERE p0) AS p0,
       avg(reward) AS mean_reward
FROM ub_view_episodes
WHERE user_sim = $1
GROUP BY domain
ORDER BY domain
