SELECT count(*) FROM ep_tasks WHERE task_key = ?
