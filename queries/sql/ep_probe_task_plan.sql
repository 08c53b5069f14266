-- ep_probe_task_plan: the blueprints of the tasks the probes' scan needs,
-- by window (ep_probe_plan.sql: the steps [w*?, (w+1)*?) are window w, the
-- episodes without rows window -1): each task once per window in which an
-- episode of it completes, in window order. Written once, so that each
-- window reads its own rows instead of a scan of ep_tasks (which made the
-- probes' time grow with the square of the workspace).
CREATE OR REPLACE TEMP TABLE ub_probe_tasks AS
WITH w AS (
    SELECT DISTINCT CASE WHEN step < 0 THEN -1 ELSE step // $1 END AS win, task_key
    FROM temp.ub_probe_plan
    WHERE stored AND task_key IS NOT NULL
)
SELECT w.win, t.task_key, t.reason_for_call, t.known_info, t.unknown_info, t.task_instructions, t.persona,
       t.instruction, t.user_id, CAST(t.initial_state AS VARCHAR) AS initial_state
FROM w
JOIN ep_tasks t ON t.task_key = w.task_key
ORDER BY w.win, t.task_key
