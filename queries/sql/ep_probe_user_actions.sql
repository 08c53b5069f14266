-- ep_probe_user_actions: the gold actions the user must make, of the tasks
-- of ep_probe_tasks.sql (the same steps [?, ?)).
SELECT a.task_key, a.idx, a.name, CAST(a.arguments AS VARCHAR), CAST(a.compare_args AS VARCHAR)
FROM ep_task_actions a
WHERE a.requestor = 'user'
  AND a.task_key IN (SELECT task_key FROM temp.ub_probe_plan WHERE step >= ? AND step < ? AND stored)
ORDER BY a.task_key, a.idx
