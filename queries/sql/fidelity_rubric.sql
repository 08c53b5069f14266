-- One task's criteria (every domain holding the task id when domain is '').
SELECT criterion_id, domain, task_id, family, mode, quote, quote_source, text,
       coalesce(applies_when, ''), written_by, coalesce(verified_by, ''),
       status, coalesce(reject_reason, '')
FROM ep_rubric_criteria
WHERE task_id = ? AND (? = '' OR domain = ?)
ORDER BY domain, criterion_id
