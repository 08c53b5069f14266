-- Every stored criterion with its task, for checking verdicts.
SELECT criterion_id, domain, task_id, status
FROM ep_rubric_criteria
ORDER BY criterion_id
