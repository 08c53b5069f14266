-- ep_stored_keys: the stored run ids and task keys.
SELECT 'run' AS kind, run_id AS key FROM ep_runs
UNION ALL
SELECT 'task', task_key FROM ep_tasks
ORDER BY kind, key
