-- ep_probe_action_plan: the gold actions the user must make, of the tasks
-- of ep_probe_task_plan.sql, by window as there.
CREATE OR REPLACE TEMP TABLE ub_probe_user_actions AS
WITH w AS (
    SELECT DISTINCT CASE WHEN step < 0 THEN -1 ELSE step // $1 END AS win, task_key
    FROM temp.ub_probe_plan
    WHERE stored AND task_key IS NOT NULL
)
SELECT w.win, a.task_key, a.idx, a.name, CAST(a.arguments AS VARCHAR) AS arguments,
       CAST(a.compare_args AS VARCHAR) AS compare_args
FROM w
JOIN ep_task_actions a ON a.task_key = w.task_key AND a.requestor = 'user'
ORDER BY w.win, a.task_key, a.idx
