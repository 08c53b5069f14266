-- ep_probe_user_actions: the gold actions the user must make, of the tasks
-- of ep_probe_tasks.sql (the same window ?).
SELECT task_key, idx, name, arguments, compare_args
FROM temp.ub_probe_user_actions
WHERE win = ?
ORDER BY task_key, idx
