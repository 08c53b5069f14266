-- Every task of every stored tau2 task split (split_tasks.json), by
-- split, domain and task.
SELECT split, domain, task_id
FROM ep_task_splits
ORDER BY split, domain, task_id
