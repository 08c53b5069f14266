-- The rubric set described, without a row per task: the accepted criteria
-- per domain, family and mode with their tasks ('cell'); every criterion
-- per writer, verifier and status ('who'); and how many tasks have each
-- number of accepted criteria ('task': n criteria, m tasks).
WITH acc AS (
    SELECT domain, task_id, family, mode FROM ep_rubric_criteria WHERE status = 'accepted'
)
SELECT 'cell' AS kind, domain AS a, family AS b, mode AS c, count(*) AS n, count(DISTINCT task_id) AS m
FROM acc
GROUP BY domain, family, mode
UNION ALL
SELECT 'who', written_by, coalesce(verified_by, ''), status, count(*), 0
FROM ep_rubric_criteria
GROUP BY ALL
UNION ALL
SELECT 'task', '', '', '', n, count(*)
FROM (SELECT count(*) AS n FROM acc GROUP BY domain, task_id)
GROUP BY n
ORDER BY kind, a, b, c, n
