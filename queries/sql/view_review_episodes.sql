-- view_review_episodes: the reviewed episodes (each with a standing
-- decision of some reviewer) in domain $1 ('' : every domain; $4 names the
-- episodes not in the workspace, whose domain is unknown): id, domain ('':
-- not in the workspace), task, user simulator, the reviewers who decided,
-- how many found an error, whether an adjudicator decided, and the review
-- batches that assign it (comma-separated, sorted; '' none). One page: $2
-- rows from offset $3, by domain and id, with the number that pass in the
-- last column.
WITH d AS (
    SELECT simulation_id, count(*) AS reviewers, count(*) FILTER (WHERE outcome = 'error') AS errors,
           bool_or(kind = 'adjudicator') AS adjudicated
    FROM rv_decisions
    GROUP BY simulation_id
)
SELECT d.simulation_id, coalesce(e.domain, ''), coalesce(e.task_id, ''), coalesce(r.user_sim, ''),
       d.reviewers, d.errors, d.adjudicated,
       coalesce((SELECT string_agg(DISTINCT a.batch, ', ' ORDER BY a.batch)
                 FROM rv_assignments a WHERE a.simulation_id = d.simulation_id), '') AS batches,
       count(*) OVER () AS total
FROM d
LEFT JOIN ep_episodes e USING (simulation_id)
LEFT JOIN ep_runs r ON r.run_id = e.run_id
WHERE $1 = '' OR coalesce(e.domain, $4) = $1
ORDER BY e.domain NULLS LAST, d.simulation_id
LIMIT $2 OFFSET $3
