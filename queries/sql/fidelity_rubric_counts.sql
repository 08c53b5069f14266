-- The rubric set described: criteria counted per domain, task, family,
-- mode, writer, verifier and status.
SELECT domain, task_id, family, mode, written_by, coalesce(verified_by, '') AS verified_by, status, count(*) AS criteria
FROM ep_rubric_criteria
GROUP BY ALL
ORDER BY domain, task_id, family, mode, written_by, verified_by, status
