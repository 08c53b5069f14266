-- view_fid_episodes: user simulator $2's episodes in domain $3 ('' : every
-- domain), as grader $1 graded them: the task, trial, reward, criteria
-- applicable and failed, f (NULL when not scored), P0, and the failing
-- families (comma-separated, sorted). Filter $4: '' any, 'f1', 'f0',
-- 'unscored', 'success' (reward 1), 'failure' (reward below 1). One page:
-- $5 rows from offset $6 (by domain, then task: numeric ids in number
-- order), with the number that pass in the last column.
WITH eps AS (
    SELECT e.simulation_id, e.domain, e.task_id, e.trial, e.reward,
           coalesce(f.applicable, 0) AS applicable, coalesce(f.failed, 0) AS failed,
           f.f, coalesce(f.p0, false) AS p0
    FROM ep_episodes e
    JOIN ep_runs r ON r.run_id = e.run_id
    LEFT JOIN episode_fidelity f ON f.simulation_id = e.simulation_id AND f.grader = $1
    WHERE r.user_sim = $2 AND ($3 = '' OR e.domain = $3)
),
fams AS (
    SELECT v.simulation_id, string_agg(DISTINCT c.family, ', ' ORDER BY c.family) AS families
    FROM ep_verdicts v
    JOIN ep_rubric_criteria c ON c.criterion_id = v.criterion_id AND c.status = 'accepted'
    WHERE v.grader = $1 AND v.verdict = 'fail' AND v.simulation_id IN (SELECT simulation_id FROM eps)
    GROUP BY v.simulation_id
)
SELECT e.simulation_id, e.domain, e.task_id, e.trial, e.reward, e.applicable, e.failed, e.f, e.p0,
       coalesce(fa.families, '') AS families, count(*) OVER () AS total
FROM eps e
LEFT JOIN fams fa USING (simulation_id)
WHERE $4 = ''
   OR ($4 = 'f1' AND e.f = 1) OR ($4 = 'f0' AND e.f = 0) OR ($4 = 'unscored' AND e.f IS NULL)
   OR ($4 = 'success' AND e.reward >= 1) OR ($4 = 'failure' AND coalesce(e.reward, 0) < 1)
ORDER BY e.domain, try_cast(e.task_id AS BIGINT) NULLS LAST, e.task_id, e.trial NULLS FIRST, e.simulation_id
LIMIT $5 OFFSET $6
