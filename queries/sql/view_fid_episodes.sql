-- view_fid_episodes: user simulator $1's episodes ('': every user
-- simulator's) in domain $2 ('' : every domain), from ub_view_episodes
-- (view_fid_warm): the user simulator, the task, trial, reward,
-- criteria applicable and failed, f (NULL when not scored), P0, and the
-- failing families. Filter $3: '' any, 'f1', 'f0', 'unscored', 'success'
-- (reward 1), 'failure' (reward below 1); failing family $6 and probe
-- fired $7 ('' either: any). One page: $4 rows from offset
-- $5, by domain, task (numeric ids in number order), trial and id, with
-- the number that pass in the last column.
SELECT simulation_id, user_sim, domain, task_id, trial, reward, applicable, failed, f, p0, families, probes, count(*) OVER () AS total
FROM ub_view_episodes
WHERE ($1 = '' OR user_sim = $1) AND ($2 = '' OR domain = $2)
  AND ($3 = ''
       OR ($3 = 'f1' AND f = 1) OR ($3 = 'f0' AND f = 0) OR ($3 = 'unscored' AND f IS NULL)
       OR ($3 = 'success' AND reward >= 1) OR ($3 = 'failure' AND coalesce(reward, 0) < 1))
  AND ($6 = '' OR list_contains(string_split(families, ', '), $6))
  AND ($7 = '' OR list_contains(string_split(probes, ', '), $7))
ORDER BY domain, try_cast(task_id AS BIGINT) NULLS LAST, task_id, trial NULLS FIRST, simulation_id
LIMIT $4 OFFSET $5
