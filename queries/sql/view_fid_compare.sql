-- view_fid_compare: the tasks user simulators $1 and $2 both ran (from
-- ub_view_episodes, view_fid_warm), side by side: domain, task, each
-- side's episodes, scored episodes, faithful ones (f = 1), mean reward
-- and first episode (by trial, then id). Ordered by where they disagree:
-- the gap between the two shares of f = 1 (a side with no scored episode
-- counts as no gap), largest first, then domain and task (numeric ids in
-- number order). One page: $3 rows from offset $4, with the number that
-- pass and the number where the shares differ in the last columns.
WITH side AS (
    SELECT user_sim, domain, task_id, count(*) AS episodes, count(f) AS scored,
           count(*) FILTER (WHERE f = 1) AS faithful, avg(reward) AS mean_reward,
           arg_min(simulation_id, (coalesce(trial, -1), simulation_id)) AS first
    FROM ub_view_episodes
    WHERE user_sim = $1 OR user_sim = $2
    GROUP BY user_sim, domain, task_id
),
pairs AS (
    SELECT a.domain, a.task_id, a.episodes AS episodes_a, a.scored AS scored_a, a.faithful AS faithful_a,
           a.mean_reward AS reward_a, a.first AS first_a,
           b.episodes AS episodes_b, b.scored AS scored_b, b.faithful AS faithful_b,
           b.mean_reward AS reward_b, b.first AS first_b,
           coalesce(abs(b.faithful / nullif(b.scored, 0) - a.faithful / nullif(a.scored, 0)), 0) AS gap
    FROM side a
    JOIN side b ON b.domain = a.domain AND b.task_id = a.task_id AND b.user_sim = $2
    WHERE a.user_sim = $1
)
SELECT domain, task_id, episodes_a, scored_a, faithful_a, reward_a, first_a,
       episodes_b, scored_b, faithful_b, reward_b, first_b,
       count(*) OVER () AS total, count(*) FILTER (WHERE gap > 0) OVER () AS disagree
FROM pairs
ORDER BY gap DESC, domain, try_cast(task_id AS BIGINT) NULLS LAST, task_id
LIMIT $3 OFFSET $4
