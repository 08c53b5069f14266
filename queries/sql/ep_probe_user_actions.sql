-- ep_probe_user_actions: gold actions the user must make.
SELECT task_key, idx, name, CAST(arguments AS VARCHAR), CAST(compare_args AS VARCHAR)
FROM ep_task_actions
WHERE requestor = 'user'
ORDER BY task_key, idx
