-- Every text a rubric quote may come from, per task: the blueprint fields
-- of every stored version of the task (a tau-bench v1 task's one
-- instruction stands for each blueprint field), and the guidelines of every
-- run with an episode of the task. source '' marks that the task exists.
WITH src AS (
    SELECT domain, task_id, '' AS source, NULL AS text FROM ep_tasks
    UNION ALL SELECT domain, task_id, 'reason_for_call', reason_for_call FROM ep_tasks
    UNION ALL SELECT domain, task_id, 'known_info', known_info FROM ep_tasks
    UNION ALL SELECT domain, task_id, 'unknown_info', unknown_info FROM ep_tasks
    UNION ALL SELECT domain, task_id, 'task_instructions', task_instructions FROM ep_tasks
    UNION ALL SELECT domain, task_id, 'persona', persona FROM ep_tasks
    UNION ALL SELECT t.domain, t.task_id, s.source, t.instruction
              FROM ep_tasks t, (VALUES ('reason_for_call'), ('known_info'), ('unknown_info'), ('task_instructions')) s(source)
              WHERE t.instruction IS NOT NULL
    UNION ALL SELECT DISTINCT e.domain, e.task_id, 'guidelines', r.guidelines
              FROM ep_episodes e JOIN ep_runs r USING (run_id)
              WHERE r.guidelines IS NOT NULL
)
SELECT DISTINCT domain, task_id, source, coalesce(text, '') AS text
FROM src
WHERE source = '' OR text IS NOT NULL
ORDER BY domain, task_id, source, text
